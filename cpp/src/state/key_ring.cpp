// Key decoding from configuration and random key generation.
#include "state/key_ring.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <sys/random.h>

#include "state/codec.hpp"

namespace mcpcxx::state {

namespace {

key_bytes decode_key(const std::string& text, const std::string& which) {
  const auto raw = base64_decode_any(text);
  if (!raw || raw->size() != key_bytes{}.size()) {
    throw std::invalid_argument(
        which +
        " is not a request-state key: it must be base64 (or base64url) of exactly 32 random "
        "bytes, e.g. the output of `openssl rand -base64 32`");
  }
  key_bytes key{};
  std::copy(raw->begin(), raw->end(), key.begin());
  return key;
}

}  // namespace

key_ring key_ring::from_config(const std::string& current,
                               const std::vector<std::string>& previous) {
  if (current.empty()) {
    if (!previous.empty()) {
      throw std::invalid_argument(
          "request_state_previous_keys is set but request_state_key is empty: configure the "
          "current key too (previous keys only open states, the current key seals them)");
    }
    return random();
  }
  std::vector<key_bytes> keys{decode_key(current, "request_state_key")};
  for (std::size_t i = 0; i < previous.size(); ++i) {
    keys.push_back(
        decode_key(previous[i], "request_state_previous_keys[" + std::to_string(i) + "]"));
  }
  return key_ring(std::move(keys));
}

key_ring key_ring::random() {
  // The kernel's CSPRNG rather than RAND_bytes: drawing from OpenSSL's DRBG initialises libcrypto
  // at server start, which maps about 3 MiB of it into every server, sealing states or not.
  key_bytes key{};
  std::size_t filled = 0;
  while (filled < key.size()) {
    const auto got = getrandom(key.data() + filled, key.size() - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      throw std::runtime_error(std::string("getrandom failed: no random key for requestState: ") +
                               std::strerror(errno));
    }
    filled += static_cast<std::size_t>(got);
  }
  return key_ring({key});
}

}  // namespace mcpcxx::state
