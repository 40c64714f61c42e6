// Classification of one parsed JSON value as a JSON-RPC 2.0 request, notification or response,
// plus the request-id helpers.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "mcpcxx/jsonrpc.hpp"

#include "wire/situation.hpp"

namespace mcpcxx::jsonrpc {

json id_to_json(const request_id& id) {
  if (const auto* n = std::get_if<std::int64_t>(&id)) return json(*n);
  return json(std::get<std::string>(id));
}

std::string id_key(const request_id& id) {
  if (const auto* n = std::get_if<std::int64_t>(&id)) return std::to_string(*n);
  return json(std::get<std::string>(id)).dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

/// The value as a request id, or nullopt for null, bool, float, object, array or an integer
/// outside the int64 range.
std::optional<request_id> read_id(const json& v) {
  if (v.is_string()) return request_id{v.get<std::string>()};
  if (v.is_number_integer() && !v.is_number_unsigned()) return request_id{v.get<std::int64_t>()};
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return request_id{static_cast<std::int64_t>(u)};
    }
  }
  return std::nullopt;
}

using wire::situation;

message invalid(json body, std::optional<request_id> id, situation why) {
  message m;
  m.kind = message_kind::invalid;
  m.id = std::move(id);
  m.body = std::move(body);
  m.error = wire::render(why);
  m.refusal = why;
  return m;
}

bool is_error_object(const json& e) {
  if (!e.is_object()) return false;
  const auto code = e.find("code");
  const auto text = e.find("message");
  return code != e.end() && code->is_number_integer() && text != e.end() && text->is_string();
}

message classify_response(json body, std::optional<request_id> id, bool id_present) {
  const bool has_result = body.contains("result");
  const bool has_error = body.contains("error");
  if (has_result && has_error) {
    return invalid(std::move(body), std::move(id), situation::P2g_response_result_and_error);
  }
  if (has_error && !is_error_object(body["error"])) {
    return invalid(std::move(body), std::move(id), situation::P2h_response_bad_error_object);
  }
  // JSON-RPC lets an error response carry id null when the request id was unreadable.
  const bool null_error_id = has_error && id_present && body["id"].is_null();
  if (!id && !null_error_id) {
    return invalid(std::move(body), std::nullopt, situation::P2i_response_bad_id);
  }
  message m;
  m.kind = message_kind::response;
  m.id = std::move(id);
  m.body = std::move(body);
  return m;
}

message classify_call(json body, std::optional<request_id> id, bool id_present) {
  const auto method = body.find("method");
  if (!method->is_string()) {
    return invalid(std::move(body), std::move(id), situation::P2d_method_not_string);
  }
  if (id_present && !id) {
    return invalid(std::move(body), std::nullopt, situation::P2c_bad_id_type);
  }
  const auto params = body.find("params");
  if (params != body.end() && !params->is_object() && !params->is_array()) {
    return invalid(std::move(body), std::move(id), situation::P2e_params_not_structured);
  }
  message m;
  m.kind = id ? message_kind::request : message_kind::notification;
  m.id = std::move(id);
  m.method = method->get_ref<const std::string&>();
  if (params != body.end()) {
    // Moved out rather than copied: params can be large. body keeps the envelope members.
    m.params = std::move(*params);
    body.erase(params);
  }
  m.body = std::move(body);
  return m;
}

}  // namespace

message classify(json value) {
  if (value.is_array()) {
    return invalid(std::move(value), std::nullopt, situation::P2a_nested_batch_array);
  }
  if (!value.is_object()) {
    return invalid(std::move(value), std::nullopt, situation::P2_not_an_object);
  }
  const auto id_it = value.find("id");
  const bool id_present = id_it != value.end();
  std::optional<request_id> id = id_present ? read_id(*id_it) : std::nullopt;
  const auto version = value.find("jsonrpc");
  if (version == value.end() || !version->is_string() ||
      version->get_ref<const std::string&>() != "2.0") {
    return invalid(std::move(value), std::move(id), situation::P2b_bad_jsonrpc_version);
  }
  if (value.contains("method")) return classify_call(std::move(value), std::move(id), id_present);
  if (value.contains("result") || value.contains("error")) {
    return classify_response(std::move(value), std::move(id), id_present);
  }
  return invalid(std::move(value), std::move(id), situation::P2f_neither_call_nor_response);
}

}  // namespace mcpcxx::jsonrpc
