// The messages of a session that are not requests: notifications (through the middleware's
// notification hooks), cancellations, a client's responses to the server's requests, and
// 2025-03-26 batches, whose members go back through receive_one.
#include "core/batch_reply.hpp"
#include "core/notification_middleware.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "wire/era.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::detail {

namespace {

// Answers a batch refused as a whole, with one error without an id, and returns true: batching
// needs a revision that has it (P4) and at most max_batch_members members (P28).
bool refused_whole_batch(session_state& s, const jsonrpc::message& msg,
                         const std::shared_ptr<frame_sink>& target) {
  server_core& core = s.core();
  const std::size_t limit = core.options().max_batch_members;
  const bool allowed = ::mcpcxx::wire::has(s.legacy_version(), ::mcpcxx::wire::feature::batching);
  if (allowed && msg.body.size() <= limit) return false;
  const situation row =
      allowed ? situation::P28_batch_too_many_members : situation::P4_batch_not_allowed;
  const json args = allowed ? json{{"members", msg.body.size()}, {"limit", limit}} : json::object();
  core.count(outcome_class::protocol_error,
             allowed ? "batch_too_many_members" : "batch_not_allowed");
  s.send(target, jsonrpc::serialize_error(std::nullopt, ::mcpcxx::wire::render(row, args)),
         {frame_kind::response, ::mcpcxx::wire::row_of(row).id});
  return true;
}

}  // namespace

void session_state::receive_notification(const jsonrpc::message& msg) {
  core_->count(outcome_class::ok, "notification");
  if (const auto chain = core_->middleware().chain();
      chain && !admit_notification(*chain, core_->log(), msg, principal(), legacy_version())) {
    return;
  }
  if (msg.method == "notifications/initialized") {
    update_legacy([](legacy_state& l) { l.initialized_notification = true; });
  } else if (msg.method == "notifications/cancelled") {
    receive_cancel(msg.params);
  } else if (msg.method == "notifications/roots/list_changed") {
    roots_changed();
  } else if (msg.method != "notifications/progress") {
    // notifications/progress is a known client notification with nothing for a server to do
    core_->log().write("warning", "unknown_notification", {{"method", msg.method}});
  }
}

void session_state::receive_cancel(const json& params) {
  if (!params.is_object()) return;
  const auto rid = params.find("requestId");
  if (rid == params.end()) return;
  std::string reason = "cancelled by client";
  if (const auto r = params.find("reason"); r != params.end() && r->is_string()) {
    reason = r->get<std::string>();
  }
  if (rid->is_number_integer()) cancel(rid->get<std::int64_t>(), reason);
  if (rid->is_string()) cancel(rid->get<std::string>(), reason);
}

void session_state::roots_changed() {
  const auto& hook = core_->options().on_roots_list_changed;
  if (!hook) return;
  try {
    hook(session(shared_from_this()));
  } catch (const std::exception& e) {
    core_->log().write("error", "roots_list_changed_hook_failed", {{"what", e.what()}});
  }
}

// A client's answer to a server-to-client request goes to the handler waiting for it; anything
// else (never sent, answered twice, too late) is logged for operators and otherwise ignored.
void session_state::receive_response(const jsonrpc::message& msg) {
  if (outbound_.resolve(msg) == outbound_requests::routed::answered) return;
  json id = msg.id ? jsonrpc::id_to_json(*msg.id) : json(nullptr);
  core_->log().write("warning", "unexpected_response",
                     {{"id", id},
                      {"note",
                       "no server-to-client request with this id is waiting (never "
                       "sent, already answered, timed out or cancelled); ignored"}});
}

void session_state::receive_batch(jsonrpc::message msg, const std::shared_ptr<frame_sink>& target,
                                  era_hint hint, const std::shared_ptr<const json>& headers) {
  if (refused_whole_batch(*this, msg, target)) return;
  std::vector<jsonrpc::message> parts;
  std::size_t members = 0;  // every member but notifications and responses settles once
  for (auto& element : msg.body) {
    parts.push_back(jsonrpc::classify(std::move(element)));
    const auto k = parts.back().kind;
    if (k != jsonrpc::message_kind::notification && k != jsonrpc::message_kind::response) {
      ++members;
    }
  }
  const reply_route route{target,
                          std::make_shared<batch_reply>(shared_from_this(), target, members,
                                                        core_->options().max_batch_reply_bytes)};
  for (auto& part : parts) {
    if (part.kind == jsonrpc::message_kind::request && part.method == "initialize") {
      route.batch->add(jsonrpc::serialize_error(
          part.id, ::mcpcxx::wire::render(situation::P5_initialize_in_batch)));
    } else {
      receive_one(std::move(part), route, hint, headers);
    }
  }
}

}  // namespace mcpcxx::detail
