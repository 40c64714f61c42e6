#include "transport/http/wire.hpp"

#include <cstdio>

namespace mcpcxx::http {

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

namespace {

void append_head(std::string& out, int status, const response_headers& headers) {
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += reason_phrase(status);
  out += "\r\n";
  for (const auto& [k, v] : headers) {
    out += k;
    out += ": ";
    out += v;
    out += "\r\n";
  }
}

}  // namespace

std::string serialize(const response& r, bool keep_alive) {
  std::string out;
  out.reserve(160 + r.body.size());
  append_head(out, r.status, r.headers);
  if (!r.body.empty()) {
    out += "Content-Type: ";
    out += r.content_type;
    out += "\r\n";
  }
  out += "Content-Length: ";
  out += std::to_string(r.body.size());
  out += keep_alive ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n";
  out += r.body;
  return out;
}

std::string serialize_stream_head(int status, const response_headers& headers,
                                  std::string_view content_type) {
  std::string out;
  append_head(out, status, headers);
  out += "Content-Type: ";
  out += content_type;
  out +=
      "\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  return out;
}

std::string chunk(std::string_view data) {
  char size[20];
  int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out;
  out.reserve(static_cast<std::size_t>(n) + data.size() + 2);
  out.append(size, static_cast<std::size_t>(n));
  out += data;
  out += "\r\n";
  return out;
}

std::string_view last_chunk() noexcept { return "0\r\n\r\n"; }

std::string sse_event(std::string_view id, std::string_view data) {
  std::string out;
  out.reserve(data.size() + id.size() + 32);
  if (!id.empty()) {
    out += "id: ";
    out += id;
    out += '\n';
  }
  out += "event: message\n";
  std::size_t start = 0;
  do {
    std::size_t nl = data.find('\n', start);
    std::string_view line = data.substr(start, nl == std::string_view::npos ? nl : nl - start);
    out += "data: ";
    out += line;
    out += '\n';
    start = nl == std::string_view::npos ? data.size() + 1 : nl + 1;
  } while (start <= data.size());
  out += '\n';
  return out;
}

response row_response(const problem& p, const std::optional<jsonrpc::request_id>& id, bool modern) {
  response r;
  r.status = mcpcxx::wire::http_status(p.which, modern);
  r.body = jsonrpc::serialize_error(id, mcpcxx::wire::render(p.which, p.args));
  return r;
}

}  // namespace mcpcxx::http
