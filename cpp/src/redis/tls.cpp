// TLS sessions through libssl (redis/libssl.hpp's table) over our own socket BIO (redis/tls.hpp).
#include "redis/tls.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>

#include "redis/libssl.hpp"
#include "redis/stream.hpp"

namespace mcpcxx::redis::detail {

namespace {

// The BIO's data is the tls_session's fd member, which outlives the BIO (SSL_free frees it).
int fd_of(BIO* b) { return *static_cast<const int*>(libssl().bio_get_data(b)); }

bool would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK || err == EINTR; }

// BIO_clear_retry_flags, BIO_set_retry_write and BIO_set_retry_read, spelled out.
int tls_bio_write(BIO* b, const char* data, int len) {
  const libssl_api& ssl = libssl();
  ssl.bio_clear_flags(b, BIO_FLAGS_RWS | BIO_FLAGS_SHOULD_RETRY);
  const ssize_t n = ::send(fd_of(b), data, static_cast<std::size_t>(len), MSG_NOSIGNAL);
  if (n < 0 && would_block(errno)) ssl.bio_set_flags(b, BIO_FLAGS_WRITE | BIO_FLAGS_SHOULD_RETRY);
  return static_cast<int>(n);
}

int tls_bio_read(BIO* b, char* out, int len) {
  const libssl_api& ssl = libssl();
  ssl.bio_clear_flags(b, BIO_FLAGS_RWS | BIO_FLAGS_SHOULD_RETRY);
  const ssize_t n = ::recv(fd_of(b), out, static_cast<std::size_t>(len), 0);
  if (n < 0 && would_block(errno)) ssl.bio_set_flags(b, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY);
  return static_cast<int>(n);
}

long tls_bio_ctrl(BIO* /*b*/, int cmd, long /*num*/, void* /*ptr*/) {
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

int tls_bio_create(BIO* b) {
  libssl().bio_set_init(b, 1);
  return 1;
}

// A socket BIO like OpenSSL's own, except that it sends with MSG_NOSIGNAL.
BIO_METHOD* socket_bio_method() {
  static BIO_METHOD* const method = [] {
    const libssl_api& ssl = libssl();
    BIO_METHOD* m =
        ssl.bio_meth_new(ssl.bio_get_new_index() | BIO_TYPE_SOURCE_SINK, "mcpcxx-redis");
    ssl.bio_meth_set_write(m, tls_bio_write);
    ssl.bio_meth_set_read(m, tls_bio_read);
    ssl.bio_meth_set_ctrl(m, tls_bio_ctrl);
    ssl.bio_meth_set_create(m, tls_bio_create);
    return m;
  }();
  return method;
}

// The first queued OpenSSL error's reason, or `fallback`; empties the queue.
std::string openssl_reason(const char* fallback) {
  const libssl_api& ssl = libssl();
  const unsigned long e = ssl.err_get_error();
  ssl.err_clear_error();
  const char* reason = e != 0 ? ssl.err_reason_error_string(e) : nullptr;
  return reason != nullptr ? reason : fallback;
}

bool is_ip_literal(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

// The table, or io_error when libssl cannot be loaded (lazy builds).
const libssl_api& loaded_libssl() {
  try {
    return libssl();
  } catch (const std::runtime_error& e) {
    throw io_error(std::string("TLS: ") + e.what(), false);
  }
}

}  // namespace

tls_context::tls_context(const std::string& ca_file) {
  const libssl_api& ssl = loaded_libssl();
  ctx_ = ssl.ctx_new(ssl.client_method());
  if (ctx_ == nullptr) throw io_error("TLS: " + openssl_reason("SSL_CTX_new failed"), false);
  ssl.ctx_ctrl(ctx_, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, nullptr);
  ssl.ctx_ctrl(ctx_, SSL_CTRL_MODE,
               SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE, nullptr);
  ssl.ctx_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  const int ok = ca_file.empty() ? ssl.ctx_default_verify_paths(ctx_)
                                 : ssl.ctx_load_verify_locations(ctx_, ca_file.c_str(), nullptr);
  if (ok != 1) {
    const std::string what = ca_file.empty() ? "the system CAs" : "the CA file '" + ca_file + "'";
    const std::string reason = openssl_reason("unreadable");
    ssl.ctx_free(ctx_);
    throw io_error("TLS: cannot load " + what + ": " + reason, false);
  }
}

tls_context::~tls_context() { libssl().ctx_free(ctx_); }

tls_session::tls_session(const tls_context& ctx, int fd, const std::string& host)
    : ssl_(libssl().ssl_new(ctx.get())), fd_(fd) {
  const libssl_api& ssl = libssl();
  BIO* bio = ssl_ != nullptr ? ssl.bio_new(socket_bio_method()) : nullptr;
  if (bio == nullptr) {
    ssl.ssl_free(ssl_);
    throw io_error("TLS: " + openssl_reason("SSL_new failed"), false);
  }
  ssl.bio_set_data(bio, &fd_);
  ssl.set_bio(ssl_, bio, bio);
  ssl.set_connect_state(ssl_);
  // An IP literal is checked against the certificate's IP addresses and sends no SNI.
  bool named = false;
  if (is_ip_literal(host)) {
    named = ssl.param_set1_ip_asc(ssl.get0_param(ssl_), host.c_str()) == 1;
  } else {
    // SSL_set_tlsext_host_name, spelled out.
    named = ssl.set1_host(ssl_, host.c_str()) == 1 &&
            ssl.ssl_ctrl(ssl_, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                         const_cast<char*>(host.c_str())) == 1;
  }
  if (!named) {
    ssl.ssl_free(ssl_);
    throw io_error("TLS: cannot check the name '" + host + "': " + openssl_reason("refused"),
                   false);
  }
}

tls_session::~tls_session() { libssl().ssl_free(ssl_); }

tls_wants tls_session::handshake() {
  const libssl_api& ssl = libssl();
  ssl.err_clear_error();
  errno = 0;
  const int r = ssl.connect(ssl_);
  if (r == 1) return tls_wants::nothing;
  const int err = ssl.get_error(ssl_, r);
  if (err == SSL_ERROR_WANT_READ) return tls_wants::read;
  if (err == SSL_ERROR_WANT_WRITE) return tls_wants::write;
  std::string why;
  if (err == SSL_ERROR_SYSCALL && ssl.err_peek_error() == 0) {
    why = errno != 0 ? std::strerror(errno) : "the server closed the connection";
  } else {
    why = openssl_reason("protocol error");
  }
  const long verify = ssl.get_verify_result(ssl_);
  if (verify != X509_V_OK) why += std::string(" (") + ssl.verify_cert_error_string(verify) + ")";
  throw io_error("TLS handshake failed: " + why, false);
}

namespace {

tls_io tls_outcome(ssl_st* session, int ok, std::size_t moved, const char* doing) {
  if (ok == 1) return {moved, tls_wants::nothing};
  const libssl_api& ssl = libssl();
  const int err = ssl.get_error(session, ok);
  if (err == SSL_ERROR_WANT_READ) return {0, tls_wants::read};
  if (err == SSL_ERROR_WANT_WRITE) return {0, tls_wants::write};
  if (err == SSL_ERROR_ZERO_RETURN) throw io_error("connection closed by the server", false);
  if (err == SSL_ERROR_SYSCALL && ssl.err_peek_error() == 0) {
    const int e = errno;
    throw io_error(e != 0 ? std::string(doing) + " failed: " + std::strerror(e)
                          : "connection closed by the server",
                   false);
  }
  // OpenSSL 3 reports a peer's close without close_notify as "unexpected eof while reading".
  throw io_error(std::string("TLS ") + doing + " failed: " + openssl_reason("protocol error"),
                 false);
}

}  // namespace

tls_io tls_session::read(char* buf, std::size_t size) {
  const libssl_api& ssl = libssl();
  ssl.err_clear_error();
  errno = 0;
  std::size_t got = 0;
  const int ok = ssl.read_ex(ssl_, buf, size, &got);
  return tls_outcome(ssl_, ok, got, "read");
}

tls_io tls_session::write(const char* buf, std::size_t size) {
  const libssl_api& ssl = libssl();
  ssl.err_clear_error();
  errno = 0;
  std::size_t put = 0;
  const int ok = ssl.write_ex(ssl_, buf, size, &put);
  return tls_outcome(ssl_, ok, put, "write");
}

}  // namespace mcpcxx::redis::detail
