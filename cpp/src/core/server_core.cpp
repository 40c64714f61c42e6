// The core of one server: its parts, built from the options, and their orderly stop.
#include "core/server_core.hpp"

#include <algorithm>
#include <thread>

#include "core/method_table.hpp"

namespace mcpcxx::detail {

namespace {

json info_json(const server_info& i) {
  json j = {{"name", i.name}, {"version", i.version}};
  if (i.title) j["title"] = *i.title;
  if (i.description) j["description"] = *i.description;
  if (!i.icons.is_null()) j["icons"] = i.icons;
  if (i.website_url) j["websiteUrl"] = *i.website_url;
  return j;
}

std::size_t pool_size(std::size_t requested) {
  if (requested != 0) return requested;
  return std::max<std::size_t>(2, std::thread::hardware_concurrency());
}

// The request pool grows for handlers that wait (worker_pool.hpp); a handler running past
// long_handler_after is logged once with its label (the tool, or the method).
pool_limits pool_limits_for(const server_options& o, server_log& log) {
  pool_limits l;
  l.threads = pool_size(o.worker_threads);
  l.max_threads = std::max(l.threads, o.max_worker_threads);
  l.max_stuck = o.max_stuck_workers;
  l.long_after = o.long_handler_after;
  l.on_long = [&log](const std::string& label, std::chrono::milliseconds ran) {
    log.write("warning", "handler_running_long",
              {{"handler", label},
               {"running_ms", ran.count()},
               {"note", "still running; it keeps a worker thread until it returns"}});
  };
  return l;
}

// The metrics label every method of the table, in table order.
std::vector<std::string_view> method_labels() {
  std::vector<std::string_view> names;
  for (const auto& m : all_methods()) names.push_back(m.name);
  return names;
}

}  // namespace

server_core::server_core(server_options options)
    : options_(std::move(options)),
      server_info_(info_json(options_.info)),
      server_info_text_(server_info_.dump(-1, ' ', false, json::error_handler_t::replace)),
      log_(options_.log_writer, options_.log_threshold),
      request_states_(state::key_ring::from_config(options_.request_state_key,
                                                   options_.request_state_previous_keys),
                      std::chrono::seconds(options_.request_state_ttl_s)),
      stats_(method_labels()),
      catalog_(options_, server_info_),
      bus_(make_memory_notification_bus([this](std::string_view what) {
        log_.write("error", "notification_subscriber_failed", {{"what", std::string(what)}});
      })),
      pool_(pool_limits_for(options_, log_)) {
  check_default_hints(options_);
}

server_core::~server_core() {
  // Last kept first: a feature may use one kept before it.
  while (!features_.empty()) features_.pop_back();
}

void server_core::stop() {
  const auto left = pool_.stop(options_.stop_grace);
  deadlines_.stop();
  if (left.detached != 0 || left.dropped != 0) {
    log_.write("warning", "handlers_abandoned_at_stop",
               {{"detached", left.detached},
                {"dropped", left.dropped},
                {"grace_ms", options_.stop_grace.count()}});
  }
}

void server_core::count(outcome_class o, std::string_view category) {
  stats_.record_message(o, category);
}

}  // namespace mcpcxx::detail
