// Test support: a TCP listener on 127.0.0.1 that is not Redis. It accepts one connection, reads
// once, answers with fixed bytes and closes (an HTTP server, a plain-text reply to a TLS hello).
// Thread-safety: its own thread serves the connection; construct and destroy on one thread.
#pragma once

#include <cstdint>
#include <netinet/in.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace mcpcxx::testing {

/// Answers the first connection with `answer` (see the file comment).
class fake_server {
 public:
  /// Listens on a free port and serves one connection in the background; throws
  /// std::runtime_error when it cannot listen.
  explicit fake_server(std::string answer) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0 || ::listen(fd_, 4) != 0) {
      ::close(fd_);
      throw std::runtime_error("fake_server: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, answer = std::move(answer)] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[256];
      [[maybe_unused]] const auto got = ::recv(c, buf, sizeof buf, 0);
      [[maybe_unused]] const auto sent = ::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(c);
    });
  }
  /// Stops listening and joins the thread.
  ~fake_server() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  fake_server(const fake_server&) = delete;
  fake_server& operator=(const fake_server&) = delete;
  /// The port it listens on.
  std::uint16_t port() const { return port_; }

 private:
  int fd_;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace mcpcxx::testing
