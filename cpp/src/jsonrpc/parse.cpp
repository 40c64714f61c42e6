// The JSON-RPC 2.0 codec's input: bytes to a classified message. The reply builders are in
// serialize.cpp, a unit of their own: the parser's hot loop is inlined best without them.
//
// parse(): the size limit first (on the byte length), then nlohmann's parser driven through a
// SAX adapter that counts the nesting depth (stopping past the limit) and records failures
// instead of throwing, then classification. nlohmann's parser and DOM builder keep their own
// stacks on the heap, and the adapter stops at the depth limit, so deep input cannot exhaust
// anything. When the bytes do not parse, a pre-scan decides whether they were too deep anyway
// (too deep wins over bad syntax, as when the pre-scan ran first). Every outcome is a row of the
// situation table (P1-P3); see docs/error-model.md "Codec decisions" for when the id is echoed.
//
// classify(): classification of one parsed JSON value as a JSON-RPC 2.0 request, notification or
// response, plus the request-id helpers.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "mcpcxx/jsonrpc.hpp"

#include "jsonrpc/scan.hpp"
#include "wire/situation.hpp"

// ---- parse ----

namespace mcpcxx::jsonrpc {

namespace {

using wire::situation;

message rejected(situation s, const json& args, std::optional<request_id> id = std::nullopt) {
  message m;
  m.kind = message_kind::invalid;
  m.id = std::move(id);
  m.error = wire::render(s, args);
  m.refusal = s;
  return m;
}

// nlohmann's DOM builder with exceptions off: a refusal is recorded (exception id, byte position,
// offending token) and stops the parse. out_of_range 406 (a number beyond double) arrives here too.
// A container past `max_depth` stops it as well (too_deep); counting here saves a pass over the
// bytes on every message (sax_parse calls these statically, so hiding the base's is enough).
class recording_sax : public nlohmann::detail::json_sax_dom_parser<json> {
  using base = nlohmann::detail::json_sax_dom_parser<json>;

 public:
  recording_sax(json& out, std::size_t max_depth)
      : json_sax_dom_parser(out, false), max_depth_(max_depth) {}
  bool start_object(std::size_t n) { return deeper() && base::start_object(n); }
  bool start_array(std::size_t n) { return deeper() && base::start_array(n); }
  bool end_object() {
    --depth_;
    return base::end_object();
  }
  bool end_array() {
    --depth_;
    return base::end_array();
  }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) {
    failure_id = ex.id;
    failure_byte = position;
    failure_token = last_token;
    return false;
  }
  int failure_id = 0;
  std::size_t failure_byte = 0;
  std::string failure_token;
  bool too_deep = false;

 private:
  bool deeper() {
    if (++depth_ <= max_depth_) return true;
    too_deep = true;
    return false;
  }
  std::size_t max_depth_;
  std::size_t depth_ = 0;
};

std::string shortened(const std::string& token) {
  constexpr std::size_t k_max = 40;
  return token.size() <= k_max ? token : token.substr(0, k_max) + "...";
}

// Explains why nlohmann refused the bytes: a number out of range, bad UTF-8, an unpaired
// surrogate escape, or plain bad syntax (the only case whose id is never echoed).
message unparseable(std::string_view bytes, const recording_sax& sax) {
  constexpr int k_number_overflow = 406;
  if (sax.failure_id == k_number_overflow) {
    // nlohmann reports the position after the number; the row names where it starts.
    const std::size_t length = sax.failure_token.size();
    const std::size_t start = sax.failure_byte >= length ? sax.failure_byte - length : 0;
    return rejected(situation::P1d_number_out_of_range,
                    {{"number", shortened(sax.failure_token)}, {"offset", start}},
                    detail::tolerant_top_level_id(bytes));
  }
  if (const auto bad = detail::first_invalid_utf8(bytes)) {
    return rejected(situation::P1b_invalid_utf8, {{"offset", *bad}},
                    detail::tolerant_top_level_id(bytes));
  }
  if (const auto lone = detail::first_lone_surrogate(bytes)) {
    return rejected(situation::P1c_lone_surrogate, {{"offset", *lone}},
                    detail::tolerant_top_level_id(bytes));
  }
  return rejected(situation::P1_not_json, {{"byte", sax.failure_byte}});
}

message too_deep(std::string_view bytes, const parse_limits& limits) {
  return rejected(situation::P3a_message_too_deep, {{"limit", limits.max_depth}},
                  detail::tolerant_top_level_id(bytes));
}

message parse_checked(std::string_view bytes, const parse_limits& limits) {
  if (bytes.size() > limits.max_message_bytes) {
    return rejected(situation::P3_message_too_large,
                    {{"size", bytes.size()}, {"limit", limits.max_message_bytes}},
                    detail::tolerant_top_level_id(bytes));
  }
  if (detail::is_blank(bytes)) return rejected(situation::P1a_empty_message, json::object());
  json value;
  recording_sax sax(value, limits.max_depth);
  if (!json::sax_parse(bytes.begin(), bytes.end(), &sax) || sax.failure_id != 0) {
    if (sax.too_deep || detail::nesting_depth(bytes, limits.max_depth) > limits.max_depth) {
      return too_deep(bytes, limits);
    }
    return unparseable(bytes, sax);
  }
  if (!value.is_array()) return classify(std::move(value));
  if (value.empty()) {
    message m = rejected(situation::P5a_empty_batch, json::object());
    m.body = std::move(value);
    return m;
  }
  message m;
  m.kind = message_kind::batch;
  m.body = std::move(value);
  return m;
}

}  // namespace

message parse(std::string_view bytes, const parse_limits& limits) {
  // Every byte sequence gets a value; only allocation failure (std::bad_alloc) can propagate.
  return parse_checked(bytes, limits);
}

}  // namespace mcpcxx::jsonrpc

// ---- classify ----

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
