// Test support: a private redis-server (/usr/bin/redis-server) for one test or suite.
//
// Contract: the constructor makes a fresh temporary folder (under $TMPDIR or /tmp), picks a free
// TCP port on 127.0.0.1 and starts `redis-server --save "" --appendonly no` there (no
// persistence, never the system Redis), with a Unix socket in the folder always on (the fixture's
// own readiness probe uses it), `--requirepass` when `password` is set and TLS only (`--port 0
// --tls-port P`, a self-signed certificate made with the `openssl` CLI) when `tls` is set. It
// returns once the server answers PING, and throws std::runtime_error (with the server's log
// tail) otherwise. kill() (SIGKILL), stop() (SIGTERM) and freeze() (SIGSTOP: the port accepts
// but nothing answers) take it down; restart() starts it again at the same port and folder, so
// URLs stay valid. The destructor kills the server and removes the folder (only in the process
// that made it, not in a forked child). No data survives a restart. Include it as
// "redis/redis_server.hpp" from any suite under tests/cpp. Thread-safety: none; drive one instance
// from one thread (the server itself serves any thread).
#pragma once

#include <arpa/inet.h>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace mcpcxx::testing {

/// A redis-server child process on 127.0.0.1 in its own temporary folder (see the file comment).
class redis_server {
 public:
  /// How the server is started.
  struct config {
    std::string password;  ///< --requirepass (empty: no AUTH needed)
    bool tls = false;      ///< TLS only on the port (--port 0 --tls-port P)
    /// subjectAltName of the TLS certificate (a mismatch makes hostname checks fail).
    std::string tls_san = "DNS:localhost,IP:127.0.0.1";
    std::vector<std::string> extra_args;  ///< appended to the command line as is
  };

  /// Where the binary is; tests may GTEST_SKIP when available() is false.
  static constexpr const char* k_binary = "/usr/bin/redis-server";
  /// True when redis-server is installed.
  static bool available() { return ::access(k_binary, X_OK) == 0; }

  /// A server without password or TLS.
  redis_server() : redis_server(config{}) {}
  /// Starts the server (see the file comment); throws std::runtime_error when it does not come up.
  explicit redis_server(config c) : config_(std::move(c)) {
    make_folder();
    if (config_.tls) make_certificate();
    for (int attempt = 0;; ++attempt) {  // another process may take the free port first
      port_ = free_port();
      try {
        start();
        return;
      } catch (const std::runtime_error&) {
        if (attempt == 4) {
          std::filesystem::remove_all(dir_);
          throw;
        }
      }
    }
  }
  ~redis_server() {
    if (::getpid() != owner_) return;  // a forked child (a death test) leaves the parent's server
    kill();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;

  /// The TCP (or TLS) port, the same across restarts.
  std::uint16_t port() const { return port_; }
  /// The temporary folder (log: redis.log; socket: redis.sock; TLS: cert.pem, key.pem).
  const std::filesystem::path& dir() const { return dir_; }
  /// The Unix socket's path.
  std::string socket_path() const { return (dir_ / "redis.sock").string(); }
  /// The CA file that verifies the TLS certificate (the self-signed certificate itself).
  std::string ca_file() const { return (dir_ / "cert.pem").string(); }
  /// The server's pid, or -1 while it is down.
  pid_t pid() const { return pid_; }
  /// "redis://[:password@]127.0.0.1:P", or with TLS "rediss://[:password@]localhost:P?ca=FILE";
  /// the password percent-encoded. `db` appends "/db" when not 0.
  std::string url(int db = 0) const {
    std::string u = config_.tls ? "rediss://" : "redis://";
    if (!config_.password.empty()) u += ":" + percent_encode(config_.password) + "@";
    u += config_.tls ? "localhost" : "127.0.0.1";
    u += ":" + std::to_string(port_);
    if (db != 0) u += "/" + std::to_string(db);
    if (config_.tls) u += "?ca=" + ca_file();
    return u;
  }
  /// "unix:///dir/redis.sock" (no password in the URL form; AUTH needs redis:// URLs).
  std::string unix_url() const { return "unix://" + socket_path(); }

  /// SIGKILL; waits for the process to end. No-op while down.
  void kill() { end(SIGKILL); }
  /// SIGTERM (a clean shutdown); waits for the process to end, SIGKILL after 5 s.
  void stop() { end(SIGTERM); }
  /// SIGSTOP: connections are accepted by the kernel but never answered (a hung server).
  void freeze() {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
  }
  /// SIGCONT after freeze().
  void thaw() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }
  /// Ends the server if running, then starts it again at the same port and folder (empty data).
  void restart() {
    kill();
    start();
  }
  /// True when the server answers PING on its Unix socket within `timeout`.
  bool ping(std::chrono::milliseconds timeout = std::chrono::milliseconds(500)) const {
    return probe(socket_path(), timeout);
  }
  /// The last `bytes` of the server's log (for failure messages).
  std::string log_tail(std::size_t bytes = 2000) const {
    std::ifstream in(dir_ / "redis.log");
    std::stringstream s;
    s << in.rdbuf();
    const std::string all = s.str();
    return all.size() > bytes ? all.substr(all.size() - bytes) : all;
  }

 private:
  void make_folder() {
    const char* tmp = std::getenv("TMPDIR");
    // Unix socket paths are limited to 107 bytes: a long TMPDIR falls back to /tmp.
    std::string base = tmp != nullptr && std::strlen(tmp) < 60 ? tmp : "/tmp";
    std::string templ = base + "/mcpcxx-redis-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
      throw std::runtime_error("redis_server: mkdtemp failed in " + base);
    }
    dir_ = templ;
  }

  void make_certificate() const {
    const std::vector<std::string> args = {"openssl",  "req",
                                           "-x509",    "-newkey",
                                           "rsa:2048", "-nodes",
                                           "-days",    "2",
                                           "-keyout",  (dir_ / "key.pem").string(),
                                           "-out",     ca_file(),
                                           "-subj",    "/CN=mcpcxx-test",
                                           "-addext",  "subjectAltName=" + config_.tls_san};
    const pid_t p = spawn("/usr/bin/openssl", args);
    int status = 0;
    ::waitpid(p, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      throw std::runtime_error("redis_server: openssl could not make a certificate");
    }
  }

  std::vector<std::string> arguments() const {
    std::vector<std::string> a = {k_binary,
                                  "--bind",
                                  "127.0.0.1",
                                  "--save",
                                  "",
                                  "--appendonly",
                                  "no",
                                  "--dir",
                                  dir_.string(),
                                  "--logfile",
                                  "redis.log",
                                  "--unixsocket",
                                  socket_path(),
                                  "--unixsocketperm",
                                  "700",
                                  "--daemonize",
                                  "no"};
    const std::string port = std::to_string(port_);
    if (config_.tls) {
      a.insert(a.end(),
               {"--port", "0", "--tls-port", port, "--tls-cert-file", ca_file(), "--tls-key-file",
                (dir_ / "key.pem").string(), "--tls-auth-clients", "no"});
    } else {
      a.insert(a.end(), {"--port", port});
    }
    if (!config_.password.empty()) a.insert(a.end(), {"--requirepass", config_.password});
    a.insert(a.end(), config_.extra_args.begin(), config_.extra_args.end());
    return a;
  }

  void start() {
    std::filesystem::remove(dir_ / "redis.log");
    pid_ = spawn(k_binary, arguments());
    const auto end_at = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < end_at) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("redis_server: redis-server exited at start:\n" + log_tail());
      }
      if (ping() && listening()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill();
    throw std::runtime_error("redis_server: redis-server did not answer PING in 10 s:\n" +
                             log_tail());
  }

  void end(int sig) {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);  // a frozen server must run to handle SIGTERM
    ::kill(pid_, sig);
    for (int i = 0; i < 500; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  // The TCP port accepts connections (the log line alone can race the listener).
  bool listening() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port_);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
  }

  static pid_t spawn(const char* path, const std::vector<std::string>& args) {
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, path, &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error(std::string("redis_server: cannot run ") + path);
    return pid;
  }

  static std::uint16_t free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ::close(fd);
      throw std::runtime_error("redis_server: no free port");
    }
    ::close(fd);
    return ntohs(a.sin_port);
  }

  // Sends an inline PING on the Unix socket; any reply line (+PONG, -NOAUTH ...) means up.
  static bool probe(const std::string& path, std::chrono::milliseconds timeout) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
              ::send(fd, "PING\r\n", 6, MSG_NOSIGNAL) == 6;
    if (ok) {
      pollfd p{fd, POLLIN, 0};
      char c = 0;
      ok = ::poll(&p, 1, static_cast<int>(timeout.count())) == 1 && ::recv(fd, &c, 1, 0) == 1 &&
           (c == '+' || c == '-');
    }
    ::close(fd);
    return ok;
  }

  static std::string percent_encode(const std::string& s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : s) {
      if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
        out += static_cast<char>(c);
      } else {
        out += '%';
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
    return out;
  }

  config config_;
  std::filesystem::path dir_;
  std::uint16_t port_ = 0;
  pid_t pid_ = -1;
  pid_t owner_ = ::getpid();
};

}  // namespace mcpcxx::testing
