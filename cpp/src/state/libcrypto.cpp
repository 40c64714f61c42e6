// Fills the libcrypto table by dlopen (MCPCXX_LAZY_LIBCRYPTO) or from the linked functions.
#include "state/libcrypto.hpp"

#include <stdexcept>

#ifdef MCPCXX_LAZY_LIBCRYPTO
#include <dlfcn.h>
#endif

namespace mcpcxx::state {

#ifdef MCPCXX_LAZY_LIBCRYPTO

namespace {

// What to do, said by every load failure.
constexpr const char* k_remedy =
    ": requestState needs OpenSSL 3's libcrypto; install it (Debian: libssl3) or build mcpcxx "
    "with -DMCPCXX_LAZY_LIBCRYPTO=OFF";

// Looks up `name` in `lib` as the type of `slot`; throws naming the missing function.
template <class F>
void resolve(void* lib, const std::string& soname, const char* name, F& slot) {
  void* sym = ::dlsym(lib, name);
  if (sym == nullptr) {
    throw std::runtime_error(soname + " lacks " + name + k_remedy);
  }
  slot = reinterpret_cast<F>(sym);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

}  // namespace

libcrypto_api load_libcrypto(const std::string& soname) {
  // Never closed: the table's pointers live as long as the process.
  void* lib = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    throw std::runtime_error("cannot load " + soname + " (" + (why != nullptr ? why : "unknown") +
                             ")" + k_remedy);
  }
  libcrypto_api a{};
  resolve(lib, soname, "EVP_EncodeBlock", a.encode_block);
  resolve(lib, soname, "EVP_DecodeBlock", a.decode_block);
  resolve(lib, soname, "EVP_Digest", a.digest);
  resolve(lib, soname, "EVP_sha256", a.sha256);
  resolve(lib, soname, "EVP_MD_fetch", a.md_fetch);
  resolve(lib, soname, "EVP_MD_CTX_new", a.md_ctx_new);
  resolve(lib, soname, "EVP_MD_CTX_free", a.md_ctx_free);
  resolve(lib, soname, "EVP_DigestInit_ex", a.digest_init);
  resolve(lib, soname, "EVP_DigestUpdate", a.digest_update);
  resolve(lib, soname, "EVP_DigestFinal_ex", a.digest_final);
  resolve(lib, soname, "EVP_CIPHER_CTX_new", a.cipher_ctx_new);
  resolve(lib, soname, "EVP_CIPHER_CTX_free", a.cipher_ctx_free);
  resolve(lib, soname, "EVP_CIPHER_CTX_ctrl", a.cipher_ctx_ctrl);
  resolve(lib, soname, "EVP_aes_256_gcm", a.aes_256_gcm);
  resolve(lib, soname, "EVP_EncryptInit_ex", a.encrypt_init);
  resolve(lib, soname, "EVP_EncryptUpdate", a.encrypt_update);
  resolve(lib, soname, "EVP_EncryptFinal_ex", a.encrypt_final);
  resolve(lib, soname, "EVP_DecryptInit_ex", a.decrypt_init);
  resolve(lib, soname, "EVP_DecryptUpdate", a.decrypt_update);
  resolve(lib, soname, "EVP_DecryptFinal_ex", a.decrypt_final);
  resolve(lib, soname, "RAND_bytes", a.rand_bytes);
  return a;
}

const libcrypto_api& libcrypto() {
  static const libcrypto_api api = load_libcrypto(MCPCXX_LIBCRYPTO_SONAME);
  return api;
}

bool libcrypto_is_lazy() noexcept { return true; }

#else

libcrypto_api load_libcrypto(const std::string& /*soname*/) { return libcrypto(); }

const libcrypto_api& libcrypto() {
  static const libcrypto_api api{&EVP_EncodeBlock,     &EVP_DecodeBlock,     &EVP_Digest,
                                 &EVP_sha256,          &EVP_MD_fetch,        &EVP_MD_CTX_new,
                                 &EVP_MD_CTX_free,     &EVP_DigestInit_ex,   &EVP_DigestUpdate,
                                 &EVP_DigestFinal_ex,  &EVP_CIPHER_CTX_new,  &EVP_CIPHER_CTX_free,
                                 &EVP_CIPHER_CTX_ctrl, &EVP_aes_256_gcm,     &EVP_EncryptInit_ex,
                                 &EVP_EncryptUpdate,   &EVP_EncryptFinal_ex, &EVP_DecryptInit_ex,
                                 &EVP_DecryptUpdate,   &EVP_DecryptFinal_ex, &RAND_bytes};
  return api;
}

bool libcrypto_is_lazy() noexcept { return false; }

#endif

}  // namespace mcpcxx::state
