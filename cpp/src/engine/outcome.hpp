// method_outcome: what a method handler returns instead of replying from inside itself. The
// exchange that owns the request turns it into the request's single reply (era decoration,
// frame, frame_info, log line, metrics).
//
// Kinds:
//   result          a result object; the exchange adds the era's decoration (resultType, _meta
//                   serverInfo) before sending it.
//   cached_page     an already-serialized, already-decorated result (cached list pages).
//   protocol_error  a JSON-RPC error: the situation row id ("P8", docs/error-model.md) plus the
//                   error object rendered for that row. Every protocol error carries its row, so
//                   transports (HTTP status) never re-read the frame.
//   tool_failure    a CallToolResult with isError:true, its row ("T1".."T7") and its category.
//   input_required  reserved for multi-round-trip requests (next issues); not produced yet.
//   task            reserved for task-augmented requests (next issues); not produced yet.
// The exchange refuses to send a reserved kind (it answers the internal-error row and logs it),
// so a handler cannot ship one before the engine implements it.
// Thread-safety: plain values.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::detail {

/// Outcome classes counted by the metrics and named in the request log.
enum class outcome_class { ok, tool_error, protocol_error, cancelled };

/// Which kind of reply a handler produced (see the file comment).
enum class outcome_kind { result, cached_page, protocol_error, tool_failure, input_required, task };

/// A handler's answer; build it with the named constructors.
struct method_outcome {
  outcome_kind kind = outcome_kind::result;
  /// kind result / tool_failure: the result object.
  json result;
  /// kind cached_page: the serialized result object.
  std::shared_ptr<const std::string> page;
  /// The situation row ("P8", "T3"); empty for plain results. Static storage (a literal).
  std::string_view situation;
  /// kind protocol_error: the error object rendered for `situation`.
  jsonrpc::error_object error;
  /// The metrics category ("ok", "invalid_arguments", "timeout", ...).
  std::string category = "ok";
  /// The reference id of an unexpected failure (logged with its detail); empty otherwise.
  std::string reference;
  /// How the metrics count it.
  outcome_class counted_as = outcome_class::ok;

  /// A result object to decorate for the era.
  static method_outcome ok(json result);
  /// A result the tool itself marked isError (row T6): sent as is, counted as a tool error.
  static method_outcome tool_reported_error(json result);
  /// An already-serialized, already-decorated result object.
  static method_outcome cached(std::shared_ptr<const std::string> page);
  /// A JSON-RPC error for row `situation`.
  static method_outcome protocol(std::string_view situation, jsonrpc::error_object error,
                                 std::string reference = {});
  /// An isError tool result for row `situation`, counted under `category`.
  static method_outcome tool_failed(std::string_view situation, json result, std::string category,
                                    std::string reference = {});
};

}  // namespace mcpcxx::detail
