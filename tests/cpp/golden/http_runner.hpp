// Golden transcripts over Streamable HTTP ("transport: http" in the meta section), for the rows
// only HTTP can show (H rows, an empty POST body). The client section holds raw requests
// separated by lines "===": head lines, a blank line, then the body. The runner adds
// "Host: 127.0.0.1:PORT", "Content-Length" and "Connection: close" unless the head has them, and
// replaces "{SESSION}" with the last Mcp-Session-Id the server sent (and "{REQUEST_STATE}" with
// the last requestState a response body carried); a chunked body is written
// with CRLF line ends. Runner directives, removed before sending: "X-Golden-Head-Only: yes" sends
// the head lines alone (no blank line, nothing added), "X-Golden-Close-Write: yes" half-closes the
// connection after sending (truncated requests), "X-Golden-Keep-Open: yes" reads only the
// response head and keeps the connection open to the end (an SSE stream), and
// "X-Golden-Stop-Server: yes" sends SIGTERM to the fixture 2 s after sending the request,
// "X-Golden-Stop-Mid-Body: yes" sends all but the body's last byte, SIGTERMs the fixture 2 s later
// and sends the last byte 500 ms after that (a request completing while the server stops), and
// "X-Golden-Detach: yes" sends the request and moves on without reading (its connection stays
// open to the end; its line is "0"), and "X-Golden-Event-Id: yes" works as Keep-Open but reads
// up to the first SSE event too, whose id later requests name as "{EVENT_ID}" (Last-Event-ID). Each
// request goes on its own connection; the expected server section has one line per request:
// "STATUS" or "STATUS BODY" (an SSE body is the array of its data messages). Thread-safety: none
// needed; each call runs one fixture process.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "transcript.hpp"

namespace mcpcxx::golden {

/// One HTTP request of a transcript.
struct http_request {
  std::vector<std::string> head;  ///< request line and header lines
  std::string body;
};

/// The requests of an http transcript's client section.
std::vector<http_request> http_requests(const transcript& t);

/// Starts `cmd` with MCPCXX_EXAMPLE_HTTP_PORT set to a free loopback port, sends each request,
/// then stops the fixture with SIGTERM. Returns {"status", "body"?} per request; a request that
/// got no response yields {"status": 0}.
std::vector<json> run_http(const command& cmd, const transcript& t, std::string& stderr_text,
                           int& exit_code);

/// The MCP revision (MCP-Protocol-Version header, else "2025-11-25") and the JSON-RPC method of a
/// request, to pick the schema its response body is checked against.
std::pair<std::string, std::string> http_request_facts(const http_request& r);

}  // namespace mcpcxx::golden
