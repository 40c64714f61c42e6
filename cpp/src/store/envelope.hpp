// How the Redis stores put things on the wire between replicas: bus events and routed messages
// as PUBLISH payloads, and random names.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/notification_bus.hpp"

namespace mcpcxx::detail {

/// `bytes` random bytes as 2 x bytes lowercase hex digits (getrandom).
std::string random_hex(std::size_t bytes);

/// A bus event as it travels: who sent it (a bridge's origin) and the event.
struct decoded_event {
  std::string origin;
  change_event event;
};

/// The PUBLISH payload of event `e` sent by `origin` (CBOR: binary-safe, numbers exact).
std::string encode_event(const std::string& origin, const change_event& e);
/// The event in `payload`; nullopt for a kind this build does not know. Throws on bytes that are
/// no event (a foreign publisher on the channel).
std::optional<decoded_event> decode_event(std::string_view payload);

/// A routed message as it travels to the holder's channel: "<session length>:<session><message>".
std::string encode_routed(const std::string& session_id, const std::string& message);
/// The session and message of `payload`; nullopt when it is not one.
std::optional<std::pair<std::string, std::string>> decode_routed(std::string_view payload);

}  // namespace mcpcxx::detail
