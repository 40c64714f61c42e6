// parse(): limits first (size on the byte length, depth by a pre-scan), then nlohmann's parser,
// then classification. Deep input never reaches the parser, so it cannot exhaust the stack.
#include <string>
#include <utility>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/jsonrpc.hpp"

#include "jsonrpc/scan.hpp"

namespace mcpcxx::jsonrpc {

namespace {

message rejected(int code, std::string text) {
  message m;
  m.kind = message_kind::invalid;
  m.error = error_object{code, std::move(text), nullptr};
  return m;
}

/// Explains why nlohmann refused the bytes: bad UTF-8 or bad JSON syntax.
message unparseable(std::string_view bytes, std::size_t parser_byte) {
  if (const auto bad = detail::first_invalid_utf8(bytes)) {
    return rejected(error_code::parse_error,
                    "Message is not valid UTF-8 (ill-formed byte at offset " +
                        std::to_string(*bad) + "); encode every message as UTF-8.");
  }
  return rejected(error_code::parse_error, "Message is not valid JSON (syntax error near byte " +
                                               std::to_string(parser_byte) +
                                               "); send one complete JSON value.");
}

std::optional<message> check_limits(std::string_view bytes, const parse_limits& limits) {
  if (bytes.size() > limits.max_message_bytes) {
    return rejected(error_code::invalid_request, "Message of " + std::to_string(bytes.size()) +
                                                     " bytes exceeds the maximum size of " +
                                                     std::to_string(limits.max_message_bytes) +
                                                     " bytes; send smaller messages.");
  }
  if (detail::nesting_depth(bytes, limits.max_depth) > limits.max_depth) {
    return rejected(error_code::invalid_request,
                    "Message nests arrays or objects deeper than the maximum depth of " +
                        std::to_string(limits.max_depth) + "; flatten the params.");
  }
  return std::nullopt;
}

}  // namespace

message parse(std::string_view bytes, const parse_limits& limits) {
  if (auto over = check_limits(bytes, limits)) return std::move(*over);
  if (detail::is_blank(bytes)) {
    return rejected(error_code::parse_error,
                    "Message is empty; send one JSON-RPC message as a JSON object.");
  }
  json value;
  try {
    value = json::parse(bytes.begin(), bytes.end(), nullptr, true, false);
  } catch (const json::parse_error& e) {
    return unparseable(bytes, e.byte);
  }
  if (!value.is_array()) return classify(std::move(value));
  if (value.empty()) {
    message m = rejected(error_code::invalid_request,
                         "Batch is empty; send at least one message in the array.");
    m.body = std::move(value);
    return m;
  }
  message m;
  m.kind = message_kind::batch;
  m.body = std::move(value);
  return m;
}

}  // namespace mcpcxx::jsonrpc
