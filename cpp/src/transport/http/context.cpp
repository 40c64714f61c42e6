#include "transport/http/context.hpp"

#include <algorithm>
#include <cstdio>
#include <sys/resource.h>
#include <vector>

#include "engine/shared_store.hpp"
#include "observability/server_log.hpp"
#include "store/redis_stores.hpp"
#include "transport/http/handler_headers.hpp"
#include "transport/http/memory_event_store.hpp"
#include "transport/http/memory_session_store.hpp"
#include "transport/http/redis_transport_stores.hpp"

namespace mcpcxx::http {

namespace {

origin_policy make_policy(const http_options& o) {
  origin_policy p;
  p.allowed_hosts = o.allowed_hosts;
  p.allowed_origins = o.allowed_origins;
  p.loopback_bound = is_loopback_address(o.host) || o.host == "::1";
  return p;
}

// A server whose replicas share a store keeps its legacy sessions, their events and the routes
// of their settling messages there (docs/scale-out.md); members given by the caller stay.
transport_stores shared_transport_stores(const detail::shared_store& shared, const http_options& o,
                                         transport_stores given) {
  std::shared_ptr<detail::request_router> router = given.router;
  if (!router) {
    router = detail::make_redis_request_router(
        {shared.client, shared.connection, shared.key_prefix, shared.replica_id});
  }
  transport_stores out =
      make_redis_transport_stores(shared.client, shared.key_prefix, o, std::move(router));
  if (given.events) out.events = std::move(given.events);
  return out;
}

// The one place the in-memory stores and router are created: what legacy sessions use unless
// the transport is given others. Routed messages are parsed with the server's limits, as POSTs.
session_table session_table_over(const server& srv, const http_options& o,
                                 transport_stores stores) {
  if (const auto shared = detail::shared_store_of(srv); shared && !stores.sessions) {
    stores = shared_transport_stores(*shared, o, std::move(stores));
  }
  if (!stores.sessions) stores.sessions = std::make_shared<memory_session_store>(o.max_sessions);
  if (!stores.events) stores.events = std::make_shared<memory_event_store>(o.replay_buffer_events);
  if (!stores.router) stores.router = detail::make_memory_request_router();
  return session_table(std::move(stores.sessions), std::move(stores.events),
                       std::move(stores.router), srv.options().limits);
}

}  // namespace

transport_context::transport_context(server& s, http_options o, transport_stores stores)
    : srv(s),
      opts(std::move(o)),
      origins(make_policy(opts)),
      exposed_headers(exposed_credentials(opts.expose_headers)),
      sessions(session_table_over(s, opts, std::move(stores))) {}

std::uint64_t transport_context::exchange_started(const session& s, std::weak_ptr<cuttable> ex) {
  std::lock_guard g(flight_lock_);
  std::uint64_t key = next_key_++;
  in_flight_.emplace(key, std::make_pair(s, std::move(ex)));
  awaited_replies.store(in_flight_.size(), std::memory_order_release);
  return key;
}

void transport_context::exchange_done(std::uint64_t key) {
  {
    std::lock_guard g(flight_lock_);
    in_flight_.erase(key);
    awaited_replies.store(in_flight_.size(), std::memory_order_release);
  }
  flight_cv_.notify_all();
}

bool transport_context::wait_exchanges(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock g(flight_lock_);
  return flight_cv_.wait_until(g, deadline, [&] { return in_flight_.empty(); });
}

std::size_t transport_context::end_listens() {
  std::vector<session> live;
  {
    std::lock_guard g(flight_lock_);
    for (auto& [k, e] : in_flight_) live.push_back(e.first);
  }
  std::size_t ended = 0;
  for (auto& s : live) ended += s.end_listens("the server is stopping");
  return ended;
}

std::size_t transport_context::refuse_unstarted() {
  std::vector<session> live;
  {
    std::lock_guard g(flight_lock_);
    for (auto& [k, e] : in_flight_) live.push_back(e.first);
  }
  std::size_t refused = 0;
  for (auto& s : live) refused += s.refuse_unstarted();
  return refused;
}

void transport_context::cancel_exchanges(std::chrono::milliseconds grace) {
  std::vector<session> live;
  std::vector<std::shared_ptr<cuttable>> exchanges;
  {
    std::lock_guard g(flight_lock_);
    for (auto& [k, e] : in_flight_) {
      live.push_back(e.first);
      if (auto ex = e.second.lock()) exchanges.push_back(std::move(ex));
    }
  }
  // What never started is answered as such (P27a) and never runs; then the transport answers
  // the rest: a handler that ignores cancellation (a blocking Python tool) would otherwise hold
  // its reply, and the connection would close with no response at all.
  for (auto& s : live) s.refuse_unstarted();
  for (auto& ex : exchanges) ex->cut_off();
  for (auto& s : live) s.shutdown(grace);
}

std::size_t effective_connection_cap(std::size_t max_connections) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) {
    return max_connections;
  }
  auto soft = static_cast<std::size_t>(lim.rlim_cur);
  std::size_t room = soft > 2 * k_reserved_descriptors ? soft - k_reserved_descriptors : soft / 2;
  return std::max<std::size_t>(1, std::min(max_connections, room));
}

void transport_context::log_event(std::string_view level, std::string_view event,
                                  const json& fields) const {
  detail::server_log(srv.options().log_writer).write(level, event, fields);
}

void transport_context::log(std::string_view line) const {
  const auto& writer = srv.options().log_writer;
  if (writer) {
    writer(line);
  } else {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  }
}

}  // namespace mcpcxx::http
