// The libcrypto functions cpp/src/state uses, reached through one table.
//
// With MCPCXX_LAZY_LIBCRYPTO (the default for native builds) the library has no link-time
// dependency on libcrypto: the table is filled by dlopen/dlsym the first time a state is sealed,
// opened, digested or a key decoded, so a server that never uses requestState never maps OpenSSL
// (about 1.4 MiB of RSS, all of it the dynamic linker's relocations). Without it (the Python
// wheel, whose auditwheel repair must see the dependency to vendor it) the table holds the
// linked functions.
// Thread-safety: libcrypto() may be called from any thread; the first call loads the library
// once (a function-local static), and a failed load is retried by the next call.
#pragma once

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string>

namespace mcpcxx::state {

/// The libcrypto entry points the state layer calls.
struct libcrypto_api {
  decltype(&EVP_EncodeBlock) encode_block;
  decltype(&EVP_DecodeBlock) decode_block;
  decltype(&EVP_Digest) digest;
  decltype(&EVP_sha256) sha256;
  decltype(&EVP_MD_fetch) md_fetch;
  decltype(&EVP_MD_CTX_new) md_ctx_new;
  decltype(&EVP_MD_CTX_free) md_ctx_free;
  decltype(&EVP_DigestInit_ex) digest_init;
  decltype(&EVP_DigestUpdate) digest_update;
  decltype(&EVP_DigestFinal_ex) digest_final;
  decltype(&EVP_CIPHER_CTX_new) cipher_ctx_new;
  decltype(&EVP_CIPHER_CTX_free) cipher_ctx_free;
  decltype(&EVP_CIPHER_CTX_ctrl) cipher_ctx_ctrl;
  decltype(&EVP_aes_256_gcm) aes_256_gcm;
  decltype(&EVP_EncryptInit_ex) encrypt_init;
  decltype(&EVP_EncryptUpdate) encrypt_update;
  decltype(&EVP_EncryptFinal_ex) encrypt_final;
  decltype(&EVP_DecryptInit_ex) decrypt_init;
  decltype(&EVP_DecryptUpdate) decrypt_update;
  decltype(&EVP_DecryptFinal_ex) decrypt_final;
  decltype(&RAND_bytes) rand_bytes;
};

/// The table; throws std::runtime_error naming the library and the loader's reason when
/// libcrypto cannot be loaded or lacks a function (lazy builds only).
const libcrypto_api& libcrypto();

/// Loads the table from the shared library `soname` (lazy builds; the test seam for a library
/// that is missing). Throws std::runtime_error as libcrypto() does.
libcrypto_api load_libcrypto(const std::string& soname);

/// True when this build loads libcrypto on first use rather than linking it.
bool libcrypto_is_lazy() noexcept;

}  // namespace mcpcxx::state
