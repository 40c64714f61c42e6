// Sealed requestState (2026-07-28 multi-round-trip requests): the server's state travels through
// the client, which the spec says to treat as attacker-controlled, so it is sealed with an AEAD
// (AES-256-GCM from OpenSSL's libcrypto) under the key ring's current key.
//
// Wire form: "v1" format, base64url without padding of
//   version (1 byte, 0x01) | expiry (8 bytes, big-endian Unix seconds) | nonce (12 random bytes)
//   | ciphertext | GCM tag (16 bytes)
// The associated data is a fixed label plus the version and expiry bytes, so neither can be
// changed. The plaintext is compact JSON {m: method, d: params digest, p: principal identity
// digest, s: payload}: the binding travels inside the authenticated ciphertext, so any change of a
// bit fails authentication, and a state that authenticates but belongs to another request is told
// apart (other method, other params, other principal) instead of looking tampered. Nonces are
// random: one key seals well below the 2^32 states where GCM's random-nonce bound matters;
// rotate the key (key_ring) long before that.
//
// Thread-safety: a sealer is immutable after construction; seal and open may run concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

#include "state/key_ring.hpp"

namespace mcpcxx::state {

/// The request a state continues.
struct binding {
  std::string method;         ///< "tools/call", "prompts/get" or "resources/read"
  std::string params_digest;  ///< SHA-256 of the params without inputResponses/requestState/_meta
  /// SHA-256 of the principal's identity (principal_identity()); empty when there is none.
  std::string principal_digest;
};

/// The binding of `method` with `params` (an object or null) for the principal whose identity
/// is `identity` ("": none). The digest covers the params' compact JSON (object keys sorted)
/// minus inputResponses, requestState and _meta, which legitimately change from one round to
/// the next; the identity leaves out what a token refresh changes, so the user keeps the state.
binding bind_request(std::string_view method, const json& params, std::string_view identity);

/// Why a state was refused; each maps to its own row of the situation table.
enum class refusal {
  malformed,        ///< not base64url, too short, too long, or an unknown format version
  not_authentic,    ///< authentication failed under every key: altered, or sealed elsewhere
  expired,          ///< authentic, but its expiry passed
  other_method,     ///< authentic, issued for another method
  other_params,     ///< authentic, issued for the same method with other params
  other_principal,  ///< authentic, issued to another principal (or with/without one)
};

/// Stable lower-case name of `r` for logs ("not_authentic").
std::string_view to_string(refusal r) noexcept;

/// The outcome of open(): the payload, or the refusal.
struct open_result {
  bool ok = false;
  json payload;  ///< ok: the sealed payload
  refusal why = refusal::malformed;
  std::int64_t expired_for_s = 0;  ///< expired: seconds since the expiry
  std::string sealed_method;       ///< other_method: the method the state was issued for
};

/// Seals and opens requestState.
class sealer {
 public:
  using clock = std::chrono::system_clock;
  /// Longest state text open() reads; longer text is refused as malformed.
  static constexpr std::size_t k_max_text = std::size_t{1} << 20;

  /// Seals with `keys.current()`; states live `ttl` (> 0; std::invalid_argument otherwise).
  sealer(key_ring keys, std::chrono::seconds ttl);

  /// The state text for `payload` bound to `b`, expiring `ttl` after `now`.
  std::string seal(const binding& b, const json& payload, clock::time_point now) const;
  /// Opens `text` for a request bound to `b` at `now`.
  open_result open(std::string_view text, const binding& b, clock::time_point now) const;
  /// How long a state lives.
  std::chrono::seconds ttl() const noexcept { return ttl_; }

 private:
  key_ring keys_;
  std::chrono::seconds ttl_;
};

}  // namespace mcpcxx::state
