// A small blocking HTTP/1.1 client on asio for the HTTP transport tests: raw bytes in, parsed
// responses out (Content-Length, chunked and SSE), with a receive timeout (poll) so nothing hangs.
#pragma once

#include <map>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <vector>

#include <asio.hpp>

#include "mcpcxx/json.hpp"

namespace mcpcxx::http_test {

/// One parsed response; header names lower-cased.
struct reply {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
  bool ok = false;  ///< false when the connection ended before a full response

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  json json_body() const { return json::parse(body, nullptr, false); }
  /// SSE data payloads of the body (text/event-stream), in order.
  std::vector<std::string> events() const;
  /// SSE event ids of the body, in order (events without id are skipped).
  std::vector<std::string> event_ids() const;
};

inline std::vector<std::string> split_events(const std::string& body, bool ids) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < body.size()) {
    std::size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) end = body.size();
    std::string block = body.substr(pos, end - pos);
    pos = end + 2;
    std::string data, id;
    bool has_data = false;
    std::size_t lp = 0;
    while (lp <= block.size()) {
      std::size_t nl = block.find('\n', lp);
      std::string line = block.substr(lp, nl == std::string::npos ? std::string::npos : nl - lp);
      lp = nl == std::string::npos ? block.size() + 1 : nl + 1;
      if (line.rfind("data: ", 0) == 0) {
        data += (has_data ? "\n" : "") + line.substr(6);
        has_data = true;
      } else if (line.rfind("id: ", 0) == 0) {
        id = line.substr(4);
      }
    }
    if (ids && !id.empty()) out.push_back(id);
    if (!ids && has_data && !data.empty()) out.push_back(data);
  }
  return out;
}

inline std::vector<std::string> reply::events() const { return split_events(body, false); }
inline std::vector<std::string> reply::event_ids() const { return split_events(body, true); }

/// One keep-alive connection to 127.0.0.1:port.
class client {
 public:
  explicit client(std::uint16_t port, int timeout_ms = 10000)
      : socket_(io_), timeout_ms_(timeout_ms) {
    socket_.connect({asio::ip::make_address("127.0.0.1"), port});
  }

  void send_raw(const std::string& bytes) { asio::write(socket_, asio::buffer(bytes)); }
  void shutdown_send() {
    asio::error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  }
  void close() {
    asio::error_code ec;
    socket_.close(ec);
  }

  /// Reads the status line and headers only (for streams read with next_chunk()).
  reply read_head() {
    reply r;
    std::string head;
    if (!read_until("\r\n\r\n", head)) return r;
    std::size_t eol = head.find("\r\n");
    std::string status_line = head.substr(0, eol);
    if (status_line.size() < 12) return r;
    r.status = std::stoi(status_line.substr(9, 3));
    std::size_t pos = eol + 2;
    while (pos < head.size()) {
      std::size_t e = head.find("\r\n", pos);
      if (e == std::string::npos || e == pos) break;
      std::string line = head.substr(pos, e - pos);
      pos = e + 2;
      std::size_t colon = line.find(':');
      std::string k = line.substr(0, colon);
      for (auto& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string v = line.substr(colon + 1);
      while (!v.empty() && v.front() == ' ') v.erase(0, 1);
      r.headers[k] = v;
    }
    r.ok = true;
    return r;
  }

  /// Next chunk of a chunked body; nullopt at the terminating chunk or on EOF/timeout.
  std::optional<std::string> next_chunk() {
    std::string size_line;
    if (!read_until("\r\n", size_line)) return std::nullopt;
    std::size_t n = std::stoul(size_line, nullptr, 16);
    std::string data;
    if (!read_exact(n + 2, data)) return std::nullopt;
    if (n == 0) return std::nullopt;
    return data.substr(0, n);
  }

  /// Reads one whole response (interim 1xx responses are skipped, as RFC 9110 §15.2 requires).
  reply read_reply() {
    reply r = read_head();
    while (r.ok && r.status >= 100 && r.status < 200) r = read_head();
    if (!r.ok) return r;
    r.ok = false;
    if (r.header("transfer-encoding") == "chunked") {
      while (auto c = next_chunk()) r.body += *c;
      r.ok = true;
    } else if (!r.header("content-length").empty()) {
      r.ok = read_exact(std::stoul(r.header("content-length")), r.body);
    }
    return r;
  }

  /// Appends up to `max` bytes that arrive within the timeout to `out`; false on EOF/timeout.
  bool read_some(std::size_t max, std::string& out) {
    while (buffer_.size() < max && fill_once()) {
    }
    if (buffer_.empty()) return false;
    std::size_t n = std::min(max, buffer_.size());
    out += buffer_.substr(0, n);
    buffer_.erase(0, n);
    return true;
  }

  /// True when the server closed the connection (EOF) rather than the read timing out.
  bool peer_closed() {
    char c;
    asio::error_code ec;
    if (!buffer_.empty()) return false;
    pollfd p{socket_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, timeout_ms_) <= 0) return false;
    socket_.read_some(asio::buffer(&c, 1), ec);
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

  /// POSTs `body` to `path` with extra header lines ("Name: value").
  reply post(const std::string& body, const std::vector<std::string>& headers,
             const std::string& path = "/mcp") {
    send_raw(request("POST", path, headers, body));
    return read_reply();
  }

  /// Serializes a request with Host 127.0.0.1 and Content-Length.
  static std::string request(const std::string& method, const std::string& path,
                             const std::vector<std::string>& headers, const std::string& body) {
    std::string out = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (const auto& h : headers) out += h + "\r\n";
    if (!body.empty() || method == "POST")
      out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    out += "\r\n" + body;
    return out;
  }

 private:
  asio::io_context io_;
  asio::ip::tcp::socket socket_;
  int timeout_ms_;
  std::string buffer_;

  bool fill() {
    // asio's blocking read polls again on EAGAIN, so SO_RCVTIMEO would not bound it: poll first.
    pollfd p{socket_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, timeout_ms_) <= 0) return false;
    char tmp[8192];
    asio::error_code ec;
    std::size_t n = socket_.read_some(asio::buffer(tmp), ec);
    if (ec || n == 0) return false;
    buffer_.append(tmp, n);
    return true;
  }
  // One read of whatever is available now (no wait beyond what is already queued).
  bool fill_once() {
    pollfd p{socket_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, buffer_.empty() ? timeout_ms_ : 0) <= 0) return false;
    return fill();
  }
  bool read_until(const std::string& delim, std::string& out) {
    std::size_t p;
    while ((p = buffer_.find(delim)) == std::string::npos) {
      if (!fill()) return false;
    }
    out = buffer_.substr(0, p + delim.size());
    buffer_.erase(0, p + delim.size());
    return true;
  }
  bool read_exact(std::size_t n, std::string& out) {
    while (buffer_.size() < n) {
      if (!fill()) return false;
    }
    out = buffer_.substr(0, n);
    buffer_.erase(0, n);
    return true;
  }
};

}  // namespace mcpcxx::http_test
