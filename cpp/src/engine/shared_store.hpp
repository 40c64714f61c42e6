// detail::shared_store: the connection of one server to the store its replicas share
// (server_options::store, http_options::store, MCPCXX_STORE_URL; docs/scale-out.md). Opening it
// checks everything a replica needs before it serves: the URL parses, Redis answers (AUTH and
// SELECT included) within the connect timeout, and requestState has a configured key (replicas
// must accept each other's sealed states). The engine then moves its notification bus, task
// store and the HTTP transport's session, event and routing state onto it.
// Thread-safety: immutable after open_shared_store(); the client is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "mcpcxx/server.hpp"

#include "redis/client.hpp"

namespace mcpcxx::detail {

/// A server's open Redis store.
struct shared_store {
  std::shared_ptr<redis::client> client;  ///< commands (pooled)
  redis::options connection;              ///< for subscribers (their own connections)
  std::string key_prefix;                 ///< before every key: "mcpcxx:<server name>:" default
  std::string replica_id;                 ///< this process among the replicas (random, 16 hex)
  store_options options;                  ///< as configured
};

/// True when `url` names a shared store ("" and "memory:" do not).
bool is_shared_store_url(const std::string& url);

/// The configuration of a replica with store URL `url`: `options` completed from the
/// environment (MCPCXX_REQUEST_STATE_KEY, MCPCXX_REQUEST_STATE_PREVIOUS_KEYS when the options
/// hold no key) and checked; throws std::invalid_argument saying what is wrong and how to fix
/// it (a malformed URL, or a shared store without request_state_key).
void check_store_config(const std::string& url, const server_options& options);

/// Opens and checks the store `o` describes for server `info_name`; throws
/// std::invalid_argument (configuration) or std::runtime_error naming the URL without its
/// password (unreachable, refused authentication), within o.timeout + the connect timeout.
std::shared_ptr<shared_store> open_shared_store(const store_options& o,
                                                const std::string& info_name);

/// Fills an empty request_state_key / request_state_previous_keys from MCPCXX_REQUEST_STATE_KEY
/// and MCPCXX_REQUEST_STATE_PREVIOUS_KEYS (comma separated).
void read_request_state_keys_from_env(server_options& o);

}  // namespace mcpcxx::detail
