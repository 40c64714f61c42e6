// Sockets with deadlines: resolving, non-blocking connect, reads and writes under poll()
// (redis/stream.hpp).
#include "redis/stream.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include "redis/tls.hpp"

namespace mcpcxx::redis::detail {

namespace {

// strerror in lower case, to continue a sentence ("connection refused").
std::string os_reason(int err) {
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

bool try_again(int err) { return err == EAGAIN || err == EWOULDBLOCK || err == EINTR; }

class fd_guard {
 public:
  explicit fd_guard(int fd) : fd_(fd) {}
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  int release() { return std::exchange(fd_, -1); }
  int get() const { return fd_; }

 private:
  int fd_;
};

struct endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
  int family = AF_UNSPEC;
};

std::vector<endpoint> endpoints_of(const addrinfo* list) {
  std::vector<endpoint> out;
  for (const addrinfo* a = list; a != nullptr; a = a->ai_next) {
    endpoint e;
    std::memcpy(&e.addr, a->ai_addr, a->ai_addrlen);
    e.len = a->ai_addrlen;
    e.family = a->ai_family;
    out.push_back(e);
  }
  return out;
}

// One getaddrinfo, outliving a caller that stopped waiting for it.
struct name_lookup {
  std::mutex m;
  std::condition_variable done_cv;
  bool done = false;
  int rc = 0;
  std::vector<endpoint> found;
};

std::vector<endpoint> resolve(const std::string& host, std::uint16_t port,
                              clock::time_point deadline) {
  const std::string service = std::to_string(port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* list = nullptr;
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &list) == 0) {
    auto out = endpoints_of(list);
    ::freeaddrinfo(list);
    return out;
  }
  // getaddrinfo has no timeout: a thread runs it so the caller's deadline holds even when DNS
  // hangs.
  auto lookup = std::make_shared<name_lookup>();
  std::thread([lookup, host, service] {
    addrinfo h{};
    h.ai_socktype = SOCK_STREAM;
    h.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV;
    addrinfo* res = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &h, &res);
    const std::lock_guard lock(lookup->m);
    lookup->rc = rc;
    if (rc == 0) lookup->found = endpoints_of(res);
    if (res != nullptr) ::freeaddrinfo(res);
    lookup->done = true;
    lookup->done_cv.notify_all();
  }).detach();
  std::unique_lock lock(lookup->m);
  if (!lookup->done_cv.wait_until(lock, deadline, [&] { return lookup->done; })) {
    throw io_error("resolving '" + host + "'", true);
  }
  if (lookup->rc != 0) {
    throw io_error("cannot resolve '" + host + "': " + ::gai_strerror(lookup->rc), false);
  }
  return lookup->found;
}

int connect_to(const sockaddr* addr, socklen_t len, int family, clock::time_point deadline) {
  fd_guard fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw io_error("socket() failed: " + os_reason(errno), false);
  if (::connect(fd.get(), addr, len) != 0) {
    if (errno != EINPROGRESS) throw io_error(os_reason(errno), false);
    if (wait_for(fd.get(), POLLOUT, deadline) == wait_end::deadline) {
      throw io_error("connecting", true);
    }
    int err = 0;
    socklen_t err_len = sizeof err;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &err_len);
    if (err != 0) throw io_error(os_reason(err), false);
  }
  return fd.release();
}

int connect_unix(const std::string& path, clock::time_point deadline) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) throw io_error("the socket path is too long", false);
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return connect_to(reinterpret_cast<const sockaddr*>(&a), sizeof a, AF_UNIX, deadline);
}

int connect_tcp(const store_url& u, clock::time_point deadline) {
  std::string last = "no address for '" + u.host + "'";
  for (const endpoint& e : resolve(u.host, u.port, deadline)) {
    try {
      const int fd =
          connect_to(reinterpret_cast<const sockaddr*>(&e.addr), e.len, e.family, deadline);
      const int on = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
      return fd;
    } catch (const io_error& e) {
      if (e.timed_out()) throw;
      last = e.what();  // the next address may answer (localhost: ::1, then 127.0.0.1)
    }
  }
  throw io_error(last, false);
}

short poll_events(tls_wants w) { return w == tls_wants::write ? POLLOUT : POLLIN; }

}  // namespace

int remaining_ms(clock::time_point deadline) {
  const auto left = deadline - clock::now();
  if (left <= clock::duration::zero()) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

wait_end wait_for(int fd, short events, clock::time_point deadline, int wake_fd) {
  pollfd p[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
  const nfds_t count = wake_fd >= 0 ? 2 : 1;
  for (;;) {
    const int ms = remaining_ms(deadline);
    const int r = ::poll(p, count, ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw io_error("poll() failed: " + os_reason(errno), false);
    }
    if (count == 2 && p[1].revents != 0) return wait_end::woken;
    if (p[0].revents != 0) return wait_end::data;  // errors and hang-ups surface in the next call
    if (ms == 0) return wait_end::deadline;
  }
}

stream::stream(int fd) : fd_(fd) {}

stream::~stream() {
  tls_.reset();
  ::close(fd_);
}

std::unique_ptr<stream> stream::open(const store_url& u, tls_context* tls,
                                     clock::time_point deadline) {
  if (u.kind == store_url::scheme::memory) throw io_error("memory: is not a Redis URL", false);
  const bool local = u.kind == store_url::scheme::unix_socket;
  std::unique_ptr<stream> s(
      new stream(local ? connect_unix(u.path, deadline) : connect_tcp(u, deadline)));
  if (u.kind != store_url::scheme::rediss) return s;
  if (tls == nullptr) throw io_error("TLS: no context", false);
  s->tls_ = std::make_unique<tls_session>(*tls, s->fd_, u.host);
  for (tls_wants w = s->tls_->handshake(); w != tls_wants::nothing; w = s->tls_->handshake()) {
    if (wait_for(s->fd_, poll_events(w), deadline) == wait_end::deadline) {
      throw io_error("in the TLS handshake", true);
    }
  }
  return s;
}

void stream::write_all(std::string_view bytes, clock::time_point deadline) {
  while (!bytes.empty()) {
    std::size_t sent = 0;
    short events = POLLOUT;
    if (tls_) {
      const tls_io r = tls_->write(bytes.data(), bytes.size());
      sent = r.bytes;
      events = poll_events(r.wants);
    } else {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && !try_again(errno)) throw io_error("write failed: " + os_reason(errno), false);
      sent = n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    bytes.remove_prefix(sent);
    if (sent == 0 && wait_for(fd_, events, deadline) == wait_end::deadline) {
      throw io_error("sending", true);
    }
  }
}

read_result stream::read_some(char* buf, std::size_t size, clock::time_point deadline, int wake_fd,
                              bool soft) {
  for (;;) {
    short events = POLLIN;
    if (tls_) {
      const tls_io r = tls_->read(buf, size);
      if (r.wants == tls_wants::nothing) return {r.bytes, wait_end::data};
      events = poll_events(r.wants);
    } else {
      const ssize_t n = ::recv(fd_, buf, size, 0);
      if (n > 0) return {static_cast<std::size_t>(n), wait_end::data};
      if (n == 0) throw io_error("connection closed by the server", false);
      if (!try_again(errno)) throw io_error("read failed: " + os_reason(errno), false);
    }
    const wait_end end = wait_for(fd_, events, deadline, wake_fd);
    if (end == wait_end::woken) return {0, end};
    if (end == wait_end::deadline) {
      if (soft) return {0, end};
      throw io_error("waiting for the reply", true);
    }
  }
}

bool stream::still_idle() {
  pollfd p{fd_, POLLIN, 0};
  const int r = ::poll(&p, 1, 0);
  if (r == 0) return true;
  if (r < 0 || !tls_) return false;  // readable while idle: closed, or bytes nobody asked for
  try {
    // TLS 1.3 servers send session tickets after the handshake: reading them is not a failure.
    char c = 0;
    return tls_->read(&c, 1).wants != tls_wants::nothing;
  } catch (const io_error&) {
    return false;
  }
}

}  // namespace mcpcxx::redis::detail
