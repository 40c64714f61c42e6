// The exchange over time, off the path of a call without them: the deadline of a tool with a
// timeout (it may settle the exchange first) and the trace span (mcpcxx/tracing.hpp), started only
// when the server has a tracer (the OpenTelemetry MCP span name and attributes, the outcome at
// the end).
#include "core/exchange.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"

namespace mcpcxx::detail {

void exchange::arm_deadline(std::chrono::milliseconds after,
                            std::function<method_outcome()> on_expiry,
                            const std::shared_ptr<exchange>& self) {
  std::weak_ptr<exchange> weak = self;
  const std::uint64_t job = worker_pool::current_job();  // armed on the handler's thread
  deadline_ = core().deadlines().schedule(std::chrono::steady_clock::now() + after,
                                          [weak, job, fn = std::move(on_expiry)] {
                                            auto ex = weak.lock();
                                            if (!ex || !ex->finish(fn())) return;
                                            ex->token_.cancel();
                                            ex->release_worker(job);
                                          });
}

// The handler outlived its deadline: its worker no longer counts toward the pool (see
// worker_pool.hpp), so the hung handler cannot starve later requests.
void exchange::release_worker(std::uint64_t job) const {
  if (job == 0) return;  // inline dispatch: the transport's thread, not a pool worker
  const auto r = core().pool().release_stuck(job);
  if (r == worker_pool::release::not_running) return;
  const bool replaced = r == worker_pool::release::replaced;
  core().log().write(replaced ? "warning" : "error", "handler_stuck",
                     {{"method", method_},
                      {"tool", tool_},
                      {"id", jsonrpc::id_to_json(id_)},
                      {"stuck", core().pool().stuck()},
                      {"replaced", replaced},
                      {"note", replaced ? "handler still running after its deadline; a replacement "
                                          "worker serves other requests"
                                        : "handler still running after its deadline; the bound "
                                          "max_stuck_workers is reached, the pool runs short"}});
}

// Span name and attributes follow the OpenTelemetry MCP conventions: "{method} {target}" with the
// tool or prompt name as target.
void exchange::begin_span() {
  tracer* t = core().tracer_ptr();
  if (t == nullptr) return;
  std::string target;
  if ((method_ == "tools/call" || method_ == "prompts/get") && params_.is_object()) {
    const auto it = params_.find("name");
    if (it != params_.end() && it->is_string()) target = it->get<std::string>();
  }
  const std::string name = target.empty() ? method_ : method_ + " " + target;
  const std::string id = std::holds_alternative<std::int64_t>(id_)
                             ? std::to_string(std::get<std::int64_t>(id_))
                             : std::get<std::string>(id_);
  const auto parent = incoming_parent();
  span_start_info info{name,
                       method_,
                       target,
                       id,
                       session_->options().id,
                       facts.version,
                       parent ? &*parent : nullptr};
  try {
    span_ = t->start_span(info);
  } catch (const std::exception& e) {
    core().log().write("error", "tracer_failed", {{"method", method_}, {"what", e.what()}});
  }
}

void exchange::end_span(std::string_view outcome, const method_outcome* o) noexcept {
  span_end_info info;
  info.outcome = outcome;
  info.category = o != nullptr ? std::string_view(o->category) : "cancelled";
  std::string code_text;
  if (o == nullptr) {
    info.error_type = "cancelled";
  } else if (o->kind == outcome_kind::protocol_error) {
    info.rpc_code = o->error.code;  // wire-text: not wire (a span attribute)
    code_text = std::to_string(o->error.code);
    info.error_type = code_text;
  } else if (o->counted_as == outcome_class::tool_error) {
    info.error_type = "tool_error";
  }
  if (o != nullptr) info.reference = o->reference;
  span_->end(info);  // kept alive: a handler past its deadline may still hold it
}

}  // namespace mcpcxx::detail
