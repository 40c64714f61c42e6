// JSON-RPC 2.0 codec, independent of framing: parse and classify one message, build replies.
// Thread-safety: all functions are pure and may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "mcpcxx/json.hpp"

namespace mcpcxx::wire {
/// A row of the situation table (defined in the library's cpp/src/wire/situation.hpp; its stable
/// id, e.g. "P1b", is what frame_info::situation carries).
enum class situation : std::uint8_t;
}  // namespace mcpcxx::wire

namespace mcpcxx::jsonrpc {

/// A request id: a string or an integer (never null, bool, float or object).
using request_id = std::variant<std::int64_t, std::string>;

/// The id as JSON (number or string).
json id_to_json(const request_id& id);
/// A stable text key for maps and logs: integers as digits, strings JSON-quoted.
std::string id_key(const request_id& id);

/// What a parsed message is.
enum class message_kind { request, notification, response, batch, invalid };

/// Bounds enforced while parsing.
struct parse_limits {
  std::size_t max_message_bytes = std::size_t{4} * 1024 * 1024;  ///< default 4 MiB
  std::size_t max_depth = 64;                                    ///< nesting of arrays and objects
};

/// A JSON-RPC error to send: code, message and optional data.
struct error_object {
  int code = 0;
  std::string message;
  json data = nullptr;  ///< omitted from the wire when null
};

/// One parsed and classified message.
struct message {
  message_kind kind = message_kind::invalid;
  std::optional<request_id> id;  ///< requests and responses; also an invalid message's readable id
  std::string method;            ///< requests and notifications
  json params = nullptr;         ///< requests and notifications; null when absent
  json body;           ///< the whole parsed value (batch: the array; response: the object)
  error_object error;  ///< kind == invalid: the error to answer with (-32700 or -32600)
  /// kind == invalid: the situation-table row the codec hit, which rendered `error`; transports
  /// and the engine take the row (HTTP status, frame_info::situation) from here. nullopt
  /// otherwise.
  std::optional<wire::situation> refusal;
};

/// Parses and classifies `bytes`. Never throws, for any byte sequence: problems come back as
/// kind == invalid with the row in `refusal` (P1 bad JSON, P1a blank, P1b bad UTF-8, P1c an
/// unpaired surrogate escape, P1d a number beyond the double range, P2* a non-message, P3/P3a a
/// limit exceeded, P5a an empty batch), the error it renders and, unless the JSON itself is
/// broken, the top-level id when it can be read (docs/error-model.md).
message parse(std::string_view bytes, const parse_limits& limits = {});

/// Classifies an already-parsed value (one element of a batch, for example); a refused value
/// comes back as kind == invalid with its P2* row in `refusal`. Throws only on allocation failure.
message classify(json value);

/// Serializes {"jsonrpc":"2.0","id":ID,"result":RESULT}. The serializers never fail on content:
/// ill-formed UTF-8 in any string is written as U+FFFD, non-finite numbers as null.
std::string serialize_result(const request_id& id, const json& result);
/// Serializes an error response; `id` nullopt writes "id":null.
std::string serialize_error(const std::optional<request_id>& id, const error_object& error);
/// Serializes a notification {"jsonrpc":"2.0","method":M,"params":P}; params omitted when null.
std::string serialize_notification(std::string_view method, const json& params);

}  // namespace mcpcxx::jsonrpc
