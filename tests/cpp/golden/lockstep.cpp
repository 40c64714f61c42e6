// Lockstep stdio runs: send, wait for the reply, answer the server's requests meanwhile.
#include "lockstep.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <deque>
#include <map>
#include <poll.h>
#include <pthread.h>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace mcpcxx::golden {

namespace {

constexpr int k_reply_wait_ms = 30000;  // a hung server fails the run, never blocks it
constexpr std::string_view k_state_placeholder = "{REQUEST_STATE}";

class lockstep_client {
 public:
  lockstep_client(process& p, const transcript& t, std::string& stderr_text)
      : p_(p), stderr_text_(stderr_text) {
    for (const auto& a : t.answers) answers_[a.method].push_back(a);
  }

  // Sends `line` (after substitution); a request waits for its reply. False once a problem.
  bool send(const std::string& line) {
    if (line == "@align") return align(), true;
    std::string text = line;
    if (const auto at = text.find(k_state_placeholder); at != std::string::npos) {
      if (state_.empty()) return fail("{REQUEST_STATE} before any reply carried a requestState");
      text.replace(at, k_state_placeholder.size(), state_);
    }
    if (!write_line(text)) return fail("the server closed its stdin");
    const json m = json::parse(text, nullptr, false);
    if (m.is_array() && !m.empty()) return wait_for([](const json& r) { return r.is_array(); });
    if (!m.is_object() || !m.contains("id") || !m.contains("method")) return true;
    const json& id = m["id"];
    return wait_for([&id](const json& r) {
      return r.is_object() && !r.contains("method") && r.value("id", json()) == id;
    });
  }

  std::vector<std::string> lines;  ///< stdout lines read so far
  std::string problem;
  /// stdout bytes read but not yet split into lines.
  const std::string& unread() const noexcept { return pending_; }

 private:
  process& p_;
  std::string& stderr_text_;
  std::string pending_;  // stdout bytes after the last newline
  std::map<std::string, std::deque<answer>> answers_;
  std::string state_;

  bool fail(std::string why) {
    problem = std::move(why);
    return false;
  }

  static void align() {
    using namespace std::chrono;
    const auto now = system_clock::now();
    const auto next = time_point_cast<seconds>(now) + seconds(1) + milliseconds(250);
    std::this_thread::sleep_for(next - now);
  }

  // A server that exited early fails the run; its closed stdin must not kill the test binary
  // with SIGPIPE (blocked around the write only: a spawned fixture must not inherit the mask).
  bool write_line(const std::string& text) {
    const std::string data = text + "\n";
    sigset_t pipe_signal, old;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
    const ssize_t n = ::write(p_.in, data.data(), data.size());
    if (n < 0 && errno == EPIPE) {
      const timespec now{};
      sigtimedwait(&pipe_signal, nullptr, &now);  // drop the pending SIGPIPE
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return n == static_cast<ssize_t>(data.size());
  }

  // Reads until a message satisfying `done` arrives, reacting to each message on the way.
  template <class Done>
  bool wait_for(Done done) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(k_reply_wait_ms);
    while (std::chrono::steady_clock::now() < until) {
      std::string line;
      while (next_line(line)) {
        const json m = json::parse(line, nullptr, false);
        if (!react(m)) return false;
        if (done(m)) return true;
      }
      if (!read_some()) return fail("the server's stdout ended before the reply");
    }
    return fail("no reply within 30 s");
  }

  bool next_line(std::string& line) {
    const auto nl = pending_.find('\n');
    if (nl == std::string::npos) return false;
    line = pending_.substr(0, nl);
    pending_.erase(0, nl + 1);
    lines.push_back(line);
    return true;
  }

  // Reads what stdout or stderr hold (waits up to 100 ms); false when stdout ended.
  bool read_some() {
    pollfd fds[2] = {{p_.out, POLLIN, 0}, {p_.err, POLLIN, 0}};
    if (::poll(fds, 2, 100) <= 0) return true;
    char buf[65536];
    if ((fds[1].revents & (POLLIN | POLLHUP)) != 0) {
      const ssize_t k = ::read(p_.err, buf, sizeof buf);
      if (k > 0) stderr_text_.append(buf, static_cast<std::size_t>(k));
    }
    if ((fds[0].revents & (POLLIN | POLLHUP)) == 0) return true;
    const ssize_t k = ::read(p_.out, buf, sizeof buf);
    if (k <= 0) return false;
    pending_.append(buf, static_cast<std::size_t>(k));
    return true;
  }

  // Captures a requestState and answers a server request; false when no answer is left.
  bool react(const json& m) {
    if (!m.is_object()) return true;
    if (m.contains("result") && m["result"].is_object() && m["result"].contains("requestState") &&
        m["result"]["requestState"].is_string()) {
      state_ = m["result"]["requestState"].get<std::string>();
    }
    if (!m.contains("id") || !m.contains("method") || !m["method"].is_string()) return true;
    auto& queue = answers_[m["method"].get<std::string>()];
    if (queue.empty()) return fail("no answer left for the server's request " + m.dump());
    const answer a = queue.front();
    queue.pop_front();
    if (a.kind == "never") return true;
    json reply = {{"jsonrpc", "2.0"}, {"id", m["id"]}, {a.kind, a.value}};
    return write_line(reply.dump()) || fail("the server closed its stdin");
  }
};

}  // namespace

std::vector<std::string> run_lockstep(const command& cmd, const transcript& t,
                                      std::string& stderr_text, int& exit_code,
                                      std::string& problem) {
  process p = spawn(cmd, t);
  lockstep_client client(p, t, stderr_text);
  for (const auto& line : t.client) {
    if (!client.send(line)) break;
  }
  problem = client.problem;
  if (!problem.empty()) ::kill(p.pid, SIGKILL);
  std::vector<std::string> lines = std::move(client.lines);
  std::istringstream rest(client.unread() + finish(p, stderr_text, exit_code));
  for (std::string l; std::getline(rest, l);) lines.push_back(l);
  return lines;
}

}  // namespace mcpcxx::golden
