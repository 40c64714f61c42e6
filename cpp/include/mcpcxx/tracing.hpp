// Tracing hook: a C++ application attaches its tracer (OpenTelemetry or any other) with
// server::set_tracer and gets one span per request, named and attributed after the OpenTelemetry
// semantic conventions for MCP (docs/observability.md). With no tracer attached the engine pays
// one null check per request.
// Thread-safety: start_span is called on the thread that received the request; span::end on
// whichever thread settles it (a worker, the deadline thread, a transport thread), exactly once.
// Different requests call into the tracer concurrently. The views in the info structs are valid
// only during the call.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mcpcxx {

/// A W3C Trace Context parent (https://www.w3.org/TR/trace-context/), as a client sent it.
struct trace_parent {
  std::string trace_id;    ///< 32 lower-case hex digits, not all zero
  std::string span_id;     ///< 16 lower-case hex digits, not all zero: the caller's span
  std::uint8_t flags = 0;  ///< trace-flags (bit 0: sampled)
  std::string tracestate;  ///< the tracestate value as received (may be empty)
};

/// Parses a traceparent value ("00-<trace-id>-<parent-id>-<flags>"; a higher version is read by
/// those four fields); nullopt when malformed, all-zero ids or version ff.
std::optional<trace_parent> parse_traceparent(std::string_view value,
                                              std::string_view tracestate = {});

/// What a request span starts with.
struct span_start_info {
  std::string_view name;              ///< "{mcp.method.name}" or "{mcp.method.name} {target}"
  std::string_view method;            ///< mcp.method.name, as the client sent it
  std::string_view target;            ///< gen_ai.tool.name / gen_ai.prompt.name; empty if none
  std::string_view request_id;        ///< jsonrpc.request.id
  std::string_view session_id;        ///< mcp.session.id; empty outside a legacy HTTP session
  std::string_view protocol_version;  ///< mcp.protocol.version; empty before initialize
  /// The remote parent from params._meta (traceparent/tracestate), else from the HTTP headers
  /// of the request; null when the client sent none (or a malformed one).
  const trace_parent* parent = nullptr;
};

/// How a request ended.
struct span_end_info {
  std::string_view outcome;     ///< "ok", "tool_error", "protocol_error" or "cancelled"
  std::string_view error_type;  ///< error.type: the JSON-RPC code ("-32602"), "tool_error",
                                ///< "cancelled", or empty on success
  std::string_view category;    ///< the mcpcxx category ("ok", "not_found", "protocol", ...)
  std::optional<std::int64_t> rpc_code;  ///< rpc.response.status_code of a JSON-RPC error
  std::string_view reference;            ///< the error reference of an unexpected failure
};

/// One request's span, owned by the engine until it ends.
class span {
 public:
  virtual ~span() = default;
  /// Ends the span with the request's outcome; called exactly once, never throws out.
  virtual void end(const span_end_info& info) noexcept = 0;
};

/// A tracer the engine calls once per request.
class tracer {
 public:
  virtual ~tracer() = default;
  /// Starts the span of one request; null means "do not trace this request". Exceptions are
  /// caught and logged (the request is served untraced).
  virtual std::unique_ptr<span> start_span(const span_start_info& info) = 0;
};

}  // namespace mcpcxx
