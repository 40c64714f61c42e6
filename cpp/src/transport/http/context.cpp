#include "transport/http/context.hpp"

#include <cstdio>
#include <vector>

namespace mcpcxx::http {

namespace {

origin_policy make_policy(const http_options& o) {
  origin_policy p;
  p.allowed_hosts = o.allowed_hosts;
  p.allowed_origins = o.allowed_origins;
  p.loopback_bound = is_loopback_address(o.host) || o.host == "::1";
  return p;
}

}  // namespace

transport_context::transport_context(server& s, http_options o)
    : srv(s), opts(std::move(o)), origins(make_policy(opts)), sessions(opts.max_sessions) {}

std::uint64_t transport_context::exchange_started(const session& s) {
  std::lock_guard g(flight_lock_);
  std::uint64_t key = next_key_++;
  in_flight_.emplace(key, s);
  return key;
}

void transport_context::exchange_done(std::uint64_t key) {
  {
    std::lock_guard g(flight_lock_);
    in_flight_.erase(key);
  }
  flight_cv_.notify_all();
}

bool transport_context::wait_exchanges(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock g(flight_lock_);
  return flight_cv_.wait_until(g, deadline, [&] { return in_flight_.empty(); });
}

void transport_context::cancel_exchanges(std::chrono::milliseconds grace) {
  std::vector<session> live;
  {
    std::lock_guard g(flight_lock_);
    for (auto& [k, s] : in_flight_) live.push_back(s);
  }
  for (auto& s : live) s.shutdown(grace);
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
