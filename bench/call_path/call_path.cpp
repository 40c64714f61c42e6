// The call-path probe: which library code one stdio tools/call executes.
//
// Builds a server with one plain tool (echo, {"text": string}, an input schema, no task support,
// no scopes), serves it with mcpcxx::serve_fds over two pipes on a background thread (the stdio
// transport exactly as serve_stdio runs it, default stdio_options except protect_stdout), and
// plays the client on the main thread:
//
//   legacy (default): initialize 2025-11-25, notifications/initialized, one warm-up tools/call;
//   --modern:         one warm-up 2026-07-28 tools/call (per-request _meta, no initialize);
//
// then __gcov_reset(), one measured tools/call of echo, its reply, a settle pause (so that the
// threads that answered finish what they do after the reply's bytes left: releasing the
// request, metrics, going back to wait), __gcov_dump() and _exit(0). _exit skips the server's
// shutdown, so nothing after the dump is counted. Every reply is checked; a wrong or missing
// reply exits with status 1 and a message on stderr.
//
// Must be compiled and linked with --coverage (scripts/call_path_files.sh does it); without it the
// program does not link (__gcov_reset and __gcov_dump are libgcov's).
//
// The window must not reach the worker pool's supervisor, which wakes once a second on its own
// (k_idle_look in cpp/src/engine/worker_pool.cpp when this was written) and would add its lines:
// the supervisor starts with or after the server, so a dump less than 0.9 s (a margin below its
// 1 s) after the server was constructed cannot contain one of its wakes. A slower run (a loaded
// machine, a long --settle-ms) exits with status 3 before dumping, saying so; run it again.
//
//   call_path [--modern] [--settle-ms N] [--idle] [--unguarded]
//     --settle-ms  the pause after the warm-up and after the measured reply (default 200)
//     --idle       measure no call at all (reset, settle, dump): what runs on its own in that
//                  window (expected: nothing)
//     --unguarded  dump even after 0.9 s; shows the supervisor with --idle --settle-ms 2500
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>

#include "mcpcxx/server.hpp"
#include "mcpcxx/stdio.hpp"

// libgcov's entry points (linked by --coverage; not weak: a weak reference would not pull them
// out of libgcov.a).
extern "C" void __gcov_reset(void);
extern "C" void __gcov_dump(void);

namespace {

using mcpcxx::json;

[[noreturn]] void fail(const std::string& what, int status = 1) {
  std::fprintf(stderr, "call_path: %s\n", what.c_str());
  std::fflush(stderr);
  // _exit: the serving thread is still blocked in a read; no destructor should wait for it.
  ::_exit(status);
}

struct pipe_fds {
  int read = -1;
  int write = -1;
  pipe_fds() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) fail(std::string("pipe2 failed: ") + std::strerror(errno));
    read = fds[0];
    write = fds[1];
  }
};

void write_line(int fd, const std::string& line) {
  const std::string framed = line + "\n";
  std::size_t done = 0;
  while (done < framed.size()) {
    const ssize_t n = ::write(fd, framed.data() + done, framed.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::string("writing a request failed: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

/// Newline-delimited frames from the server's output pipe.
class line_reader {
 public:
  explicit line_reader(int fd) : fd_(fd) {}
  /// The next line; fails after 30 s without one (a hang) or at EOF.
  std::string next(std::string_view waiting_for) {
    for (;;) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, 30000);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) fail("no reply to " + std::string(waiting_for) + " within 30 s");
      char chunk[65536];
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("the server closed its output before answering " + std::string(waiting_for));
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

json parse_reply(const std::string& line, std::string_view what) {
  try {
    return json::parse(line);
  } catch (const json::exception& e) {
    fail("the reply to " + std::string(what) + " is not JSON (" + e.what() + "): " + line);
  }
}

/// The next frame must be the successful reply to `id`; returns its result.
json expect_result(line_reader& in, int id, std::string_view what) {
  const std::string line = in.next(what);
  const json reply = parse_reply(line, what);
  if (!reply.is_object() || reply.value("jsonrpc", "") != "2.0" || !reply.contains("id") ||
      reply.at("id") != id) {
    fail("expected the reply to " + std::string(what) + " (id " + std::to_string(id) +
         "), got: " + line);
  }
  if (reply.contains("error") || !reply.contains("result") || !reply.at("result").is_object()) {
    fail(std::string(what) + " was not answered with a result: " + line);
  }
  return reply.at("result");
}

/// The echo tool's result must be exactly one text block holding `text`, not an error.
void expect_echo(const json& result, const std::string& text, std::string_view what) {
  const json expected_content = json::array({{{"type", "text"}, {"text", text}}});
  if (result.value("isError", false)) fail(std::string(what) + " failed: " + result.dump());
  if (!result.contains("content") || result.at("content") != expected_content) {
    fail(std::string(what) + " is not the echo of \"" + text + "\": " + result.dump());
  }
}

std::string legacy_call(int id, const std::string& text) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "tools/call"},
              {"params", {{"name", "echo"}, {"arguments", {{"text", text}}}}}}
      .dump();
}

std::string modern_call(int id, const std::string& text) {
  const json meta = {
      {"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
      {"io.modelcontextprotocol/clientCapabilities", json::object()},
      {"io.modelcontextprotocol/clientInfo", {{"name", "call-path-probe"}, {"version", "1.0"}}}};
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "tools/call"},
              {"params", {{"name", "echo"}, {"arguments", {{"text", text}}}, {"_meta", meta}}}}
      .dump();
}

struct options {
  bool modern = false;
  bool idle = false;
  bool unguarded = false;
  int settle_ms = 200;
};

options parse_args(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--modern") {
      o.modern = true;
    } else if (arg == "--idle") {
      o.idle = true;
    } else if (arg == "--unguarded") {
      o.unguarded = true;
    } else if (arg == "--settle-ms" && i + 1 < argc) {
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 0 || v > 60000) fail("--settle-ms takes 0..60000");
      o.settle_ms = static_cast<int>(v);
    } else {
      fail("usage: call_path [--modern] [--settle-ms N] [--idle] [--unguarded]; unknown argument " +
           std::string(arg));
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const options opt = parse_args(argc, argv);

  const auto constructed = std::chrono::steady_clock::now();
  mcpcxx::server srv({.info = {.name = "call-path-probe", .version = "1.0"}});
  srv.add_tool({.name = "echo",
                .description = "Returns the text it is given.",
                .input_schema = {{"type", "object"},
                                 {"properties", {{"text", {{"type", "string"}}}}},
                                 {"required", {"text"}}}},
               [](const json& args, mcpcxx::request_context&) {
                 return mcpcxx::tool_result::text(args.at("text").get<std::string>());
               });

  pipe_fds to_server;
  pipe_fds from_server;
  mcpcxx::stdio_options so;
  so.protect_stdout = false;  // the stream is our pipe, not fd 1
  std::thread serving([&] {
    const int rc = mcpcxx::serve_fds(srv, to_server.read, from_server.write, so);
    if (rc != 0) fail("serve_fds returned " + std::to_string(rc) + " while the probe ran");
  });
  serving.detach();  // never joined: the probe ends with _exit after the dump
  line_reader replies(from_server.read);

  if (!opt.modern) {
    write_line(to_server.write,
               json{{"jsonrpc", "2.0"},
                    {"id", 1},
                    {"method", "initialize"},
                    {"params",
                     {{"protocolVersion", "2025-11-25"},
                      {"capabilities", json::object()},
                      {"clientInfo", {{"name", "call-path-probe"}, {"version", "1.0"}}}}}}
                   .dump());
    const json init = expect_result(replies, 1, "initialize");
    if (init.value("protocolVersion", "") != "2025-11-25") {
      fail("initialize did not agree on 2025-11-25: " + init.dump());
    }
    if (!init.contains("capabilities") || !init.at("capabilities").contains("tools")) {
      fail("initialize advertises no tools capability: " + init.dump());
    }
    write_line(to_server.write,
               json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump());
  }
  const auto call = [&](int id, const std::string& text) {
    return opt.modern ? modern_call(id, text) : legacy_call(id, text);
  };

  // Warm-up: first-use work (lazy tables, the compiled schema, grown buffers) happens here.
  write_line(to_server.write, call(2, "warm-up"));
  expect_echo(expect_result(replies, 2, "the warm-up tools/call"), "warm-up",
              "the warm-up tools/call");
  // Let the warm-up's threads finish and go back to waiting before the counters are zeroed.
  std::this_thread::sleep_for(std::chrono::milliseconds(opt.settle_ms));

  __gcov_reset();
  if (!opt.idle) {
    write_line(to_server.write, call(3, "measured"));
    expect_echo(expect_result(replies, 3, "the measured tools/call"), "measured",
                "the measured tools/call");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(opt.settle_ms));
  const auto window_end = std::chrono::steady_clock::now() - constructed;
  if (!opt.unguarded && window_end >= std::chrono::milliseconds(900)) {
    fail("the measured window ended " +
             std::to_string(
                 std::chrono::duration_cast<std::chrono::milliseconds>(window_end).count()) +
             " ms after the server started: it may hold the worker pool supervisor's 1 s wake, "
             "which is not part of the call; nothing dumped, run it again (on a less loaded "
             "machine, or with a shorter --settle-ms)",
         3);
  }
  __gcov_dump();

  std::fprintf(stderr, "call_path: %s tools/call answered and checked; coverage dumped\n",
               opt.idle ? "no (--idle)" : (opt.modern ? "2026-07-28" : "2025-11-25"));
  std::fflush(stderr);
  ::_exit(0);
}
