// Golden transcript parsing, running and comparing.
#include "transcript.hpp"

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <poll.h>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mcpcxx::golden {

namespace {

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream ss(text);
  for (std::string w; ss >> w;) out.push_back(w);
  return out;
}

// "signal: SIGTERM 2": the signal and how many messages the server writes before it is sent.
void read_signal(transcript& t, const std::vector<std::string>& w, const std::string& where) {
  if (w.size() != 2 || (w[0] != "SIGTERM" && w[0] != "SIGINT") ||
      w[1].find_first_not_of("0123456789") != std::string::npos) {
    throw std::runtime_error(where +
                             ": signal is SIGTERM or SIGINT and a message count (SIGTERM 2)");
  }
  t.signal = w[0];
  t.signal_after = std::stoul(w[1]);
}

// One "key: value" line of the meta section.
void read_meta(transcript& t, const std::string& line, const std::string& where) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) throw std::runtime_error(where + ": meta lines are key: value");
  const std::string key = line.substr(0, colon);
  const std::string value = line.substr(colon + 1);
  if (key == "fixtures") {
    t.fixtures = words(value);
    for (const auto& f : t.fixtures) {
      if (f != "cpp" && f != "python") {
        throw std::runtime_error(
            std::string(where).append(": unknown fixture ").append(f).append(" (use cpp, python)"));
      }
    }
  } else if (key == "rows") {
    t.rows = words(value);
  } else if (key == "transport") {
    t.transport = words(value).empty() ? "" : words(value)[0];
    if (t.transport != "stdio" && t.transport != "http") {
      throw std::runtime_error(where + ": transport is stdio or http");
    }
  } else if (key == "mask") {
    const auto start = value.find_first_not_of(' ');
    t.mask = start == std::string::npos ? "" : value.substr(start);
    try {
      std::regex check(t.mask);
    } catch (const std::regex_error&) {
      throw std::runtime_error(where + ": mask is not a valid regular expression");
    }
  } else if (key == "signal") {
    read_signal(t, words(value), where);
  } else if (key == "lockstep") {
    if (words(value) != std::vector<std::string>{"yes"}) {
      throw std::runtime_error(where + ": lockstep is yes (leave the line out for no)");
    }
    t.lockstep = true;
  } else if (key == "pending") {
    t.pending = value.empty() ? "pending" : value.substr(value.find_first_not_of(' '));
  } else {
    throw std::runtime_error(where + ": unknown meta key " + key);
  }
}

// "METHOD result JSON", "METHOD error JSON" or "METHOD never".
answer parse_answer(const std::string& line, const std::string& where) {
  std::istringstream ss(line);
  answer a;
  ss >> a.method >> a.kind;
  std::string rest;
  std::getline(ss, rest);
  if (a.kind == "never" && rest.find_first_not_of(' ') == std::string::npos) return a;
  if (a.kind != "result" && a.kind != "error") {
    throw std::runtime_error(where + ": answers are METHOD result JSON, METHOD error JSON or " +
                             "METHOD never");
  }
  a.value = json::parse(rest, nullptr, false);
  if (!a.value.is_object()) throw std::runtime_error(where + ": the answer is not a JSON object");
  return a;
}

// "STATUS" or "STATUS BODY" (BODY one JSON value) -> {"status": STATUS, "body": BODY}.
json parse_http_expectation(const std::string& line) {
  const auto space = line.find(' ');
  json e = {{"status", std::stoi(line.substr(0, space))}};
  if (space != std::string::npos) e["body"] = json::parse(line.substr(space + 1));
  return e;
}

}  // namespace

transcript load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  transcript t;
  t.path = path;
  std::string line, section = "prose";
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string where = path + ":" + std::to_string(n);
    if (line.rfind("-- ", 0) == 0 && line.size() > 6 && line.substr(line.size() - 3) == " --") {
      section = line.substr(3, line.size() - 6);
      if (section != "meta" && section != "env" && section != "answers" && section != "client" &&
          section != "server") {
        throw std::runtime_error(std::string(where).append(": unknown section ").append(section));
      }
      continue;
    }
    if (section == "prose") {
      t.prose += line + "\n";
    } else if (line.empty() && !(section == "client" && t.transport == "http")) {
      continue;  // blank lines matter only in an HTTP client: they separate a head from its body
    } else if (section == "meta") {
      read_meta(t, line, where);
    } else if (section == "env") {
      t.env.push_back(line);
    } else if (section == "answers") {
      t.answers.push_back(parse_answer(line, where));
    } else if (section == "client") {
      t.client.push_back(line);
    } else {
      try {
        t.server.push_back(t.transport == "http" ? parse_http_expectation(line)
                                                 : json::parse(line));
      } catch (const std::exception& e) {
        throw std::runtime_error(where + ": bad JSON: " + e.what());
      }
    }
  }
  if (t.fixtures.empty()) throw std::runtime_error(path + ": the meta section names no fixtures");
  if (!t.answers.empty() && !t.lockstep) {
    throw std::runtime_error(path + ": an answers section needs \"lockstep: yes\" in the meta");
  }
  return t;
}

void save_server_section(const transcript& t, const std::vector<json>& replies) {
  std::ofstream out(t.path, std::ios::trunc);
  out << t.prose << "-- meta --\nfixtures:";
  for (const auto& f : t.fixtures) out << " " << f;
  out << "\nrows:";
  for (const auto& r : t.rows) out << " " << r;
  out << "\n";
  if (!t.pending.empty()) out << "pending: " << t.pending << "\n";
  if (!t.mask.empty()) out << "mask: " << t.mask << "\n";
  if (t.transport != "stdio") out << "transport: " << t.transport << "\n";
  if (!t.signal.empty()) out << "signal: " << t.signal << " " << t.signal_after << "\n";
  if (t.lockstep) out << "lockstep: yes\n";
  if (!t.env.empty()) {
    out << "-- env --\n";
    for (const auto& e : t.env) out << e << "\n";
  }
  if (!t.answers.empty()) {
    out << "-- answers --\n";
    for (const auto& a : t.answers) {
      out << a.method << " " << a.kind;
      if (a.kind != "never") out << " " << a.value.dump();
      out << "\n";
    }
  }
  out << "-- client --\n";
  for (const auto& c : t.client) out << c << "\n";
  out << "-- server --\n";
  for (const auto& r : replies) {
    if (t.transport == "http") {
      out << r.value("status", 0);
      if (r.contains("body")) out << " " << mask_request_state(r["body"]).dump();
      out << "\n";
    } else {
      out << mask_request_state(r).dump() << "\n";
    }
  }
}

namespace {

// Reads stdout and stderr until both end (30 s without output ends it too), or with `lines` > 0
// until stdout holds that many lines.
std::string drain(int fd_out, int fd_err, std::string& err, std::size_t lines = 0) {
  std::string out;
  pollfd fds[2] = {{fd_out, POLLIN, 0}, {fd_err, POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0 && (lines == 0 || static_cast<std::size_t>(
                                            std::count(out.begin(), out.end(), '\n')) < lines)) {
    if (::poll(fds, 2, 30000) <= 0) break;  // a hung server fails the comparison, never the run
    for (auto& p : fds) {
      if (p.fd < 0 || (p.revents & (POLLIN | POLLHUP)) == 0) continue;
      const ssize_t k = ::read(p.fd, buf, sizeof buf);
      if (k <= 0) {
        p.fd = -1;
        --open_fds;
        continue;
      }
      (p.fd == fd_out ? out : err).append(buf, static_cast<std::size_t>(k));
    }
  }
  return out;
}

// The inherited environment, overridden by the command's entries, overridden by the transcript's.
std::vector<std::string> merged_environment(const command& cmd, const transcript& t) {
  std::map<std::string, std::string> vars;
  auto put = [&vars](const std::string& kv) {
    const auto eq = kv.find('=');
    vars[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
  };
  for (char** e = environ; *e != nullptr; ++e) put(*e);
  for (const auto& e : cmd.env) put(e);
  for (const auto& e : t.env) put(e);
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [k, v] : vars) out.push_back(std::string(k).append("=").append(v));
  return out;
}

}  // namespace

process spawn(const command& cmd, const transcript& t) {
  int in[2], out[2], err[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0)
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  for (int fd : {in[1], out[0], err[0], in[0], out[1], err[1]})
    posix_spawn_file_actions_addclose(&fa, fd);
  std::vector<std::string> env_store = merged_environment(cmd, t);
  std::vector<char*> envp;
  envp.reserve(env_store.size() + 1);
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = cmd.argv;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  process p;
  // posix_spawnp searches PATH for a bare name such as "python3".
  const int rc = posix_spawnp(&p.pid, args[0].c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  p.in = in[1];
  p.out = out[0];
  p.err = err[0];
  if (rc != 0) {
    finish(p, p.stderr_text, p.exit_code);
    throw std::runtime_error("cannot start " + args[0]);
  }
  return p;
}

std::string finish(process& p, std::string& stderr_text, int& exit_code) {
  if (p.in >= 0) ::close(p.in);
  p.in = -1;
  std::string text = drain(p.out, p.err, stderr_text);
  ::close(p.out);
  ::close(p.err);
  int status = 0;
  if (p.pid > 0) ::waitpid(p.pid, &status, 0);
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return text;
}

namespace {

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MCPCXX_GOLDEN_UNDER_TSAN 1
#endif
#endif

// Under ThreadSanitizer the server's signal handler runs only when the receiving thread next
// enters one of TSan's interceptors (llvm/llvm-project#83561): a thread parked in a call TSan does
// not treat as blocking can hold SIGTERM for as long as it stays there. The server logs the signal
// to stderr at once, so silence on both pipes for 5 s means it is still held; one more signal is
// then sent (the server acts on the first that reaches it). Other builds send exactly one.
void send_stop_signal(const process& p, int signo) {
  ::kill(p.pid, signo);
#ifdef MCPCXX_GOLDEN_UNDER_TSAN
  pollfd fds[2] = {{p.out, POLLIN, 0}, {p.err, POLLIN, 0}};
  if (::poll(fds, 2, 5000) == 0) ::kill(p.pid, signo);
#endif
}

// Sends `t.signal` once the server wrote `t.signal_after` lines, reads to the end, and only then
// closes stdin: an EOF racing the signal would be a different stop (a silent cancel).
std::string signal_then_finish(process& p, const transcript& t, std::string& stderr_text,
                               int& exit_code) {
  std::string text = drain(p.out, p.err, stderr_text, t.signal_after);
  send_stop_signal(p, t.signal == "SIGINT" ? SIGINT : SIGTERM);
  const int in = p.in;
  p.in = -1;
  text += finish(p, stderr_text, exit_code);
  ::close(in);
  return text;
}

}  // namespace

std::vector<std::string> run(const command& cmd, const transcript& t, std::string& stderr_text,
                             int& exit_code) {
  process p = spawn(cmd, t);
  std::string input;
  for (const auto& line : t.client) input += line + "\n";
  // Transcripts are small (well under the pipe buffer), so one write cannot block forever.
  const ssize_t w = ::write(p.in, input.data(), input.size());
  (void)w;
  const std::string text = t.signal.empty() ? finish(p, stderr_text, exit_code)
                                            : signal_then_finish(p, t, stderr_text, exit_code);
  std::vector<std::string> lines;
  std::istringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  return lines;
}

json apply_mask(json v, const std::string& mask) {
  if (mask.empty()) return v;
  if (v.is_string()) return std::regex_replace(v.get<std::string>(), std::regex(mask), "");
  if (v.is_array() || v.is_object()) {
    for (auto& child : v) child = apply_mask(child, mask);
  }
  return v;
}

json mask_request_state(json v) {
  if (v.is_object() && v.contains("requestState") && v["requestState"].is_string()) {
    v["requestState"] = "{REQUEST_STATE}";
  }
  if (v.is_array() || v.is_object()) {
    for (auto& child : v) child = mask_request_state(child);
  }
  return v;
}

json normalize(json v) {
  static const std::regex ref("ERR-[0-9a-f]{8}");
  if (v.is_string()) return std::regex_replace(v.get<std::string>(), ref, "ERR-XXXXXXXX");
  v = mask_request_state(std::move(v));
  if (v.is_array() || v.is_object()) {
    for (auto& child : v) child = normalize(child);
  }
  if (v.is_array() && !v.empty() && v[0].is_object() && v[0].contains("jsonrpc")) {
    std::sort(v.begin(), v.end(), [](const json& a, const json& b) {
      return a.value("id", json()).dump() < b.value("id", json()).dump();
    });
  }
  return v;
}

namespace {

bool is_notification(const json& m) { return m.is_object() && m.contains("method"); }

// Values compare as their serialization, so 1 and 1.0 differ as they do on the wire.
bool same(const json& a, const json& b) { return normalize(a).dump() == normalize(b).dump(); }

// Removes from `pool` the first value equal to `want` after normalization; false when none.
bool take(std::vector<json>& pool, const json& want) {
  for (auto it = pool.begin(); it != pool.end(); ++it) {
    if (same(*it, want)) {
      pool.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string compare(const std::vector<json>& expected, const std::vector<json>& actual) {
  // Notifications must keep their relative order (progress increases); replies are matched
  // as a multiset because concurrent requests may finish in any order.
  std::vector<json> want_notes, got_notes, got_replies;
  for (const auto& a : actual) (is_notification(a) ? got_notes : got_replies).push_back(a);
  for (const auto& e : expected) {
    if (is_notification(e)) {
      want_notes.push_back(e);
      continue;
    }
    if (!take(got_replies, e)) {
      std::string near;
      for (const auto& g : got_replies) {
        if (g.is_object() && e.is_object() && g.value("id", json()) == e.value("id", json())) {
          near = "\n  actual   " + normalize(g).dump();
          break;
        }
      }
      return "no reply equal to\n  expected " + normalize(e).dump() + near;
    }
  }
  if (!got_replies.empty()) return "unexpected reply " + normalize(got_replies.front()).dump();
  for (std::size_t i = 0; i < std::max(want_notes.size(), got_notes.size()); ++i) {
    if (i >= got_notes.size()) return "missing notification " + normalize(want_notes[i]).dump();
    if (i >= want_notes.size()) return "unexpected notification " + normalize(got_notes[i]).dump();
    if (!same(want_notes[i], got_notes[i])) {
      return "notification #" + std::to_string(i) + "\n  expected " +
             normalize(want_notes[i]).dump() + "\n  actual   " + normalize(got_notes[i]).dump();
    }
  }
  return "";
}

}  // namespace mcpcxx::golden
