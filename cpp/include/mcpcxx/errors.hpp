// Exception types a handler throws to pick its wire shape: tool_error -> isError result,
// protocol_error -> JSON-RPC error, resource_not_found -> the era's not-found error.
// Anything else thrown by a handler becomes a sanitized isError result with a reference id.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx {

/// What kind of failure a tool error reports; serialized in snake_case.
enum class error_category {
  invalid_arguments,
  not_found,
  permission_denied,
  conflict,
  precondition_failed,
  rate_limited,
  unavailable,
  timeout,
  internal,  // keep last: tests enumerate the categories up to it
};

/// Whether the failed operation changed anything; serialized in snake_case.
enum class error_effect { not_applied, unknown, partial, applied };

/// The wire name of a category ("invalid_arguments", ...).
std::string_view to_string(error_category c) noexcept;
/// The wire name of an effect ("not_applied", ...).
std::string_view to_string(error_effect e) noexcept;
/// Parses a category wire name; nullopt when unknown.
std::optional<error_category> parse_error_category(std::string_view s) noexcept;
/// Parses an effect wire name; nullopt when unknown.
std::optional<error_effect> parse_error_effect(std::string_view s) noexcept;

/// Named parts of the founding document's message template.
struct tool_error_parts {
  std::string operation;       ///< "Issue lookup"
  std::string resource;        ///< "issue ENG-42"
  std::string reason;          ///< "it was not found"
  std::string next_step;       ///< "Verify the key or list recent issues first"
  std::string retry_guidance;  ///< "Do not retry unchanged"
};

/// Composes "<operation> failed: <resource>. <reason>. <next step>. <retry guidance>." skipping
/// empty parts and never doubling the final period.
std::string compose_tool_error_message(const tool_error_parts& parts);

/// The JSON-RPC error object {code, message[, data]} that row `row` of the situation table (a
/// P row id such as "P63", docs/error-model.md) renders with `args`. For code outside the engine
/// that must answer a request itself (the `mcpcxx dev` proxy). Throws std::invalid_argument for
/// an unknown id or a row that is not a JSON-RPC error.
json render_error_row(std::string_view row, const json& args = json::object());

/// An expected tool failure; becomes a result with isError:true and exactly `message` as text.
class tool_error : public std::runtime_error {
 public:
  /// Creates an error whose wire text is exactly `message`.
  explicit tool_error(std::string message, error_category category = error_category::internal,
                      bool retryable = false, std::optional<std::string> resource = std::nullopt,
                      error_effect effect = error_effect::not_applied,
                      std::optional<double> retry_after_seconds = std::nullopt);

  /// The wire text.
  const std::string& message() const noexcept { return message_; }
  error_category category() const noexcept { return category_; }
  bool retryable() const noexcept { return retryable_; }
  const std::optional<std::string>& resource() const noexcept { return resource_; }
  error_effect effect() const noexcept { return effect_; }
  const std::optional<double>& retry_after_seconds() const noexcept { return retry_after_; }

  /// {"category","retryable","effect", "resource"?, "retryAfterSeconds"?} as sent in
  /// structuredContent (when allowed) and always in result _meta["mcpcxx/error"].
  json details() const;

 private:
  std::string message_;
  error_category category_;
  bool retryable_;
  std::optional<std::string> resource_;
  error_effect effect_;
  std::optional<double> retry_after_;
};

/// An explicit JSON-RPC error chosen by the handler, passed through unchanged.
class protocol_error : public std::runtime_error {
 public:
  /// Throws std::invalid_argument when `code` is reserved for the specifications
  /// (error_code::is_reserved_for_spec).
  protocol_error(int code, std::string message, json data = nullptr);

  int code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  const json& data() const noexcept { return data_; }

 private:
  int code_;
  std::string message_;
  json data_;
};

/// An unexpected failure from a foreign runtime (e.g. a Python exception): `summary`
/// ("ValueError: boom") reaches the wire only with expose_exception_details; `detail` (a
/// traceback) only ever goes to the server log, under the same reference id.
class unexpected_error : public std::runtime_error {
 public:
  unexpected_error(std::string summary, std::string detail);
  const std::string& summary() const noexcept { return summary_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string summary_;
  std::string detail_;
};

/// Thrown by a tool handler whose own conversion of its arguments failed after the inputSchema
/// accepted them (a language runtime's validator: a pydantic field validator, a constrained
/// type); answered as row T1 like a schema failure. `violations` is a non-empty array of objects
/// {"instanceLocation": JSON pointer, "keyword": the failing check, "message": text} (a
/// "keywordLocation" string may be added) that never hold argument values; std::invalid_argument
/// otherwise.
class invalid_arguments_error : public std::runtime_error {
 public:
  explicit invalid_arguments_error(json violations);
  const json& violations() const noexcept { return violations_; }

 private:
  json violations_;
};

/// Thrown (via request_context::require_client_capability) when a request needs a client
/// capability the client did not declare; becomes -32021 with data.requiredCapabilities.
class missing_client_capability : public std::runtime_error {
 public:
  explicit missing_client_capability(json required);
  const json& required() const noexcept { return required_; }

 private:
  json required_;
};

/// Thrown by resource readers for a URI they do not have; the engine answers -32002 (legacy) or
/// -32602 (modern) with data {"uri": URI}.
class resource_not_found : public std::runtime_error {
 public:
  explicit resource_not_found(std::string uri);
  const std::string& uri() const noexcept { return uri_; }

 private:
  std::string uri_;
};

/// Thrown by request_context::elicit/elicit_url/sample/list_roots when the client did not declare
/// the capability the request needs (nothing was sent); uncaught, maps like
/// missing_client_capability (legacy P25, modern P13) with data.requiredCapabilities.
class client_capability_error : public missing_client_capability {
 public:
  /// `method` is the client request ("elicitation/create"); `capability` the dotted path the
  /// client lacks ("elicitation", "elicitation.url", "sampling.tools", "roots").
  client_capability_error(std::string method, std::string capability);
  const std::string& method() const noexcept { return method_; }
  const std::string& capability() const noexcept { return capability_; }

 private:
  std::string method_;
  std::string capability_;
};

/// Thrown by a request_context ask method when the client did not answer within the timeout
/// (server_options::client_request_timeout); notifications/cancelled was sent to the client.
class client_request_timeout : public std::runtime_error {
 public:
  client_request_timeout(std::string method, std::chrono::milliseconds timeout);
  const std::string& method() const noexcept { return method_; }
  std::chrono::milliseconds timeout() const noexcept { return timeout_; }

 private:
  std::string method_;
  std::chrono::milliseconds timeout_;
};

/// Thrown by a request_context ask method when the client answered with a JSON-RPC error; the
/// client's code, message and data are kept as sent.
class client_request_error : public std::runtime_error {
 public:
  client_request_error(std::string method, int code, std::string message, json data = nullptr);
  const std::string& method() const noexcept { return method_; }
  int code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  const json& data() const noexcept { return data_; }

 private:
  std::string method_;
  int code_;
  std::string message_;
  json data_;
};

/// Thrown by a request_context ask method when the client's result does not have the shape the
/// request demands (e.g. accepted elicitation content that does not match requestedSchema);
/// `reason` says what was wrong.
class client_answer_invalid : public std::runtime_error {
 public:
  client_answer_invalid(std::string method, std::string reason);
  const std::string& method() const noexcept { return method_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string method_;
  std::string reason_;
};

/// Thrown by a request_context ask method when the request that asked was cancelled while it
/// waited (client cancel, deadline, shutdown); notifications/cancelled was sent to the client.
/// The engine sends no further reply for the cancelled request; let it propagate.
class request_cancelled : public std::runtime_error {
 public:
  explicit request_cancelled(std::string method);
  const std::string& method() const noexcept { return method_; }

 private:
  std::string method_;
};

/// Thrown by a tool that cannot go on until the user completes URL-mode elicitation(s)
/// (2025-11-25+); the request gets -32042 (URLElicitationRequiredError) with data.elicitations.
class url_elicitation_required : public std::runtime_error {
 public:
  /// `elicitations`: a non-empty array of URL-mode ElicitRequestURLParams objects ({"mode":
  /// "url", "elicitationId", "url", "message"}); std::invalid_argument otherwise.
  explicit url_elicitation_required(json elicitations);
  const json& elicitations() const noexcept { return elicitations_; }

 private:
  json elicitations_;
};

}  // namespace mcpcxx
