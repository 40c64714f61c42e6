// Sharded request metrics and their Prometheus text rendering (docs/observability.md).
#include "observability/metrics_registry.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <tuple>

namespace mcpcxx::detail {

namespace {

// Method label slots past the method table.
constexpr std::uint32_t k_method_unknown = 0xFF0;
constexpr std::uint32_t k_method_invalid = 0xFF1;

// Every category the engine produces; anything else is labelled "_other" so a future category
// cannot grow the series without a deliberate entry here (and in docs/observability.md).
constexpr std::array<std::string_view, 21> k_categories = {
    "ok",
    "notification",
    "protocol",
    "cancelled",
    "tool_result_error",
    "input_required",
    "invalid_arguments",
    "not_found",
    "permission_denied",
    "conflict",
    "precondition_failed",
    "rate_limited",
    "unavailable",
    "timeout",
    "internal",
    "batch_not_allowed",
    "batch_reply_too_large",
    "batch_too_many_members",
    "invalid_message",
    "unauthorized",
    "forbidden",
};
constexpr std::uint32_t k_category_other = k_categories.size();

constexpr std::array<std::string_view, 4> k_outcomes = {"ok", "tool_error", "protocol_error",
                                                        "cancelled"};

std::uint32_t category_index(std::string_view c) noexcept {
  for (std::uint32_t i = 0; i < k_categories.size(); ++i) {
    if (k_categories[i] == c) return i;
  }
  return k_category_other;
}

std::string_view category_name(std::uint32_t i) noexcept {
  return i < k_categories.size() ? k_categories[i] : std::string_view("_other");
}

// request key: tool (24 bits) | method (12) | category (12) | outcome (4)
std::uint64_t request_key(std::uint32_t tool, std::uint32_t method, std::uint32_t category,
                          outcome_class o) noexcept {
  return (std::uint64_t{tool} & 0xFFFFFF) | (std::uint64_t{method} & 0xFFF) << 24 |
         (std::uint64_t{category} & 0xFFF) << 36 | (static_cast<std::uint64_t>(o) & 0xF) << 48;
}

std::uint64_t series_key(std::uint32_t tool, std::uint32_t method) noexcept {
  return (std::uint64_t{tool} & 0xFFFFFF) | (std::uint64_t{method} & 0xFFF) << 24;
}

std::uint32_t key_tool(std::uint64_t k) noexcept { return k & 0xFFFFFF; }
std::uint32_t key_method(std::uint64_t k) noexcept { return (k >> 24) & 0xFFF; }
std::uint32_t key_category(std::uint64_t k) noexcept { return (k >> 36) & 0xFFF; }
std::uint32_t key_outcome(std::uint64_t k) noexcept { return (k >> 48) & 0xF; }

// Prometheus label value escaping: backslash, double quote and newline.
void append_label(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append("=\"");
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

void append_number(std::string& out, std::uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void append_seconds(std::string& out, std::int64_t micros) {
  char buf[40];
  const int n = std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(micros) / 1e6);
  out.append(buf, static_cast<std::size_t>(n));
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void gauge(std::string& out, std::string_view name, std::string_view help, std::uint64_t v) {
  header(out, name, "gauge", help);
  out.append(name).push_back(' ');
  append_number(out, v);
  out.push_back('\n');
}

}  // namespace

metrics_registry::metrics_registry(std::vector<std::string_view> methods)
    : methods_(std::move(methods)), tools_{"", "_unknown"} {}

std::uint32_t metrics_registry::method_index(std::string_view method) const noexcept {
  for (std::uint32_t i = 0; i < methods_.size(); ++i) {
    if (methods_[i] == method) return i;
  }
  return k_method_unknown;
}

std::string_view metrics_registry::method_name(std::uint32_t i) const noexcept {
  if (i < methods_.size()) return methods_[i];
  return i == k_method_invalid ? "_invalid" : "_unknown";
}

metrics_registry::shard& metrics_registry::local() noexcept {
  static std::atomic<std::size_t> next{0};
  thread_local const std::size_t index = next.fetch_add(1, std::memory_order_relaxed) % k_shards;
  return shards_[index];
}

std::uint32_t metrics_registry::tool_slot(std::string_view name) {
  std::lock_guard lock(tools_mutex_);
  if (auto it = tool_slots_.find(std::string(name)); it != tool_slots_.end()) return it->second;
  if (tools_.size() >= 0xFFFFFF) return k_unknown_tool_slot;
  const auto slot = static_cast<std::uint32_t>(tools_.size());
  tools_.emplace_back(name);
  tool_slots_.emplace(std::string(name), slot);
  return slot;
}

void metrics_registry::started() noexcept {
  local().in_flight.fetch_add(1, std::memory_order_relaxed);
}

void metrics_registry::stopped() noexcept {
  local().in_flight.fetch_sub(1, std::memory_order_relaxed);
}

void metrics_registry::record(const request_sample& s) noexcept {
  const std::uint32_t method = method_index(s.method);
  const std::uint32_t category = category_index(s.category);
  const std::uint64_t series = series_key(s.tool_slot, method);
  shard& sh = local();
  try {
    std::lock_guard lock(sh.mutex);
    ++sh.requests[request_key(s.tool_slot, method, category, s.outcome)];
    if (s.unexpected) ++sh.unexpected[series];
    if (!s.timed) return;
    histogram& h = sh.latency[series];
    ++h.count;
    h.sum_us += s.micros;
    const auto b = std::lower_bound(k_bucket_us.begin(), k_bucket_us.end(), s.micros);
    if (b != k_bucket_us.end()) ++h.buckets[static_cast<std::size_t>(b - k_bucket_us.begin())];
  } catch (...) {  // std::bad_alloc inserting a first series: the sample is lost, never the reply
  }
}

void metrics_registry::record_message(outcome_class o, std::string_view category) noexcept {
  shard& sh = local();
  try {
    std::lock_guard lock(sh.mutex);
    if (o == outcome_class::ok && category == "notification") {
      ++sh.notifications;
      return;
    }
    ++sh.requests[request_key(k_no_tool_slot, k_method_invalid, category_index(category), o)];
  } catch (...) {  // as in record()
  }
}

server_metrics metrics_registry::snapshot() const {
  server_metrics m;
  for (auto& sh : shards_) {
    std::lock_guard lock(sh.mutex);
    m.notifications += sh.notifications;
    for (const auto& [key, n] : sh.requests) {
      const auto o = static_cast<outcome_class>(key_outcome(key));
      if (o != outcome_class::cancelled) m.requests += n;
      if (o == outcome_class::tool_error) m.tool_errors += n;
      if (o == outcome_class::protocol_error) m.protocol_errors += n;
      m.by_category[std::string(category_name(key_category(key)))] += n;
    }
  }
  return m;
}

std::vector<std::string> metrics_registry::tool_labels() const {
  std::lock_guard lock(tools_mutex_);
  return tools_;
}

void metrics_registry::render_requests(std::string& out,
                                       const std::vector<std::string>& tools) const {
  using labels = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;
  std::map<labels, std::uint64_t> merged;
  std::uint64_t notifications = 0;
  for (auto& sh : shards_) {
    std::lock_guard lock(sh.mutex);
    notifications += sh.notifications;
    for (const auto& [key, n] : sh.requests) {
      merged[{method_name(key_method(key)), tools.at(key_tool(key)), k_outcomes[key_outcome(key)],
              category_name(key_category(key))}] += n;
    }
  }
  header(out, "mcpcxx_requests_total", "counter",
         "Requests answered, by method, tool (tools/call), outcome class and category.");
  for (const auto& [l, n] : merged) {
    out.append("mcpcxx_requests_total{");
    append_label(out, "method", std::get<0>(l));
    append_label(out.append(","), "tool", std::get<1>(l));
    append_label(out.append(","), "outcome", std::get<2>(l));
    append_label(out.append(","), "category", std::get<3>(l));
    out.append("} ");
    append_number(out, n);
    out.push_back('\n');
  }
  header(out, "mcpcxx_notifications_received_total", "counter",
         "Notifications received from clients.");
  out.append("mcpcxx_notifications_received_total ");
  append_number(out, notifications);
  out.push_back('\n');
}

void metrics_registry::render_latency(std::string& out,
                                      const std::vector<std::string>& tools) const {
  std::map<std::pair<std::string_view, std::string_view>, histogram> merged;
  for (auto& sh : shards_) {
    std::lock_guard lock(sh.mutex);
    for (const auto& [key, h] : sh.latency) {
      histogram& m = merged[{method_name(key_method(key)), tools.at(key_tool(key))}];
      m.count += h.count;
      m.sum_us += h.sum_us;
      for (std::size_t i = 0; i < h.buckets.size(); ++i) m.buckets[i] += h.buckets[i];
    }
  }
  constexpr std::string_view name = "mcpcxx_request_duration_seconds";
  header(out, name, "histogram", "Time from receiving a request to sending its reply.");
  for (const auto& [l, h] : merged) {
    std::string labels;
    append_label(labels, "method", l.first);
    append_label(labels.append(","), "tool", l.second);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= h.buckets.size(); ++i) {
      out.append(name).append("_bucket{").append(labels).append(",le=\"");
      if (i < h.buckets.size()) {
        cumulative += h.buckets[i];
        append_seconds(out, k_bucket_us[i]);
      } else {
        cumulative = h.count;
        out.append("+Inf");
      }
      out.append("\"} ");
      append_number(out, cumulative);
      out.push_back('\n');
    }
    out.append(name).append("_sum{").append(labels).append("} ");
    append_seconds(out, h.sum_us);
    out.append("\n").append(name).append("_count{").append(labels).append("} ");
    append_number(out, h.count);
    out.push_back('\n');
  }
}

void metrics_registry::render_unexpected(std::string& out,
                                         const std::vector<std::string>& tools) const {
  std::map<std::pair<std::string_view, std::string_view>, std::uint64_t> merged;
  for (auto& sh : shards_) {
    std::lock_guard lock(sh.mutex);
    for (const auto& [key, n] : sh.unexpected) {
      merged[{method_name(key_method(key)), tools.at(key_tool(key))}] += n;
    }
  }
  header(out, "mcpcxx_unexpected_exceptions_total", "counter",
         "Unexpected handler failures answered with a reference id (detail in the log).");
  for (const auto& [l, n] : merged) {
    out.append("mcpcxx_unexpected_exceptions_total{");
    append_label(out, "method", l.first);
    append_label(out.append(","), "tool", l.second);
    out.append("} ");
    append_number(out, n);
    out.push_back('\n');
  }
}

std::string metrics_registry::render(const gauge_values& g) const {
  const std::vector<std::string> tools = tool_labels();
  std::string out;
  out.reserve(4096);
  render_requests(out, tools);
  render_latency(out, tools);
  render_unexpected(out, tools);
  std::int64_t in_flight = 0;
  for (const auto& sh : shards_) in_flight += sh.in_flight.load(std::memory_order_relaxed);
  gauge(out, "mcpcxx_requests_in_flight", "Requests received and not yet answered.",
        static_cast<std::uint64_t>(std::max<std::int64_t>(in_flight, 0)));
  gauge(out, "mcpcxx_sessions_open",
        "Engine sessions open (stdio connections, legacy HTTP sessions).", g.sessions_open);
  gauge(out, "mcpcxx_listeners", "Open subscriptions/listen streams.", g.listeners);
  gauge(out, "mcpcxx_stuck_handlers",
        "Handlers still running after their deadline passed (the client already has its timeout).",
        g.stuck_handlers);
  gauge(out, "mcpcxx_long_running_handlers",
        "Handlers running longer than server_options::long_handler_after.",
        g.long_running_handlers);
  gauge(out, "mcpcxx_worker_threads",
        "Worker threads serving request handlers, grown ones included.", g.worker_threads);
  return out;
}

}  // namespace mcpcxx::detail
