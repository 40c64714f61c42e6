// Byte codecs of the sealed requestState: base64url (RFC 4648 §5, no padding) for the wire form,
// base64 (standard or url alphabet, padding optional) for configured keys, SHA-256 digests; and
// hex text, the engine's one hex encoder (digests and random ids as hex digits).
// base64 and SHA-256 go through OpenSSL (libcrypto); nothing here is a home-made primitive.
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace mcpcxx::state {

/// `bytes` as base64url without padding.
std::string base64url_encode(std::string_view bytes);
/// Decodes base64 in either alphabet ("+/" or "-_"), padding optional; nullopt when malformed.
std::optional<std::string> base64_decode_any(std::string_view text);
/// The raw 32-byte SHA-256 digest of `bytes`.
std::string sha256(std::string_view bytes);

/// The letters hex_encode writes for the digits 10 to 15.
enum class hex_case : std::uint8_t { lower, upper };
/// `bytes` as hex digits, two per byte, high nibble first: "\x0f\xa0" -> "0fa0" (or "0FA0").
std::string hex_encode(std::string_view bytes, hex_case letters = hex_case::lower);

/// SHA-256 fed in pieces (buffered, so byte-at-a-time writes stay cheap). One owner, one thread;
/// each thread reuses one OpenSSL context for its streams (a nested stream gets its own).
class sha256_stream {
 public:
  sha256_stream();
  ~sha256_stream();
  sha256_stream(const sha256_stream&) = delete;
  sha256_stream& operator=(const sha256_stream&) = delete;
  /// Appends `bytes` to the digested input.
  void update(std::string_view bytes);
  /// The raw 32-byte digest of everything appended; the stream is spent afterwards.
  std::string finish();

 private:
  void flush();
  void release() noexcept;
  evp_md_ctx_st* md_ = nullptr;
  bool borrowed_ = false;  ///< md_ is this thread's cached context
  std::array<char, 512> buffer_{};
  std::size_t used_ = 0;
};

/// The SHA-256 of `value.dump()` in compact form (object keys sorted, invalid UTF-8 replaced),
/// computed without building the string; members of a top-level object named in `skip` are left
/// out as if erased first.
std::string json_sha256(const json& value, std::initializer_list<std::string_view> skip = {});

}  // namespace mcpcxx::state
