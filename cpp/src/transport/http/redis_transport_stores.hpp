// The transport stores of legacy sessions on Redis, for a server whose replicas share one store
// (docs/scale-out.md): what the configuration hands to transport_context when a store URL names
// Redis. The in-memory defaults stay untouched when it is not called.
// Thread-safety: the factory is a pure function; the stores are thread-safe.
#pragma once

#include <memory>
#include <string>

#include "mcpcxx/http.hpp"

#include "core/request_router.hpp"
#include "redis/client.hpp"
#include "transport/http/context.hpp"

namespace mcpcxx::http {

/// A redis_session_store (at most opts.max_sessions records across the replicas) and a
/// redis_event_store (opts.replay_buffer_events per session) on `client` under `key_prefix`
/// (no '{' or '}': std::invalid_argument), whose keys expire redis_session_ttl() of
/// opts.session_idle_timeout after their last write; `router` is passed through (null: the
/// transport's memory router). Sends nothing to Redis.
transport_stores make_redis_transport_stores(std::shared_ptr<redis::client> client,
                                             std::string key_prefix, const http_options& opts,
                                             std::shared_ptr<detail::request_router> router);

}  // namespace mcpcxx::http
