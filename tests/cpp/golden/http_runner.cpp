// Running golden transcripts against a fixture serving Streamable HTTP.
#include "http_runner.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <chrono>
#include <csignal>
#include <map>
#include <netinet/in.h>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace mcpcxx::golden {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_header(const http_request& r, const std::string& name) {
  return std::any_of(r.head.begin() + 1, r.head.end(),
                     [&](const std::string& h) { return lower(h).rfind(name + ":", 0) == 0; });
}

std::string header_value(const http_request& r, const std::string& name) {
  for (std::size_t i = 1; i < r.head.size(); ++i) {
    if (lower(r.head[i]).rfind(name + ":", 0) != 0) continue;
    const std::string v = r.head[i].substr(name.size() + 1);
    return v.substr(std::min(v.size(), v.find_first_not_of(' ')));
  }
  return "";
}

// What later requests may name: {SESSION} (the last Mcp-Session-Id the server sent),
// {EVENT_ID} (the id of the first SSE event of the last X-Golden-Event-Id response) and
// {REQUEST_STATE} (the requestState of the last response body that carried one).
struct placeholders {
  std::string session;
  std::string event_id;
  std::string request_state;

  // Takes the requestState of `response`'s body (a message or SSE messages), if any.
  json capture(json response) {
    const json body = response.value("body", json());
    for (const json& m : body.is_array() ? body : json::array({body})) {
      if (m.is_object() && m.contains("result") && m["result"].is_object() &&
          m["result"].contains("requestState") && m["result"]["requestState"].is_string()) {
        request_state = m["result"]["requestState"].get<std::string>();
      }
    }
    return response;
  }
};

std::string substitute(std::string s, const placeholders& v) {
  for (const auto& [name, value] :
       {std::pair<std::string, const std::string&>{"{SESSION}", v.session},
        {"{EVENT_ID}", v.event_id},
        {"{REQUEST_STATE}", v.request_state}}) {
    for (std::size_t at; (at = s.find(name)) != std::string::npos;)
      s.replace(at, name.size(), value);
  }
  return s;
}

// Removes the runner directive `name` ("X-Golden-...: yes") from the head; true when present.
bool take_directive(http_request& r, const std::string& name) {
  const auto before = r.head.size();
  r.head.erase(
      std::remove_if(r.head.begin() + 1, r.head.end(),
                     [&](const std::string& h) { return lower(h).rfind(name + ":", 0) == 0; }),
      r.head.end());
  return r.head.size() != before;
}

// A request as sent, with what the runner does around it.
struct wire_request {
  std::string bytes;
  bool close_write = false;    ///< X-Golden-Close-Write: half-close after sending
  bool keep_open = false;      ///< X-Golden-Keep-Open: read the head only, keep the connection
  bool stop_server = false;    ///< X-Golden-Stop-Server: SIGTERM the fixture 2 s after sending
  bool stop_mid_body = false;  ///< X-Golden-Stop-Mid-Body: SIGTERM before the body's last byte
  bool detach = false;         ///< X-Golden-Detach: send, keep the connection, read nothing
  bool event_id = false;  ///< X-Golden-Event-Id: as keep_open, also read the first SSE event's id
};

// The bytes of a request and the directives around it; X-Golden-Head-Only sends the head lines
// alone (no blank line, no added headers).
wire_request wire_bytes(http_request r, int port, const placeholders& session) {
  const bool head_only = take_directive(r, "x-golden-head-only");
  wire_request w;
  w.close_write = take_directive(r, "x-golden-close-write");
  w.keep_open = take_directive(r, "x-golden-keep-open");
  w.stop_server = take_directive(r, "x-golden-stop-server");
  w.stop_mid_body = take_directive(r, "x-golden-stop-mid-body");
  w.detach = take_directive(r, "x-golden-detach");
  w.event_id = take_directive(r, "x-golden-event-id");
  w.keep_open = w.keep_open || w.event_id;
  for (auto& h : r.head) h = substitute(h, session);
  r.body = substitute(r.body, session);
  std::string out;
  if (head_only) {
    for (std::size_t i = 0; i < r.head.size(); ++i) out += (i ? "\r\n" : "") + r.head[i];
    w.bytes = out;
    return w;
  }
  if (has_header(r, "transfer-encoding")) {  // chunked bodies are written one line per CRLF
    std::string chunked;
    std::istringstream lines(r.body);
    for (std::string l; std::getline(lines, l);) chunked += l + "\r\n";
    r.body = chunked + "\r\n";
  }
  if (!has_header(r, "host")) r.head.push_back("Host: 127.0.0.1:" + std::to_string(port));
  if (!has_header(r, "content-length") && !has_header(r, "transfer-encoding"))
    r.head.push_back("Content-Length: " + std::to_string(r.body.size()));
  if (!has_header(r, "connection")) r.head.push_back("Connection: close");
  for (const auto& h : r.head) out += h + "\r\n";
  w.bytes = out + "\r\n" + r.body;
  return w;
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  ::close(fd);
  return -1;
}

bool wait_ready(int port) {
  for (int i = 0; i < 300; ++i) {  // 15 s: a Python fixture on a loaded machine starts slowly
    const int fd = connect_to(port);
    if (fd >= 0) {
      ::close(fd);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void send_all(int fd, std::string_view bytes) {
  for (std::size_t sent = 0; sent < bytes.size();) {
    const ssize_t k = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (k <= 0) return;
    sent += static_cast<std::size_t>(k);
  }
}

// Sends the request, or all of it but its last byte, then SIGTERMs the fixture (after 2 s: time
// for it to start earlier requests and read this one's head), then sends the last byte 500 ms
// later, inside the fixture's stop grace period (X-Golden-Stop-Mid-Body).
void send_request(int fd, const wire_request& w, pid_t server) {
  const std::string_view bytes = w.bytes;
  send_all(fd, w.stop_mid_body ? bytes.substr(0, bytes.size() - 1) : bytes);
  if (w.close_write) ::shutdown(fd, SHUT_WR);
  if (w.stop_server || w.stop_mid_body) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    ::kill(server, SIGTERM);
  }
  if (w.stop_mid_body) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    send_all(fd, bytes.substr(bytes.size() - 1));
  }
}

// The id of the first complete SSE event after the response head, or "" while there is none.
std::string first_event_id(const std::string& raw) {
  const auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) return "";
  // Chunk framing uses CRLF and events end with "\n\n"; the leading "\n" finds an unframed id.
  const std::string body = "\n" + raw.substr(head_end + 4);
  const auto event_end = body.find("\n\n");
  const auto id = body.find("\nid:");
  if (event_end == std::string::npos || id == std::string::npos || id > event_end) return "";
  std::string v = body.substr(id + 4, body.find('\n', id + 1) - id - 4);
  if (!v.empty() && v.front() == ' ') v.erase(0, 1);
  return v;
}

// Sends a request on a new connection and reads until the server closes it (30 s of silence at
// most: a stopping fixture answers only after its grace period), or only up to the end of the
// response head when the connection is to stay open (its fd is then appended to `open`), and
// with X-Golden-Event-Id up to its first event, whose id goes to `event_id`. A detached request's
// connection is kept open unread ("" returned: status 0).
std::string round_trip(int port, const wire_request& w, pid_t server, std::vector<int>& open,
                       std::string& event_id) {
  const int fd = connect_to(port);
  if (fd < 0) return "";
  send_request(fd, w, server);
  if (w.detach) {
    open.push_back(fd);
    return "";
  }
  std::string out;
  char buf[65536];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, 30000) > 0) {
    const ssize_t k = ::recv(fd, buf, sizeof buf, 0);
    if (k <= 0) break;
    out.append(buf, static_cast<std::size_t>(k));
    if (w.event_id) event_id = first_event_id(out);
    if (w.keep_open && out.find("\r\n\r\n") != std::string::npos &&
        (!w.event_id || !event_id.empty())) {
      open.push_back(fd);
      return out.substr(0, out.find("\r\n\r\n") + 4);
    }
  }
  ::close(fd);
  return out;
}

std::string dechunk(const std::string& body) {
  std::string out;
  std::size_t at = 0;
  while (at < body.size()) {
    const auto eol = body.find("\r\n", at);
    if (eol == std::string::npos) break;
    const std::size_t n = std::stoul(body.substr(at, eol - at), nullptr, 16);
    if (n == 0) break;
    out += body.substr(eol + 2, n);
    at = eol + 2 + n + 2;
  }
  return out;
}

json sse_messages(const std::string& body) {
  json out = json::array();
  std::istringstream ss(body);
  for (std::string line; std::getline(ss, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("data:", 0) == 0) out.push_back(json::parse(line.substr(5), nullptr, false));
  }
  return out;
}

// {"status", "body"?} of a raw response; `session` receives its Mcp-Session-Id, if any.
json parse_response(const std::string& raw, std::string& session) {
  const auto end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.1 ", 0) != 0 || end == std::string::npos) return {{"status", 0}};
  json r = {{"status", std::stoi(raw.substr(9, 3))}};
  std::map<std::string, std::string> headers;
  std::istringstream head(raw.substr(0, end));
  for (std::string line; std::getline(head, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto colon = line.find(':');
    if (colon != std::string::npos) headers[lower(line.substr(0, colon))] = line.substr(colon + 2);
  }
  if (headers.count("mcp-session-id")) session = headers["mcp-session-id"];
  std::string body = raw.substr(end + 4);
  if (lower(headers["transfer-encoding"]) == "chunked") body = dechunk(body);
  if (body.empty()) return r;
  if (headers["content-type"].rfind("text/event-stream", 0) == 0) {
    r["body"] = sse_messages(body);
  } else {
    const json j = json::parse(body, nullptr, false);
    r["body"] = j.is_discarded() ? json(body) : j;
  }
  return r;
}

}  // namespace

std::vector<http_request> http_requests(const transcript& t) {
  std::vector<http_request> out(1);
  bool in_body = false;
  for (const auto& line : t.client) {
    if (line == "===") {
      out.emplace_back();
      in_body = false;
    } else if (!in_body && line.empty()) {
      in_body = true;
    } else if (in_body) {
      out.back().body += (out.back().body.empty() ? "" : "\n") + line;
    } else {
      out.back().head.push_back(line);
    }
  }
  for (auto& r : out) {
    while (!r.body.empty() && r.body.back() == '\n') r.body.pop_back();
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const auto& r) { return r.head.empty(); }),
            out.end());
  return out;
}

std::vector<json> run_http(const command& cmd, const transcript& t, std::string& stderr_text,
                           int& exit_code) {
  const int port = free_port();
  command with_port = cmd;
  with_port.env.push_back("MCPCXX_EXAMPLE_HTTP_PORT=" + std::to_string(port));
  process p = spawn(with_port, t);
  std::vector<json> out;
  std::vector<int> open;
  bool stopped = false;  // a second SIGTERM could cut the fixture's graceful stop short
  if (wait_ready(port)) {
    placeholders v;
    for (const auto& r : http_requests(t)) {
      const wire_request w = wire_bytes(r, port, v);
      stopped = stopped || w.stop_server || w.stop_mid_body;
      out.push_back(
          v.capture(parse_response(round_trip(port, w, p.pid, open, v.event_id), v.session)));
    }
  }
  if (!stopped) {
    for (int fd : open) ::close(fd);
    ::kill(p.pid, SIGTERM);
  }
  // A stopping fixture keeps its connections until it exits: closing one first would cancel the
  // request on it instead of letting the stop finish or cut it off.
  finish(p, stderr_text, exit_code);
  if (stopped) {
    for (int fd : open) ::close(fd);
  }
  return out;
}

std::pair<std::string, std::string> http_request_facts(const http_request& r) {
  static const std::vector<std::string> known = {"2024-11-05", "2025-03-26", "2025-06-18",
                                                 "2025-11-25", "2026-07-28"};
  std::string rev = header_value(r, "mcp-protocol-version");
  if (std::find(known.begin(), known.end(), rev) == known.end()) rev = "2025-11-25";
  const json body = json::parse(r.body, nullptr, false);
  std::string method;
  if (body.is_object() && body.contains("method") && body["method"].is_string())
    method = body["method"];
  return {rev, method};
}

}  // namespace mcpcxx::golden
