// The at-most-once step: claim, record, and answer repeats from the record (once_step.hpp).
#include "methods/once_step.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <random>

#include "core/iso_time.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "core/store_unavailable.hpp"
#include "methods/once_key.hpp"
#include "methods/once_verdict.hpp"
#include "methods/primitive_methods.hpp"
#include "state/codec.hpp"

namespace mcpcxx::detail {

namespace {

using sys_clock = std::chrono::system_clock;

constexpr std::array<const char*, k_once_events> k_event_names = {
    "replayed", "in_progress", "unknown", "not_kept", "resolved", "unsettled"};
// A repeat of a call still running is told to wait this long when the tool has no deadline.
constexpr std::int64_t k_default_retry_after_s = 5;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(sys_clock::now().time_since_epoch())
      .count();
}

std::string iso_ms(std::int64_t ms) {
  return iso8601(sys_clock::time_point(std::chrono::milliseconds(ms)));
}

std::string new_call_id() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  const std::uint64_t v = rng();
  std::array<char, sizeof v> bits{};
  std::memcpy(bits.data(), &v, sizeof v);
  return "call-" + state::hex_encode({bits.data(), bits.size()});
}

// One call of an at-most-once tool, from its claim on.
struct once_call {
  std::shared_ptr<once_service> service;
  std::shared_ptr<call_records> records;
  exchange_ptr ex;
  std::shared_ptr<const tool_entry> tool;
  const json* arguments = nullptr;  // this request's, while before() runs
  call_claim claim;

  const at_most_once& policy() const { return *tool->spec.at_most_once; }
  const std::string& name() const { return tool->spec.name; }
};

// The status check the refusals name: {check} as a phrase, statusCheck as data.
void put_status_check(const once_call& c, json& args) {
  const auto& check = c.policy().check;
  if (!check) {
    args["check"] = "check the current state with the tools that read it";
    args["statusCheck"] = nullptr;
    return;
  }
  json passed = json::object();
  for (const auto& a : check->arguments) {
    if (const auto it = c.arguments->find(a); it != c.arguments->end()) passed[a] = *it;
  }
  args["check"] = "check its outcome with " + check->tool + "(" + passed.dump() + ")";
  args["statusCheck"] = {{"tool", check->tool}, {"arguments", passed}};
}

json repeat_args(const once_call& c, const call_record& first) {
  json a = {{"name", c.name()},
            {"firstCallId", first.call_id},
            {"firstCalledAt", iso_ms(first.first_called_at_ms)}};
  put_status_check(c, a);
  return a;
}

method_outcome refusal(const once_call& c, situation row, json args, once_event e) {
  c.service->count(c.name(), e);
  return method_outcome::tool_failed(row, std::move(args), c.tool->output != nullptr, "conflict");
}

std::int64_t retry_after_s(const once_call& c, const call_record& first) {
  const std::int64_t now = c.claim.now_ms;
  std::int64_t wait_ms = k_default_retry_after_s * 1000;
  if (const auto& t = c.tool->spec.timeout) {
    wait_ms = first.first_called_at_ms + t->count() - now;
  }
  const std::int64_t window_left = first.first_called_at_ms + c.policy().window.count() - now;
  return std::max<std::int64_t>(1, (std::min(wait_ms, window_left) + 999) / 1000);
}

method_outcome in_progress(const once_call& c, const call_record& first) {
  if (!first.task_id.empty()) {
    const auto& rejoin = c.service->core().hooks().rejoin_task;
    if (rejoin) {
      if (auto task = rejoin(*c.ex, *c.tool, first.task_id)) {
        c.service->count(c.name(), once_event::in_progress);
        return std::move(*task);
      }
    }
  }
  json a = repeat_args(c, first);
  a["retryAfterSeconds"] = retry_after_s(c, first);
  a["taskId"] = first.task_id.empty() ? json(nullptr) : json(first.task_id);
  return refusal(c, situation::T11_repeat_in_progress, std::move(a), once_event::in_progress);
}

method_outcome unknown_outcome(const once_call& c, const call_record& first) {
  json a = repeat_args(c, first);
  a["reason"] = first.reason;
  a["windowEndsAt"] = iso_ms(first.first_called_at_ms + c.policy().window.count());
  const std::string& key = c.policy().key_argument;
  a["keyArgument"] = key.empty() ? json(nullptr) : json(key);
  return refusal(c, situation::T12_repeat_outcome_unknown, std::move(a), once_event::unknown);
}

// The first call's result again, marked as a replay; the handler does not run.
method_outcome replay(const once_call& c, const call_record& first) {
  if (first.result.empty()) {
    return refusal(c, situation::T13_repeat_result_not_kept, repeat_args(c, first),
                   once_event::not_kept);
  }
  json result = json::parse(first.result, nullptr, false);
  if (!result.is_object()) result = json::object();
  result["_meta"]["mcpcxx/replay"] = {{"firstCalledAt", iso_ms(first.first_called_at_ms)},
                                      {"callId", first.call_id}};
  c.service->count(c.name(), once_event::replayed);
  const bool is_error = result.value("isError", false);
  return is_error ? method_outcome::tool_reported_error(std::move(result))
                  : method_outcome::ok(std::move(result));
}

void log_repeat(const once_call& c, const call_record& first, std::string_view answer) {
  c.service->core().log().write("info", "at_most_once_repeat",
                                {{"tool", c.name()},
                                 {"callId", c.claim.call_id},
                                 {"firstCallId", first.call_id},
                                 {"answer", std::string(answer)}});
}

// Records how the claimed call's handler ended.
void settle(const once_call& c, const method_outcome& out, bool ran, bool cancelled,
            std::chrono::steady_clock::time_point started) {
  try {
    const once_verdict v = judge(out, ran, cancelled, c.tool->spec.timeout,
                                 std::chrono::steady_clock::now() - started);
    if (v.state == verdict_state::not_applied) {
      c.records->release(c.claim.key, c.claim.call_id);
      return;
    }
    call_record r;
    r.state = v.state == verdict_state::applied ? call_state::applied : call_state::unknown;
    r.reason = v.reason;
    if (r.state == call_state::applied) {
      std::string text = out.full_result().dump();
      if (text.size() <= c.service->core().options().at_most_once.max_result_bytes) {
        r.result = std::move(text);
      }
    }
    c.records->settle(c.claim.key, c.claim.call_id, r);
  } catch (const std::exception& e) {
    c.service->count(c.name(), once_event::unsettled);
    c.service->core().log().write(
        "warning", "at_most_once_unsettled",
        {{"tool", c.name()}, {"callId", c.claim.call_id}, {"problem", e.what()}});
  }
}

// This call holds the record: the handler runs, and how it ends is recorded.
void hold(const once_call& claimed, tool_call_plan& plan) {
  const auto started = std::chrono::steady_clock::now();
  once_call c = claimed;
  c.arguments = nullptr;  // the hooks may outlive the request's parameters
  plan.on_handler_end = [c, started](const method_outcome& out, bool ran, bool cancelled) {
    settle(c, out, ran, cancelled, started);
  };
  plan.on_task_created = [c](const std::string& task_id) {
    try {
      c.records->set_task(c.claim.key, c.claim.call_id, task_id);
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): repeats then get T11
    }
  };
}

std::optional<method_outcome> answer(once_call& c, tool_call_plan& plan, const call_record& first,
                                     bool resolved_once);

// The resolver's verdict on an unknown first call: a replay, a rerun, or still unknown.
std::optional<method_outcome> resolve(once_call& c, tool_call_plan& plan,
                                      const call_record& first) {
  prior_call prior{first.call_id,
                   sys_clock::time_point(std::chrono::milliseconds(first.first_called_at_ms)),
                   first.reason, *c.arguments};
  prior_resolution verdict;
  try {
    request_context ctx = c.ex->make_context(c.ex);
    verdict = c.policy().resolver(prior, ctx);
  } catch (const std::exception& e) {
    c.service->core().log().write("warning", "at_most_once_resolver_failed",
                                  {{"tool", c.name()}, {"problem", e.what()}});
    return unknown_outcome(c, first);
  }
  if (verdict.kind == prior_resolution::verdict::unknown) return unknown_outcome(c, first);
  c.service->count(c.name(), once_event::resolved);
  if (verdict.kind == prior_resolution::verdict::applied) {
    call_record applied = first;
    applied.state = call_state::applied;
    applied.result =
        tool_result_outcome(*c.ex, *c.tool, std::move(verdict.result)).full_result().dump();
    c.records->settle(c.claim.key, first.call_id, applied);
    return replay(c, applied);
  }
  c.claim.replaces = first.call_id;
  const claim_outcome again = c.records->claim(c.claim);
  if (again.claimed) {
    hold(c, plan);
    return std::nullopt;
  }
  return answer(c, plan, again.record, true);
}

std::optional<method_outcome> answer(once_call& c, tool_call_plan& plan, const call_record& first,
                                     bool resolved_once) {
  switch (first.state) {
    case call_state::running:
      log_repeat(c, first, "in_progress");
      return in_progress(c, first);
    case call_state::applied:
      log_repeat(c, first, first.result.empty() ? "not_kept" : "replayed");
      return replay(c, first);
    case call_state::unknown:
      log_repeat(c, first, "unknown");
      if (c.policy().resolver && !resolved_once) return resolve(c, plan, first);
      return unknown_outcome(c, first);
  }
  return unknown_outcome(c, first);
}

class once_step final : public tool_step {
 public:
  explicit once_step(std::shared_ptr<once_service> service) : service_(std::move(service)) {}

  std::optional<method_outcome> before(const exchange_ptr& ex,
                                       const std::shared_ptr<const tool_entry>& tool,
                                       const json& arguments, tool_call_plan& plan) const override {
    if (!tool->input->is_valid(arguments)) return std::nullopt;  // row T1 follows: no claim
    const at_most_once& p = *tool->spec.at_most_once;
    once_call c{service_, service_->records(), ex, tool, &arguments, {}};
    const json& compared = p.key_argument.empty() ? arguments : arguments.at(p.key_argument);
    c.claim.key = operation_key(ex->session().identity(), tool->spec.name, compared);
    c.claim.call_id = new_call_id();
    c.claim.now_ms = now_ms();
    c.claim.window = p.window;
    try {
      const claim_outcome got = c.records->claim(c.claim);
      if (got.claimed) {
        hold(c, plan);
        return std::nullopt;
      }
      return answer(c, plan, got.record, false);
    } catch (const store_unavailable& e) {
      return method_outcome::protocol(situation::P57_store_unavailable, {{"reason", e.what()}});
    }
  }

 private:
  std::shared_ptr<once_service> service_;
};

}  // namespace

once_service::once_service(server_core& core)
    : core_(core), evicted_(std::make_shared<std::atomic<std::uint64_t>>(0)) {
  records_ =
      make_memory_call_records(core.options().at_most_once.max_records, [n = evicted_] { ++*n; });
}

void once_service::use_records(std::shared_ptr<call_records> records) {
  std::lock_guard g(mutex_);
  records_ = std::move(records);
}

std::shared_ptr<call_records> once_service::records() const {
  std::lock_guard g(mutex_);
  return records_;
}

void once_service::declare(const std::string& tool) {
  std::lock_guard g(mutex_);
  counts_.try_emplace(tool);
}

void once_service::count(const std::string& tool, once_event e) {
  std::lock_guard g(mutex_);
  ++counts_[tool][static_cast<std::size_t>(e)];
}

std::string once_service::metrics_text() const {
  std::lock_guard g(mutex_);
  if (counts_.empty()) return {};
  std::string out =
      "# HELP mcpcxx_at_most_once_total Calls of at-most-once tools answered from the record "
      "of an identical earlier call, by tool and outcome.\n"
      "# TYPE mcpcxx_at_most_once_total counter\n";
  for (const auto& [tool, counts] : counts_) {
    for (std::size_t i = 0; i < k_once_events; ++i) {
      out += "mcpcxx_at_most_once_total{tool=" + json(tool).dump() + ",outcome=\"" +
             k_event_names[i] + "\"} " + std::to_string(counts[i]) + "\n";
    }
  }
  out +=
      "# HELP mcpcxx_at_most_once_evicted_total Settled at-most-once records dropped early to "
      "stay within at_most_once_options::max_records.\n"
      "# TYPE mcpcxx_at_most_once_evicted_total counter\n"
      "mcpcxx_at_most_once_evicted_total " +
      std::to_string(evicted_->load()) + "\n";
  return out;
}

std::shared_ptr<const tool_step> make_once_step(std::shared_ptr<once_service> service) {
  return std::make_shared<once_step>(std::move(service));
}

}  // namespace mcpcxx::detail
