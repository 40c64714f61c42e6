// HTTP/1.1 response serialization: status lines, fixed-length and chunked bodies, SSE events.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpcxx::http {

/// Response header fields in the order they are written.
using response_headers = std::vector<std::pair<std::string, std::string>>;

/// A complete response with a fixed-length body.
struct response {
  int status = 200;
  response_headers headers;
  std::string body;
  std::string content_type = "application/json";  ///< omitted when the body is empty
};

/// The reason phrase for `status` ("Not Found").
std::string_view reason_phrase(int status) noexcept;
/// Serializes `r` with Content-Length; adds "Connection: close" when !keep_alive.
std::string serialize(const response& r, bool keep_alive);
/// Serializes a streaming head with Transfer-Encoding: chunked.
std::string serialize_stream_head(int status, const response_headers& headers,
                                  std::string_view content_type);
/// Wraps `data` as one chunk (empty data is not allowed; use last_chunk()).
std::string chunk(std::string_view data);
/// The terminating zero-length chunk.
std::string_view last_chunk() noexcept;
/// One SSE event; `id` omitted when empty; multi-line data split into data: lines.
std::string sse_event(std::string_view id, std::string_view data);
/// A JSON error body {"jsonrpc":"2.0","id":null,"error":{code,message}}.
std::string error_body(int code, std::string_view message);
/// A plain error response carrying a JSON-RPC style body.
response error_response(int status, int code, std::string_view message);

}  // namespace mcpcxx::http
