// Fills the libssl table by dlopen (MCPCXX_LAZY_LIBCRYPTO) or from the linked functions.
#include "redis/libssl.hpp"

#include <stdexcept>
#include <string>

#ifdef MCPCXX_LAZY_LIBCRYPTO
#include <dlfcn.h>
#endif

namespace mcpcxx::redis::detail {

#ifdef MCPCXX_LAZY_LIBCRYPTO

namespace {

constexpr const char* k_libssl_remedy =
    ": rediss:// needs OpenSSL 3's libssl; install it (Debian: libssl3) or build mcpcxx with "
    "-DMCPCXX_LAZY_LIBCRYPTO=OFF";

// Looks up `name` in `lib` (and its dependencies) as the type of `slot`; throws naming it.
template <class F>
void find_symbol(void* lib, const char* name, F& slot) {
  void* sym = ::dlsym(lib, name);
  if (sym == nullptr) {
    throw std::runtime_error(std::string(MCPCXX_LIBSSL_SONAME) + " lacks " + name +
                             k_libssl_remedy);
  }
  slot = reinterpret_cast<F>(sym);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

void find_ssl_symbols(void* lib, libssl_api& a) {
  find_symbol(lib, "TLS_client_method", a.client_method);
  find_symbol(lib, "SSL_CTX_new", a.ctx_new);
  find_symbol(lib, "SSL_CTX_free", a.ctx_free);
  find_symbol(lib, "SSL_CTX_ctrl", a.ctx_ctrl);
  find_symbol(lib, "SSL_CTX_set_verify", a.ctx_set_verify);
  find_symbol(lib, "SSL_CTX_set_default_verify_paths", a.ctx_default_verify_paths);
  find_symbol(lib, "SSL_CTX_load_verify_locations", a.ctx_load_verify_locations);
  find_symbol(lib, "SSL_new", a.ssl_new);
  find_symbol(lib, "SSL_free", a.ssl_free);
  find_symbol(lib, "SSL_ctrl", a.ssl_ctrl);
  find_symbol(lib, "SSL_set_bio", a.set_bio);
  find_symbol(lib, "SSL_set_connect_state", a.set_connect_state);
  find_symbol(lib, "SSL_get0_param", a.get0_param);
  find_symbol(lib, "SSL_set1_host", a.set1_host);
  find_symbol(lib, "SSL_connect", a.connect);
  find_symbol(lib, "SSL_get_error", a.get_error);
  find_symbol(lib, "SSL_get_verify_result", a.get_verify_result);
  find_symbol(lib, "SSL_read_ex", a.read_ex);
  find_symbol(lib, "SSL_write_ex", a.write_ex);
}

void find_crypto_symbols(void* lib, libssl_api& a) {
  find_symbol(lib, "BIO_new", a.bio_new);
  find_symbol(lib, "BIO_set_data", a.bio_set_data);
  find_symbol(lib, "BIO_get_data", a.bio_get_data);
  find_symbol(lib, "BIO_set_init", a.bio_set_init);
  find_symbol(lib, "BIO_set_flags", a.bio_set_flags);
  find_symbol(lib, "BIO_clear_flags", a.bio_clear_flags);
  find_symbol(lib, "BIO_get_new_index", a.bio_get_new_index);
  find_symbol(lib, "BIO_meth_new", a.bio_meth_new);
  find_symbol(lib, "BIO_meth_set_write", a.bio_meth_set_write);
  find_symbol(lib, "BIO_meth_set_read", a.bio_meth_set_read);
  find_symbol(lib, "BIO_meth_set_ctrl", a.bio_meth_set_ctrl);
  find_symbol(lib, "BIO_meth_set_create", a.bio_meth_set_create);
  find_symbol(lib, "ERR_get_error", a.err_get_error);
  find_symbol(lib, "ERR_peek_error", a.err_peek_error);
  find_symbol(lib, "ERR_clear_error", a.err_clear_error);
  find_symbol(lib, "ERR_reason_error_string", a.err_reason_error_string);
  find_symbol(lib, "X509_VERIFY_PARAM_set1_ip_asc", a.param_set1_ip_asc);
  find_symbol(lib, "X509_verify_cert_error_string", a.verify_cert_error_string);
}

libssl_api load_libssl() {
  // Never closed: the table's pointers live as long as the process.
  void* lib = ::dlopen(MCPCXX_LIBSSL_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    throw std::runtime_error(std::string("cannot load ") + MCPCXX_LIBSSL_SONAME + " (" +
                             (why != nullptr ? why : "unknown") + ")" + k_libssl_remedy);
  }
  libssl_api a{};
  find_ssl_symbols(lib, a);
  find_crypto_symbols(lib, a);
  return a;
}

}  // namespace

const libssl_api& libssl() {
  static const libssl_api api = load_libssl();
  return api;
}

bool libssl_is_lazy() noexcept { return true; }

#else

const libssl_api& libssl() {
  static const libssl_api api{&TLS_client_method,
                              &SSL_CTX_new,
                              &SSL_CTX_free,
                              &SSL_CTX_ctrl,
                              &SSL_CTX_set_verify,
                              &SSL_CTX_set_default_verify_paths,
                              &SSL_CTX_load_verify_locations,
                              &SSL_new,
                              &SSL_free,
                              &SSL_ctrl,
                              &SSL_set_bio,
                              &SSL_set_connect_state,
                              &SSL_get0_param,
                              &SSL_set1_host,
                              &SSL_connect,
                              &SSL_get_error,
                              &SSL_get_verify_result,
                              &SSL_read_ex,
                              &SSL_write_ex,
                              &BIO_new,
                              &BIO_set_data,
                              &BIO_get_data,
                              &BIO_set_init,
                              &BIO_set_flags,
                              &BIO_clear_flags,
                              &BIO_get_new_index,
                              &BIO_meth_new,
                              &BIO_meth_set_write,
                              &BIO_meth_set_read,
                              &BIO_meth_set_ctrl,
                              &BIO_meth_set_create,
                              &ERR_get_error,
                              &ERR_peek_error,
                              &ERR_clear_error,
                              &ERR_reason_error_string,
                              &X509_VERIFY_PARAM_set1_ip_asc,
                              &X509_verify_cert_error_string};
  return api;
}

bool libssl_is_lazy() noexcept { return false; }

#endif

}  // namespace mcpcxx::redis::detail
