// HTTP/1.1 response serialization: status lines, fixed-length and chunked bodies, SSE events,
// and error responses rendered from the situation table.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"

#include "wire/situation.hpp"

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
/// A row of the situation table plus its arguments: how the transport reports a failure (only
/// the table composes error text).
struct problem {
  mcpcxx::wire::situation which;
  json args = json::object();
};

/// The error response for `p`: a JSON-RPC error body rendered by the table (id null unless
/// given) and the row's HTTP status for the era (`modern`: a 2026-07-28 request).
response row_response(const problem& p, const std::optional<jsonrpc::request_id>& id = std::nullopt,
                      bool modern = false);

}  // namespace mcpcxx::http
