// stdio load driver: spawns an MCP server, does the legacy handshake (2025-11-25), then sends
// --calls tools/call requests of one case with at most --window in flight and prints one JSON
// line {"case","window","calls","seconds","calls_per_s","server_cpu_us_per_call",
// "server_switches_per_call"}. --warmup N untimed calls of the same case come first (default 0).
// With --seconds it sends for that long instead of --calls. --params JSON with --expect (and
// --reject) substrings replaces the case, for servers with other tools (bench/peers). The
// server's CPU time per call (all its threads, /proc/PID/task/*/schedstat, from after the
// handshake and the warm-up to the last reply, so an interpreter's start-up is not counted)
// stays comparable on a loaded machine, where wall-clock throughput swings with the neighbours.
// Every reply is checked for the case's marker (a result, isError:true, or a JSON-RPC error), so
// a wrong path cannot look fast; a line with a method and no id (a log notification) is skipped.
//
//   mcpcxx_stdio_load --case echo --calls 20000 --window 1 -- SERVER [ARGS...]
//   mcpcxx_stdio_load --floor          # the floor server: parse + build + dump per line
//
// Cases (the tools of tests/fixtures/cpp/example_server.cpp and
// tests/fixtures/python/fixture_server.py): echo (success), lookup_ok (lookup_issue of a known key:
// the success twin of tool_error, with the same pattern-checked argument), tool_error (lookup_issue
// of an unknown key), invalid_args (echo with a number), unexpected (explode), unknown_tool. Not
// part of the tests; bench/run_stdio.py drives it.
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
  std::string name = "echo";
  std::string params{k_cases[0].params};
  std::vector<std::string> expect{std::string(k_cases[0].marker)};  // a reply has one of these
  std::vector<std::string> reject;                                  // and none of these
  long calls = 10000;
  double seconds = 0;  // > 0: stop sending after this long instead of after `calls`
  long warmup = 0;
  long window = 1;
  char** server = nullptr;
};

bool contains_any(std::string_view line, const std::vector<std::string>& needles) {
  for (const auto& n : needles) {
    if (line.find(n) != std::string_view::npos) return true;
  }
  return false;
}

// A line the server sent unasked (a log notification some SDKs send): no id, a method.
bool is_notification(std::string_view line) {
  return line.find(R"("id")") == std::string_view::npos &&
         line.find(R"("method")") != std::string_view::npos;
}

void check_reply(const options& o, std::string_view line) {
  if (contains_any(line, o.expect) && !contains_any(line, o.reject)) return;
  std::fprintf(stderr, "unexpected reply for %s: %.*s\n", o.name.c_str(),
               static_cast<int>(line.size()), line.data());
  std::exit(3);
}

struct run_result {
  double seconds;
  long replies;
};

// Keeps `window` requests outstanding for `calls` requests (or for o.seconds when `timed`) with
// ids after `first_id`; returns the time until the last reply and the replies counted.
run_result drive(const child& c, line_source& src, const options& o, long calls, long first_id,
                 bool timed) {
  long sent = 0;
  long received = 0;
  bool stopped = false;
  std::string out;
  const auto t0 = std::chrono::steady_clock::now();
  const auto until = t0 + std::chrono::duration<double>(o.seconds);
  const auto send_upto = [&](long target) {
    if (!stopped) stopped = timed ? std::chrono::steady_clock::now() >= until : sent >= calls;
    if (stopped) return;
    out.clear();
    for (; sent < target && (timed || sent < calls); ++sent)
      out += request(first_id + sent + 1, "tools/call", o.params);
    if (!out.empty()) write_all(c.to, out);
  };
  send_upto(o.window);
  while (received < sent || !stopped) {
    const bool ok = src.read_some([&](std::string_view line) {
      if (is_notification(line)) return;
      check_reply(o, line);
      ++received;
    });
    if (!ok) die("server closed early");
    send_upto(received + o.window);
  }
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), received};
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

void select_case(options& o, std::string_view name) {
  for (const auto& k : k_cases) {
    if (k.name != name) continue;
    o.name = std::string(k.name);
    o.params = std::string(k.params);
    o.expect = {std::string(k.marker)};
    return;
  }
  std::fprintf(stderr, "unknown --case %.*s\n", static_cast<int>(name.size()), name.data());
  std::exit(2);
}

options parse_args(int argc, char** argv) {
  options o;
  bool custom_expect = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") {
      o.server = argv + i + 1;
      break;
    }
    if (i + 1 >= argc) die("missing option value");
    const char* v = argv[++i];
    if (a == "--calls") {
      o.calls = std::atol(v);
    } else if (a == "--seconds") {
      o.seconds = std::atof(v);
    } else if (a == "--warmup") {
      o.warmup = std::atol(v);
    } else if (a == "--window") {
      o.window = std::atol(v);
    } else if (a == "--case") {
      select_case(o, v);
    } else if (a == "--params") {  // a call of your own: --params JSON --expect S [--reject S]
      o.name = "--params";
      o.params = v;
    } else if (a == "--expect") {
      if (!custom_expect) o.expect.clear();
      custom_expect = true;
      o.expect.emplace_back(v);
    } else if (a == "--reject") {
      o.reject.emplace_back(v);
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[i - 1]);
      std::exit(2);
    }
  }
  if (o.server == nullptr || *o.server == nullptr || o.window < 1) {
    std::fprintf(stderr,
                 "usage: stdio_load (--case C | --params JSON --expect S [--reject S]) "
                 "(--calls N | --seconds S) [--warmup N] --window W -- SERVER...\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--floor") return floor_server();
  const options o = parse_args(argc, argv);
  const child c = spawn(o.server);
  line_source src(c.from);
  handshake(c, src);
  if (o.warmup > 0) drive(c, src, o, o.warmup, 1L << 40, false);  // untimed: first calls, caches
  const double cpu_before = cpu_ns(c.pid);
  const double switches_before = voluntary_switches(c.pid);
  const auto [secs, calls] = drive(c, src, o, o.calls, 0, o.seconds > 0);
  const double cpu_us = (cpu_ns(c.pid) - cpu_before) / 1000.0;
  const double switches = voluntary_switches(c.pid) - switches_before;
  ::close(c.to);
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  std::printf(R"({"case":"%s","window":%ld,"calls":%ld,"seconds":%.6f,"calls_per_s":%.1f,)"
              R"("server_cpu_us_per_call":%.2f,"server_switches_per_call":%.2f})"
              "\n",
              o.name.c_str(), o.window, calls, secs, static_cast<double>(calls) / secs,
              cpu_us / static_cast<double>(calls), switches / static_cast<double>(calls));
  return 0;
}
