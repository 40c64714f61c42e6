#include "transport/http/redis_transport_stores.hpp"

#include <utility>

#include "transport/http/redis_event_store.hpp"
#include "transport/http/redis_keys.hpp"
#include "transport/http/redis_session_store.hpp"

namespace mcpcxx::http {

transport_stores make_redis_transport_stores(std::shared_ptr<redis::client> client,
                                             std::string key_prefix, const http_options& opts,
                                             std::shared_ptr<detail::request_router> router) {
  const auto ttl = redis_session_ttl(opts.session_idle_timeout);
  transport_stores out;
  out.sessions = std::make_shared<redis_session_store>(client, key_prefix, opts.max_sessions, ttl);
  out.events = std::make_shared<redis_event_store>(std::move(client), std::move(key_prefix),
                                                   opts.replay_buffer_events, ttl);
  out.router = std::move(router);
  return out;
}

}  // namespace mcpcxx::http
