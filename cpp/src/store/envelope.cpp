// Payload formats of the Redis stores (store/envelope.hpp).
#include "store/envelope.hpp"

#include <array>
#include <charconv>
#include <stdexcept>
#include <sys/random.h>

#include "state/codec.hpp"

namespace mcpcxx::detail {

std::string random_hex(std::size_t bytes) {
  std::string out;
  out.reserve(bytes * 2);
  std::array<char, 32> buf{};
  while (bytes > 0) {
    const std::size_t n = std::min(bytes, buf.size());
    if (getrandom(buf.data(), n, 0) != static_cast<ssize_t>(n)) {
      throw std::runtime_error("getrandom failed");
    }
    out += state::hex_encode({buf.data(), n});
    bytes -= n;
  }
  return out;
}

std::string encode_event(const std::string& origin, const change_event& e) {
  const json j = {
      {"o", origin}, {"k", static_cast<int>(e.kind)}, {"s", e.subject}, {"p", e.payload}};
  std::string out;
  json::to_cbor(j, out);
  return out;
}

std::optional<decoded_event> decode_event(std::string_view payload) {
  const json j = json::from_cbor(payload.begin(), payload.end());
  const int kind = j.at("k").get<int>();
  if (kind < 0 || static_cast<std::size_t>(kind) >= k_change_kind_count) return std::nullopt;
  decoded_event d;
  d.origin = j.at("o").get<std::string>();
  d.event.kind = static_cast<change_kind>(kind);
  d.event.subject = j.at("s").get<std::string>();
  d.event.payload = j.at("p");
  return d;
}

std::string encode_routed(const std::string& session_id, const std::string& message) {
  std::string out = std::to_string(session_id.size());
  out.reserve(out.size() + 1 + session_id.size() + message.size());
  out += ':';
  out += session_id;
  out += message;
  return out;
}

std::optional<std::pair<std::string, std::string>> decode_routed(std::string_view payload) {
  const auto colon = payload.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::size_t length = 0;
  const auto r = std::from_chars(payload.data(), payload.data() + colon, length);
  if (r.ec != std::errc{} || r.ptr != payload.data() + colon) return std::nullopt;
  const std::string_view rest = payload.substr(colon + 1);
  if (length > rest.size()) return std::nullopt;
  return std::make_pair(std::string(rest.substr(0, length)), std::string(rest.substr(length)));
}

}  // namespace mcpcxx::detail
