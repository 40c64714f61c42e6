// The keys that seal and open requestState (AES-256-GCM, 32 bytes each).
// The current key seals; every key (current first, then the previous ones) opens, so a key can be
// rotated without refusing states issued just before the change. Replicas configured with the
// same keys accept each other's states. Without configuration a fresh random key (getrandom(2)) is
// drawn: states then open only on this server instance and die with it.
// Thread-safety: immutable after construction; any thread may read it.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

namespace mcpcxx::state {

/// One AES-256 key.
using key_bytes = std::array<unsigned char, 32>;

/// The current key and the previous keys still accepted.
class key_ring {
 public:
  /// Keys from configuration: base64 or base64url of exactly 32 bytes each. An empty `current`
  /// with no previous keys draws a random key. Throws std::invalid_argument naming the bad entry
  /// (never its value) when a key does not decode to 32 bytes, or when previous keys are given
  /// without a current one.
  static key_ring from_config(const std::string& current, const std::vector<std::string>& previous);
  /// A ring of one fresh random key from the kernel CSPRNG; throws std::runtime_error if it fails.
  static key_ring random();

  /// The key that seals.
  const key_bytes& current() const noexcept { return keys_.front(); }
  /// Every key that opens, current first.
  std::span<const key_bytes> all() const noexcept { return keys_; }

 private:
  explicit key_ring(std::vector<key_bytes> keys) : keys_(std::move(keys)) {}
  std::vector<key_bytes> keys_;
};

}  // namespace mcpcxx::state
