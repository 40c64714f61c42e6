// The OpenSSL functions the TLS of rediss:// uses (redis/tls.cpp), reached through one table.
//
// With MCPCXX_LAZY_LIBCRYPTO (native builds' default, state/libcrypto.hpp) the redis layer has no
// link-time dependency on OpenSSL: the table is filled by dlopen/dlsym at the first rediss://
// connection (libcrypto's functions are found through libssl's own dependency), so a server that
// never connects with TLS never maps OpenSSL. Without it (the Python wheel, whose auditwheel
// repair must see the dependency to vendor it) the table holds the linked functions.
// Only functions are listed: OpenSSL's macros (SSL_CTX_set_mode, BIO_set_retry_read, ...) are
// spelled out with the ctrl and flag functions they expand to.
// Thread-safety: libssl() may be called from any thread; the first call loads the library once
// (a function-local static), and a failed load is retried by the next call.
#pragma once

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

namespace mcpcxx::redis::detail {

/// The libssl and libcrypto entry points redis/tls.cpp calls.
struct libssl_api {
  decltype(&TLS_client_method) client_method;
  decltype(&SSL_CTX_new) ctx_new;
  decltype(&SSL_CTX_free) ctx_free;
  decltype(&SSL_CTX_ctrl) ctx_ctrl;
  decltype(&SSL_CTX_set_verify) ctx_set_verify;
  decltype(&SSL_CTX_set_default_verify_paths) ctx_default_verify_paths;
  decltype(&SSL_CTX_load_verify_locations) ctx_load_verify_locations;
  decltype(&SSL_new) ssl_new;
  decltype(&SSL_free) ssl_free;
  decltype(&SSL_ctrl) ssl_ctrl;
  decltype(&SSL_set_bio) set_bio;
  decltype(&SSL_set_connect_state) set_connect_state;
  decltype(&SSL_get0_param) get0_param;
  decltype(&SSL_set1_host) set1_host;
  decltype(&SSL_connect) connect;
  decltype(&SSL_get_error) get_error;
  decltype(&SSL_get_verify_result) get_verify_result;
  decltype(&SSL_read_ex) read_ex;
  decltype(&SSL_write_ex) write_ex;
  decltype(&BIO_new) bio_new;
  decltype(&BIO_set_data) bio_set_data;
  decltype(&BIO_get_data) bio_get_data;
  decltype(&BIO_set_init) bio_set_init;
  decltype(&BIO_set_flags) bio_set_flags;
  decltype(&BIO_clear_flags) bio_clear_flags;
  decltype(&BIO_get_new_index) bio_get_new_index;
  decltype(&BIO_meth_new) bio_meth_new;
  decltype(&BIO_meth_set_write) bio_meth_set_write;
  decltype(&BIO_meth_set_read) bio_meth_set_read;
  decltype(&BIO_meth_set_ctrl) bio_meth_set_ctrl;
  decltype(&BIO_meth_set_create) bio_meth_set_create;
  decltype(&ERR_get_error) err_get_error;
  decltype(&ERR_peek_error) err_peek_error;
  decltype(&ERR_clear_error) err_clear_error;
  decltype(&ERR_reason_error_string) err_reason_error_string;
  decltype(&X509_VERIFY_PARAM_set1_ip_asc) param_set1_ip_asc;
  decltype(&X509_verify_cert_error_string) verify_cert_error_string;
};

/// The table; throws std::runtime_error naming the library and the loader's reason when libssl
/// cannot be loaded or lacks a function (lazy builds only).
const libssl_api& libssl();

/// True when this build loads libssl on first use rather than linking it.
bool libssl_is_lazy() noexcept;

}  // namespace mcpcxx::redis::detail
