// TLS for rediss:// with OpenSSL's libssl (loaded on first use in lazy builds, redis/libssl.hpp)
// on our non-blocking sockets: the server certificate is verified against the system CAs (or the
// URL's ?ca= file) and its name against the URL's host.
// The socket BIO writes with MSG_NOSIGNAL, so a peer that went away is an error, not SIGPIPE.
// Thread-safety: a tls_context may be shared by threads once made; a tls_session is used by one
// thread at a time.
#pragma once

#include <cstddef>
#include <string>

struct ssl_ctx_st;  // OpenSSL's SSL_CTX
struct ssl_st;      // OpenSSL's SSL

namespace mcpcxx::redis::detail {

/// Trust settings shared by a client's TLS connections (an SSL_CTX).
class tls_context {
 public:
  /// Loads `ca_file`, or the system CAs when it is empty (and libssl itself in lazy builds);
  /// throws io_error naming the failure.
  explicit tls_context(const std::string& ca_file);
  ~tls_context();
  tls_context(const tls_context&) = delete;
  tls_context& operator=(const tls_context&) = delete;

  /// The SSL_CTX.
  ssl_ctx_st* get() const noexcept { return ctx_; }

 private:
  ssl_ctx_st* ctx_ = nullptr;
};

/// What a TLS call needs before it can go on.
enum class tls_wants { nothing, read, write };

/// The result of a TLS read or write: bytes moved, or what to wait for.
struct tls_io {
  std::size_t bytes = 0;
  tls_wants wants = tls_wants::nothing;
};

/// One TLS connection over a connected socket.
class tls_session {
 public:
  /// Prepares the client side for `host` (SNI and the name checked); throws io_error.
  tls_session(const tls_context& ctx, int fd, const std::string& host);
  ~tls_session();
  tls_session(const tls_session&) = delete;
  tls_session& operator=(const tls_session&) = delete;

  /// One step of the handshake: nothing once done; throws io_error("TLS handshake failed: ...").
  tls_wants handshake();
  /// Reads up to `size` bytes; throws io_error when closed or failed.
  tls_io read(char* buf, std::size_t size);
  /// Writes up to `size` bytes (retry with the same bytes after a want); throws io_error.
  tls_io write(const char* buf, std::size_t size);

 private:
  ssl_st* ssl_ = nullptr;
  int fd_;  ///< the socket, which the BIO reads through a pointer to this member
};

}  // namespace mcpcxx::redis::detail
