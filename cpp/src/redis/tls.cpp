// TLS sessions through libssl over our own socket BIO (redis/tls.hpp).
#include "redis/tls.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <string>
#include <sys/socket.h>

#include "redis/stream.hpp"

namespace mcpcxx::redis::detail {

namespace {

// The BIO's data is the tls_session's fd member, which outlives the BIO (SSL_free frees it).
int fd_of(BIO* b) { return *static_cast<const int*>(BIO_get_data(b)); }

bool would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK || err == EINTR; }

int tls_bio_write(BIO* b, const char* data, int len) {
  BIO_clear_retry_flags(b);
  const ssize_t n = ::send(fd_of(b), data, static_cast<std::size_t>(len), MSG_NOSIGNAL);
  if (n < 0 && would_block(errno)) BIO_set_retry_write(b);
  return static_cast<int>(n);
}

int tls_bio_read(BIO* b, char* out, int len) {
  BIO_clear_retry_flags(b);
  const ssize_t n = ::recv(fd_of(b), out, static_cast<std::size_t>(len), 0);
  if (n < 0 && would_block(errno)) BIO_set_retry_read(b);
  return static_cast<int>(n);
}

long tls_bio_ctrl(BIO* /*b*/, int cmd, long /*num*/, void* /*ptr*/) {
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

int tls_bio_create(BIO* b) {
  BIO_set_init(b, 1);
  return 1;
}

// A socket BIO like OpenSSL's own, except that it sends with MSG_NOSIGNAL.
BIO_METHOD* socket_bio_method() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "mcpcxx-redis");
    BIO_meth_set_write(m, tls_bio_write);
    BIO_meth_set_read(m, tls_bio_read);
    BIO_meth_set_ctrl(m, tls_bio_ctrl);
    BIO_meth_set_create(m, tls_bio_create);
    return m;
  }();
  return method;
}

// The first queued OpenSSL error's reason, or `fallback`; empties the queue.
std::string openssl_reason(const char* fallback) {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  const char* reason = e != 0 ? ERR_reason_error_string(e) : nullptr;
  return reason != nullptr ? reason : fallback;
}

bool is_ip_literal(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

tls_context::tls_context(const std::string& ca_file) : ctx_(SSL_CTX_new(TLS_client_method())) {
  if (ctx_ == nullptr) throw io_error("TLS: " + openssl_reason("SSL_CTX_new failed"), false);
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_mode(ctx_, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
  const int ok = ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx_)
                                 : SSL_CTX_load_verify_locations(ctx_, ca_file.c_str(), nullptr);
  if (ok != 1) {
    const std::string what = ca_file.empty() ? "the system CAs" : "the CA file '" + ca_file + "'";
    const std::string reason = openssl_reason("unreadable");
    SSL_CTX_free(ctx_);
    throw io_error("TLS: cannot load " + what + ": " + reason, false);
  }
}

tls_context::~tls_context() { SSL_CTX_free(ctx_); }

tls_session::tls_session(const tls_context& ctx, int fd, const std::string& host)
    : ssl_(SSL_new(ctx.get())), fd_(fd) {
  BIO* bio = ssl_ != nullptr ? BIO_new(socket_bio_method()) : nullptr;
  if (bio == nullptr) {
    SSL_free(ssl_);
    throw io_error("TLS: " + openssl_reason("SSL_new failed"), false);
  }
  BIO_set_data(bio, &fd_);
  SSL_set_bio(ssl_, bio, bio);
  SSL_set_connect_state(ssl_);
  // An IP literal is checked against the certificate's IP addresses and sends no SNI.
  bool named = false;
  if (is_ip_literal(host)) {
    named = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str()) == 1;
  } else {
    named =
        SSL_set1_host(ssl_, host.c_str()) == 1 && SSL_set_tlsext_host_name(ssl_, host.c_str()) == 1;
  }
  if (!named) {
    SSL_free(ssl_);
    throw io_error("TLS: cannot check the name '" + host + "': " + openssl_reason("refused"),
                   false);
  }
}

tls_session::~tls_session() { SSL_free(ssl_); }

tls_wants tls_session::handshake() {
  ERR_clear_error();
  const int r = SSL_connect(ssl_);
  if (r == 1) return tls_wants::nothing;
  const int err = SSL_get_error(ssl_, r);
  if (err == SSL_ERROR_WANT_READ) return tls_wants::read;
  if (err == SSL_ERROR_WANT_WRITE) return tls_wants::write;
  std::string why;
  if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
    why = errno != 0 ? std::strerror(errno) : "the server closed the connection";
  } else {
    why = openssl_reason("protocol error");
  }
  const long verify = SSL_get_verify_result(ssl_);
  if (verify != X509_V_OK) why += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
  throw io_error("TLS handshake failed: " + why, false);
}

namespace {

tls_io tls_outcome(ssl_st* ssl, int ok, std::size_t moved, const char* doing) {
  if (ok == 1) return {moved, tls_wants::nothing};
  const int err = SSL_get_error(ssl, ok);
  if (err == SSL_ERROR_WANT_READ) return {0, tls_wants::read};
  if (err == SSL_ERROR_WANT_WRITE) return {0, tls_wants::write};
  if (err == SSL_ERROR_ZERO_RETURN) throw io_error("connection closed by the server", false);
  if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
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
  ERR_clear_error();
  errno = 0;
  std::size_t got = 0;
  const int ok = SSL_read_ex(ssl_, buf, size, &got);
  return tls_outcome(ssl_, ok, got, "read");
}

tls_io tls_session::write(const char* buf, std::size_t size) {
  ERR_clear_error();
  errno = 0;
  std::size_t put = 0;
  const int ok = SSL_write_ex(ssl_, buf, size, &put);
  return tls_outcome(ssl_, ok, put, "write");
}

}  // namespace mcpcxx::redis::detail
