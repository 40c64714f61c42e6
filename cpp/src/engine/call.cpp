// Replies: era decoration, exactly-once sending, outcome counting and the one-line request log.
#include "engine/call.hpp"

namespace mcpcxx::detail {

bool call::claim() {
  if (!slot) return true;  // refused before registration: nothing in flight to settle
  if (slot->finished.exchange(true)) return false;
  session->end(id);
  return true;
}

void call::decorate(json& result) const {
  if (!modern) return;
  result["resultType"] = "complete";
  json& meta = result["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta["io.modelcontextprotocol/serverInfo"] = eng().server_info();
}

bool call::reply_result(json result, outcome o, std::string_view category,
                        std::string_view reference) {
  if (!claim()) return false;
  decorate(result);
  session->send(reply_to, jsonrpc::serialize_result(id, result), frame_kind::response);
  log_outcome(o, category, reference, std::nullopt);
  return true;
}

bool call::reply_raw(std::string_view serialized_result) {
  if (!claim()) return false;
  const std::string id_text = jsonrpc::id_to_json(id).dump();
  std::string frame;
  frame.reserve(30 + id_text.size() + serialized_result.size());
  frame.append(R"({"jsonrpc":"2.0","id":)").append(id_text).append(R"(,"result":)");
  frame.append(serialized_result);
  frame.push_back('}');
  session->send(reply_to, std::move(frame), frame_kind::response);
  log_outcome(outcome::ok, "ok", {}, std::nullopt);
  return true;
}

bool call::reply_error(const jsonrpc::error_object& error, std::string_view reference) {
  if (!claim()) return false;
  session->send(reply_to, jsonrpc::serialize_error(id, error), frame_kind::response);
  log_outcome(outcome::protocol_error, "protocol", reference, error.code);
  return true;
}

void call::log_outcome(outcome o, std::string_view category, std::string_view reference,
                       std::optional<int> code) const {
  eng().count(o, category);
  if (!eng().options().log_requests) return;
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  static constexpr const char* names[] = {"ok", "tool_error", "protocol_error", "cancelled"};
  json fields = {{"method", method},
                 {"id", jsonrpc::id_to_json(id)},
                 {"outcome", names[static_cast<int>(o)]},
                 {"category", category},
                 {"latencyMs", static_cast<double>(us) / 1000.0},
                 {"era", modern ? "modern" : "legacy"}};
  if (!tool.empty()) fields["tool"] = tool;
  if (!reference.empty()) fields["reference"] = reference;
  if (code) fields["code"] = *code;
  eng().log().write(o == outcome::ok ? "info" : "warning", "request", std::move(fields));
}

request_context call::make_context() const {
  context_hooks hooks;
  std::weak_ptr<in_flight> weak_slot = slot;
  auto s = session;
  auto to = reply_to;
  hooks.notify = [s, to, weak_slot](std::string_view method, const json& params) {
    auto live = weak_slot.lock();
    // Request-related notifications must stop once the request has its reply.
    if (live && live->finished.load()) return;
    s->send(to, jsonrpc::serialize_notification(method, params), frame_kind::notification);
  };
  auto* e = &eng();
  std::string method_name = method;
  hooks.record = [e, method_name](log_level level, const json& data,
                                  const std::optional<std::string>& logger) {
    json fields = {{"method", method_name}, {"level", to_string(level)}, {"data", data}};
    if (logger) fields["logger"] = *logger;
    e->log().write("info", "handler_log", std::move(fields));
  };
  request_context ctx(jsonrpc::id_to_json(id), version, client_info, client_capabilities,
                      progress_token, min_log_level, slot ? slot->token : cancellation_token(),
                      std::move(hooks));
  ctx.set_principal(session->principal());
  return ctx;
}

}  // namespace mcpcxx::detail
