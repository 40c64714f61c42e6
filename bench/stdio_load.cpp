// stdio load driver: spawns an MCP server, does the legacy handshake (2025-11-25), then sends
// --calls tools/call requests of one case with at most --window in flight and prints one JSON
// line {"case","window","calls","seconds","calls_per_s","server_cpu_us_per_call",
// "server_switches_per_call"}. The server's
// CPU time per call (all its threads, /proc/PID/task/*/schedstat, from after the handshake to the
// last reply, so an interpreter's start-up is not counted) stays comparable on a loaded machine,
// where wall-clock throughput swings with the neighbours. Every
// reply is checked for the case's marker (a result, isError:true, or a JSON-RPC error), so a wrong
// path cannot look fast.
//
//   mcpcxx_stdio_load --case echo --calls 20000 --window 1 -- SERVER [ARGS...]
//   mcpcxx_stdio_load --floor          # the floor server: parse + build + dump per line
//
// Cases (the tools of examples/cpp/example_server.cpp and examples/python/fixture_server.py):
// echo (success), lookup_ok (lookup_issue of a known key: the success twin of tool_error, with
// the same pattern-checked argument), tool_error (lookup_issue of an unknown key), invalid_args
// (echo with a number), unexpected (explode), unknown_tool. Not part of the tests;
// bench/run_stdio.py drives it.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

struct load_case {
  std::string_view name;
  std::string_view params;  // the tools/call params
  std::string_view marker;  // every reply must contain it
};

constexpr load_case k_cases[] = {
    {"echo", R"({"name":"echo","arguments":{"text":"hello world"}})", R"("result")"},
    {"lookup_ok", R"({"name":"lookup_issue","arguments":{"key":"ENG-1"}})", R"("result")"},
    {"tool_error", R"({"name":"lookup_issue","arguments":{"key":"ENG-9"}})", R"("isError":true)"},
    {"invalid_args", R"({"name":"echo","arguments":{"text":5}})", R"("isError":true)"},
    {"unexpected", R"({"name":"explode","arguments":{}})", R"("isError":true)"},
    {"unknown_tool", R"({"name":"nope","arguments":{}})", R"("error")"},
};

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(2);
}

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n <= 0) die("write to server");
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Reads complete lines from a pipe; hands each to `on_line`.
class line_source {
 public:
  explicit line_source(int fd) : fd_(fd) {}
  template <class F>
  bool read_some(F&& on_line) {
    char chunk[65536];
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n <= 0) return false;
    buf_.append(chunk, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = buf_.find('\n', start)) != std::string::npos; start = nl + 1) {
      on_line(std::string_view(buf_).substr(start, nl - start));
    }
    buf_.erase(0, start);
    return true;
  }

 private:
  int fd_;
  std::string buf_;
};

struct child {
  pid_t pid;
  int to;
  int from;
};

child spawn(char** argv) {
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) die("pipe");
  const pid_t pid = ::fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 2);  // the request log goes to stderr: discarded, but still written
    ::execvp(argv[0], argv);
    _exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  return {pid, in[1], out[0]};
}

// Nanoseconds of CPU the process's live threads have run (the first schedstat field).
double cpu_ns(pid_t pid) {
  double total = 0;
  std::error_code ec;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& t : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(t.path() / "schedstat");
    double ns = 0;
    if (in >> ns) total += ns;
  }
  return total;
}

// Voluntary context switches of the process's live threads (a thread blocking to wait for
// another: each thread hand-off of a call costs about one).
double voluntary_switches(pid_t pid) {
  double total = 0;
  std::error_code ec;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& t : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(t.path() / "status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) total += std::stod(line.substr(24));
    }
  }
  return total;
}

std::string request(std::int64_t id, std::string_view method, std::string_view params) {
  std::string r = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")";
  r.append(method).append(R"(","params":)").append(params).append("}\n");
  return r;
}

void handshake(const child& c, line_source& src) {
  write_all(c.to, request(0, "initialize",
                          R"({"protocolVersion":"2025-11-25","capabilities":{},)"
                          R"("clientInfo":{"name":"stdio_load","version":"1"}})"));
  bool done = false;
  while (!done && src.read_some([&](std::string_view) { done = true; })) {
  }
  if (!done) die("server closed before initialize");
  write_all(c.to, R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                  "\n");
}

struct options {
  const load_case* which = &k_cases[0];
  long calls = 10000;
  long window = 1;
  char** server = nullptr;
};

// Keeps `window` requests outstanding; returns seconds for all replies.
double drive(const child& c, line_source& src, const options& o) {
  long sent = 0;
  long received = 0;
  std::string out;
  const auto send_upto = [&](long target) {
    out.clear();
    for (; sent < target && sent < o.calls; ++sent)
      out += request(sent + 1, "tools/call", o.which->params);
    if (!out.empty()) write_all(c.to, out);
  };
  const auto t0 = std::chrono::steady_clock::now();
  send_upto(o.window);
  while (received < o.calls) {
    const bool ok = src.read_some([&](std::string_view line) {
      if (line.find(o.which->marker) == std::string_view::npos) {
        std::fprintf(stderr, "unexpected reply for %s: %.*s\n", std::string(o.which->name).c_str(),
                     static_cast<int>(line.size()), line.data());
        std::exit(3);
      }
      ++received;
    });
    if (!ok) die("server closed early");
    send_upto(received + o.window);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The floor: a blocking loop that parses each line with nlohmann, builds the echo reply and
// dumps it; replies to all lines of one read in one write.
int floor_server() {
  line_source src(0);
  std::string out;
  while (src.read_some([&](std::string_view line) {
    const auto req = nlohmann::json::parse(line);
    if (!req.contains("id")) return;
    nlohmann::json reply = {{"jsonrpc", "2.0"}, {"id", req["id"]}};
    const auto& p = req["params"];
    if (p.contains("arguments") && p["arguments"].contains("text")) {
      reply["result"] = {{"content", {{{"type", "text"}, {"text", p["arguments"]["text"]}}}}};
    } else {
      reply["result"] = nlohmann::json::object();
    }
    out += reply.dump();
    out.push_back('\n');
  })) {
    write_all(1, out);
    out.clear();
  }
  return 0;
}

options parse_args(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") {
      o.server = argv + i + 1;
      break;
    }
    if (i + 1 >= argc) die("missing option value");
    if (a == "--calls")
      o.calls = std::atol(argv[++i]);
    else if (a == "--window")
      o.window = std::atol(argv[++i]);
    else if (a == "--case") {
      const std::string_view n = argv[++i];
      o.which = nullptr;
      for (const auto& k : k_cases) {
        if (k.name == n) o.which = &k;
      }
      if (o.which == nullptr) die("unknown --case");
    }
  }
  if (o.server == nullptr || *o.server == nullptr)
    die("usage: --case C --calls N --window W -- SERVER...");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--floor") return floor_server();
  const options o = parse_args(argc, argv);
  const child c = spawn(o.server);
  line_source src(c.from);
  handshake(c, src);
  const double cpu_before = cpu_ns(c.pid);
  const double switches_before = voluntary_switches(c.pid);
  const double secs = drive(c, src, o);
  const double cpu_us = (cpu_ns(c.pid) - cpu_before) / 1000.0;
  const double switches = voluntary_switches(c.pid) - switches_before;
  ::close(c.to);
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  std::printf(R"({"case":"%s","window":%ld,"calls":%ld,"seconds":%.6f,"calls_per_s":%.1f,)"
              R"("server_cpu_us_per_call":%.2f,"server_switches_per_call":%.2f})"
              "\n",
              std::string(o.which->name).c_str(), o.window, o.calls, secs,
              static_cast<double>(o.calls) / secs, cpu_us / static_cast<double>(o.calls),
              switches / static_cast<double>(o.calls));
  return 0;
}
