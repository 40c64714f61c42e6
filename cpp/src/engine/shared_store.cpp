// Opening the store replicas share (engine/shared_store.hpp).
#include "engine/shared_store.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <sys/random.h>

namespace mcpcxx::detail {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::vector<std::string> comma_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// 64 random bits as 16 hex digits: names this process among the replicas (leases, routing).
std::string random_replica_id() {
  std::array<unsigned char, 8> bytes{};
  if (getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    throw std::runtime_error("mcpcxx: getrandom failed while naming this replica");
  }
  std::string out;
  for (unsigned char b : bytes) {
    std::array<char, 3> hex{};
    std::snprintf(hex.data(), hex.size(), "%02x", b);
    out += hex.data();
  }
  return out;
}

redis::store_url parsed_url(const std::string& url) {
  std::string why;
  auto parsed = redis::parse_store_url(url, &why);
  if (!parsed) throw std::invalid_argument("mcpcxx: the store URL is not valid: " + why);
  return *parsed;
}

}  // namespace

bool is_shared_store_url(const std::string& url) { return !url.empty() && url != "memory:"; }

void read_request_state_keys_from_env(server_options& o) {
  if (!o.request_state_key.empty()) return;
  o.request_state_key = env("MCPCXX_REQUEST_STATE_KEY");
  if (o.request_state_previous_keys.empty()) {
    o.request_state_previous_keys = comma_list(env("MCPCXX_REQUEST_STATE_PREVIOUS_KEYS"));
  }
}

void check_store_config(const std::string& url, const server_options& options) {
  if (!is_shared_store_url(url)) return;
  parsed_url(url);
  if (options.request_state_key.empty()) {
    throw std::invalid_argument(
        "mcpcxx: a shared store is configured but request_state_key is not: every replica must "
        "seal 2026-07-28 requestState with the same key, or replicas would refuse each other's "
        "states. Make one with `openssl rand -base64 32` and give it to every replica "
        "(server_options::request_state_key, Server(request_state_key=...), or the environment "
        "variable MCPCXX_REQUEST_STATE_KEY)");
  }
}

std::shared_ptr<shared_store> open_shared_store(const store_options& o,
                                                const std::string& info_name) {
  auto s = std::make_shared<shared_store>();
  s->options = o;
  s->connection.url = parsed_url(o.url);
  s->connection.command_timeout = o.timeout;
  // A reconnect is part of the request that needs it: store.timeout bounds it too.
  s->connection.connect_timeout = std::min(s->connection.connect_timeout, o.timeout);
  s->key_prefix = o.key_prefix.empty() ? "mcpcxx:" + info_name + ":" : o.key_prefix;
  s->replica_id = random_replica_id();
  s->client = std::make_shared<redis::client>(s->connection);
  try {
    s->client->check();
  } catch (const redis::unavailable& e) {
    throw std::runtime_error(std::string("mcpcxx: cannot use the store: ") + e.what() +
                             "; check that Redis runs there and accepts these credentials");
  }
  return s;
}

}  // namespace mcpcxx::detail
