// A keep-alive HTTP/1.1 load driver for MCP tools/call: N connections, each on its own thread,
// one request in flight per connection, for a fixed duration after a warm-up. Prints one JSON
// line with throughput and latency percentiles. Built by bench/http_load/run.sh.
// Usage: load --port P [--host H] [--path /mcp] [--connections N] [--seconds S] [--warmup S]
//             [--era modern|legacy] [--tool NAME] [--case ok|tool_error|invalid_args|unexpected|
//             unknown_tool]
// --case picks the call and what counts as its correct reply (the error paths of issue 11): ok
// calls echo; tool_error calls echo_fail (a tool_error result); invalid_args calls echo with a
// number for text (T1); unexpected calls echo_explode (T3, sanitized); unknown_tool calls a name
// the server does not have (P17, a JSON-RPC error). The fixture servers define these tools.
#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct config {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string path = "/mcp";
  int connections = 1;
  double seconds = 5;
  double warmup = 1;
  bool modern = true;
  std::string tool = "echo";
  std::string arguments = R"({"text":"hello world"})";
  std::string expect = "hello world";  ///< a reply is correct when it contains this
  std::string kind = "\"result\"";     ///< ... and this ("result" or "error")
};

// The call and the expected reply of each --case.
void apply_case(config& c, const std::string& name) {
  if (name == "ok") return;
  if (name == "tool_error") {
    c.tool = "echo_fail";
    c.expect = R"("isError":true)";
  } else if (name == "invalid_args") {
    c.arguments = R"({"text":5})";
    c.expect = R"("isError":true)";
  } else if (name == "unexpected") {
    c.tool = "echo_explode";
    c.expect = "ERR-";
  } else if (name == "unknown_tool") {
    c.tool = "no_such_tool";
    c.expect = "-32602";
    c.kind = "\"error\"";
  } else {
    std::fprintf(stderr, "load: unknown --case %s\n", name.c_str());
    std::exit(2);
  }
}

struct worker_result {
  std::vector<double> latencies_us;
  long errors = 0;
};

class connection {
 public:
  explicit connection(const config& c) : cfg_(c) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(c.port));
    ::inet_pton(AF_INET, c.host.c_str(), &a.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      std::perror("connect");
      std::exit(1);
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~connection() { ::close(fd_); }

  // Sends one POST and reads the response; returns the HTTP status (0 on failure).
  int post(const std::string& body, const std::string& extra_headers, std::string& reply_body,
           std::string* session_id = nullptr) {
    std::string req =
        "POST " + cfg_.path + " HTTP/1.1\r\nHost: " + cfg_.host + ":" + std::to_string(cfg_.port) +
        "\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n" +
        extra_headers + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    if (!send_all(req)) return 0;
    return read_response(reply_body, session_id);
  }

 private:
  const config& cfg_;
  int fd_ = -1;
  std::string buf_;

  bool send_all(const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }
  bool fill() {
    char tmp[65536];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<std::size_t>(n));
    return true;
  }
  static std::string header_value(const std::string& head, const char* lower_name) {
    std::string lower = head;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string key = std::string("\r\n") + lower_name + ":";
    auto p = lower.find(key);
    if (p == std::string::npos) return {};
    auto start = p + key.size();
    auto end = head.find("\r\n", start);
    std::string v = head.substr(start, end - start);
    while (!v.empty() && v.front() == ' ') v.erase(0, 1);
    return v;
  }
  int read_response(std::string& body, std::string* session_id) {
    std::size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return 0;
    }
    std::string head = buf_.substr(0, end + 2);
    buf_.erase(0, end + 4);
    int status = std::atoi(head.c_str() + 9);
    if (session_id) *session_id = header_value(head, "mcp-session-id");
    body.clear();
    std::string len = header_value(head, "content-length");
    if (!len.empty()) {
      std::size_t n = std::stoul(len);
      while (buf_.size() < n) {
        if (!fill()) return 0;
      }
      body = buf_.substr(0, n);
      buf_.erase(0, n);
      return status;
    }
    for (;;) {  // chunked (an SSE response)
      std::size_t eol;
      while ((eol = buf_.find("\r\n")) == std::string::npos) {
        if (!fill()) return 0;
      }
      std::size_t n = std::stoul(buf_.substr(0, eol), nullptr, 16);
      while (buf_.size() < eol + 2 + n + 2) {
        if (!fill()) return 0;
      }
      body += buf_.substr(eol + 2, n);
      buf_.erase(0, eol + 2 + n + 2);
      if (n == 0) return status;
    }
  }
};

std::string modern_meta() {
  return R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
         R"("io.modelcontextprotocol/clientCapabilities":{}})";
}

std::string call_body(const config& c, long id) {
  std::string params = R"({"name":")" + c.tool + R"(","arguments":)" + c.arguments;
  if (c.modern) params += "," + modern_meta();
  params += "}";
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":)" +
         params + "}";
}

// Legacy handshake; returns the headers every later request carries.
std::string legacy_handshake(connection& conn) {
  std::string body, sid;
  int st = conn.post(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":)"
                     R"({"protocolVersion":"2025-11-25","capabilities":{},)"
                     R"("clientInfo":{"name":"mcpcxx-load","version":"1"}}})",
                     "", body, &sid);
  if (st != 200) {
    std::fprintf(stderr, "initialize failed: HTTP %d %s\n", st, body.c_str());
    std::exit(1);
  }
  std::string h = (sid.empty() ? "" : "Mcp-Session-Id: " + sid + "\r\n") +
                  "MCP-Protocol-Version: 2025-11-25\r\n";
  conn.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", h, body);
  return h;
}

void run_worker(const config& c, clock_type::time_point measure_from, clock_type::time_point until,
                worker_result& out) {
  connection conn(c);
  std::string headers = c.modern ? "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
                                   "Mcp-Name: " +
                                       c.tool + "\r\n"
                                 : legacy_handshake(conn);
  std::string body;
  for (long id = 1;; ++id) {
    auto t0 = clock_type::now();
    if (t0 >= until) break;
    int st = conn.post(call_body(c, id), headers, body);
    auto t1 = clock_type::now();
    bool ok = st == 200 && body.find(c.kind) != std::string::npos &&
              body.find(c.expect) != std::string::npos;
    if (st == 0) {
      ++out.errors;
      break;
    }
    if (t0 >= measure_from) {
      if (!ok) ++out.errors;
      out.latencies_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::size_t k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

config parse_args(int argc, char** argv) {
  config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--host")
      c.host = v;
    else if (k == "--port")
      c.port = std::atoi(v.c_str());
    else if (k == "--path")
      c.path = v;
    else if (k == "--connections")
      c.connections = std::atoi(v.c_str());
    else if (k == "--seconds")
      c.seconds = std::atof(v.c_str());
    else if (k == "--warmup")
      c.warmup = std::atof(v.c_str());
    else if (k == "--era")
      c.modern = v == "modern";
    else if (k == "--tool")
      c.tool = v;
    else if (k == "--case")
      apply_case(c, v);
  }
  if (c.port == 0 || c.connections < 1) {
    std::fprintf(stderr,
                 "usage: load --port P [--connections N] [--seconds S] [--era modern|legacy]\n");
    std::exit(2);
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  config c = parse_args(argc, argv);
  auto start = clock_type::now();
  auto measure_from = start + std::chrono::duration_cast<clock_type::duration>(
                                  std::chrono::duration<double>(c.warmup));
  auto until = measure_from + std::chrono::duration_cast<clock_type::duration>(
                                  std::chrono::duration<double>(c.seconds));
  std::vector<worker_result> results(static_cast<std::size_t>(c.connections));
  std::vector<std::thread> threads;
  threads.reserve(results.size());
  for (int i = 0; i < c.connections; ++i) {
    threads.emplace_back(run_worker, std::cref(c), measure_from, until,
                         std::ref(results[static_cast<std::size_t>(i)]));
  }
  for (auto& t : threads) t.join();
  std::vector<double> all;
  long errors = 0;
  for (auto& r : results) {
    all.insert(all.end(), r.latencies_us.begin(), r.latencies_us.end());
    errors += r.errors;
  }
  double rps = static_cast<double>(all.size()) / c.seconds;
  double p50 = percentile(all, 0.50), p90 = percentile(all, 0.90), p99 = percentile(all, 0.99);
  std::printf(
      "{\"connections\":%d,\"era\":\"%s\",\"requests\":%zu,\"errors\":%ld,\"rps\":%.0f,"
      "\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f}\n",
      c.connections, c.modern ? "modern" : "legacy", all.size(), errors, rps, p50 / 1000,
      p90 / 1000, p99 / 1000);
  return errors == 0 ? 0 : 1;
}
