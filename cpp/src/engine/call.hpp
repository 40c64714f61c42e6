// detail::call: one request being served, with its era facts and the reply functions that
// decorate results for the era, log the outcome, and send exactly one reply.
// Thread-safety: a call is used by one thread at a time; reply functions are idempotent through
// in_flight::finished (a timeout may race the handler; whoever sets it first replies).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "mcpcxx/context.hpp"
#include "mcpcxx/jsonrpc.hpp"

#include "engine/engine.hpp"
#include "engine/session_state.hpp"

namespace mcpcxx::detail {

/// The request being served.
struct call {
  std::shared_ptr<session_state> session;
  std::shared_ptr<in_flight> slot;
  std::shared_ptr<frame_sink> reply_to;
  jsonrpc::request_id id;
  std::string method;
  json params;  ///< always an object
  bool modern = false;
  std::string version;  ///< the revision served
  json client_capabilities = json::object();
  json client_info = nullptr;
  std::optional<log_level> min_log_level;
  std::optional<json> progress_token;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::string tool;  ///< tools/call: the tool name, for the log

  engine& eng() const { return session->eng(); }

  /// Sends `result` (an object) decorated for the era; false when a reply was already sent.
  bool reply_result(json result, outcome o = outcome::ok, std::string_view category = "ok",
                    std::string_view reference = {});
  /// Sends an already-serialized, already-decorated result object.
  bool reply_raw(std::string_view serialized_result);
  /// Sends a JSON-RPC error.
  bool reply_error(const jsonrpc::error_object& error, std::string_view reference = {});
  /// Builds the handler context for this call.
  request_context make_context() const;
  /// Adds resultType and serverInfo _meta to a modern result.
  void decorate(json& result) const;

 private:
  bool claim();
  void log_outcome(outcome o, std::string_view category, std::string_view reference,
                   std::optional<int> code) const;
};

}  // namespace mcpcxx::detail
