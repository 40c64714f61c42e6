// Byte codecs of the sealed requestState: base64url (RFC 4648 §5, no padding) for the wire form,
// base64 (standard or url alphabet, padding optional) for configured keys, SHA-256 digests.
// All of it goes through OpenSSL (libcrypto); nothing here is a home-made primitive.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcpcxx::state {

/// `bytes` as base64url without padding.
std::string base64url_encode(std::string_view bytes);
/// Decodes base64 in either alphabet ("+/" or "-_"), padding optional; nullopt when malformed.
std::optional<std::string> base64_decode_any(std::string_view text);
/// The raw 32-byte SHA-256 digest of `bytes`.
std::string sha256(std::string_view bytes);

}  // namespace mcpcxx::state
