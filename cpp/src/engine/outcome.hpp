// method_outcome: what a method handler returns instead of replying from inside itself. The
// exchange that owns the request turns it into the request's single reply (era decoration,
// frame, frame_info, log line, metrics).
//
// Kinds:
//   result          a result object; the exchange adds the era's decoration (resultType, _meta
//                   serverInfo) before sending it.
//   cached_page     an already-serialized, already-decorated result (cached list pages).
//   protocol_error  a JSON-RPC error: a row of the situation table (cpp/src/wire) and its
//                   arguments, rendered by the table. Every protocol error carries its row id, so
//                   transports (HTTP status) never re-read the frame.
//   tool_failure    a CallToolResult with isError:true rendered from a T row, and its category.
// Rows the table does not have yet (P25, P26, T7: proposed by the engine) come from
// wire_errors_pending.hpp through the pending_* constructors, with their proposed id.
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

#include "wire/situation.hpp"

namespace mcpcxx::detail {

/// A row of the situation table (spelled out because detail::wire names the factory shims).
using situation = ::mcpcxx::wire::situation;

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
  std::string_view row_id;
  /// kind protocol_error: the error object rendered for `row_id`.
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
  /// A JSON-RPC error: row `row` of the situation table rendered with `args`.
  static method_outcome protocol(situation row, const json& args = json::object(),
                                 std::string reference = {});
  /// An isError tool result: T row `row` rendered with `args` (which hold "name", the tool).
  static method_outcome tool_failed(situation row, const json& args, bool has_output_schema,
                                    std::string category, std::string reference = {});
  /// A JSON-RPC error of a row the table does not have yet (`id` is the proposed row id).
  static method_outcome pending_protocol(std::string_view id, jsonrpc::error_object error);
  /// An isError tool result of a row the table does not have yet.
  static method_outcome pending_tool_failed(std::string_view id, json result, std::string category);
};

}  // namespace mcpcxx::detail
