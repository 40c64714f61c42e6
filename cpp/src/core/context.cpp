// request_context and cancellation_token.
#include "mcpcxx/context.hpp"

#include <stdexcept>
#include <vector>

#include "mcpcxx/errors.hpp"
#include "mcpcxx/server.hpp"

#include "wire/revisions.hpp"

namespace mcpcxx {

struct cancellation_token::state {
  std::atomic<bool> flag{false};
  std::mutex mutex;
  std::vector<std::function<void()>> callbacks;
};

cancellation_token::cancellation_token() : state_(std::make_shared<state>()) {}

bool cancellation_token::cancelled() const noexcept {
  return state_->flag.load(std::memory_order_acquire);
}

void cancellation_token::cancel() const {
  std::vector<std::function<void()>> run;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->flag.exchange(true, std::memory_order_acq_rel)) return;
    run.swap(state_->callbacks);
  }
  for (auto& fn : run) {
    try {
      fn();
    } catch (...) {  // a failing callback must not stop the others or the canceller
    }
  }
}

void cancellation_token::on_cancel(std::function<void()> fn) const {
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->flag.load(std::memory_order_acquire)) {
      state_->callbacks.push_back(std::move(fn));
      return;
    }
  }
  fn();
}

request_context::request_context(json request_id, std::string protocol_version, json client_info,
                                 json client_capabilities, std::optional<json> progress_token,
                                 std::optional<log_level> min_log_level, cancellation_token token,
                                 context_hooks hooks)
    : request_id_(std::move(request_id)),
      protocol_version_(std::move(protocol_version)),
      client_info_(std::move(client_info)),
      client_capabilities_(std::move(client_capabilities)),
      progress_token_(std::move(progress_token)),
      min_log_level_(min_log_level),
      token_(std::move(token)),
      hooks_(std::move(hooks)) {}

bool request_context::modern() const noexcept { return wire::is_modern_version(protocol_version_); }

void request_context::report_progress(double progress, std::optional<double> total,
                                      std::optional<std::string> message) {
  std::lock_guard lock(progress_lock_.m);
  if (last_progress_ && !(progress > *last_progress_)) {
    throw std::invalid_argument("progress must increase with each report: got " +
                                std::to_string(progress) + " after " +
                                std::to_string(*last_progress_));
  }
  last_progress_ = progress;
  // A task's pollers (tasks/get) see its progress without a token; the notification needs one.
  if (message && hooks_.task_status) hooks_.task_status(*message);
  if (!progress_token_ || !hooks_.notify) return;
  json params = {{"progressToken", *progress_token_}, {"progress", progress}};
  if (total) params["total"] = *total;
  if (message) params["message"] = *message;
  hooks_.notify("notifications/progress", std::move(params));
}

bool request_context::log(log_level level, json data, std::optional<std::string> logger) {
  if (hooks_.record) hooks_.record(level, data, logger);
  if (!min_log_level_ || level < *min_log_level_ || !hooks_.notify) return false;
  json params = {{"level", to_string(level)}, {"data", std::move(data)}};
  if (logger) params["logger"] = *logger;
  std::lock_guard lock(progress_lock_.m);
  hooks_.notify("notifications/message", std::move(params));
  return true;
}

json request_context::read_resource(std::string_view uri) {
  const std::string key(uri);
  if (!hooks_.read_resource) throw resource_not_found(key);
  return hooks_.read_resource(key, *this);
}

bool request_context::start_task() { return hooks_.start_task ? hooks_.start_task() : false; }

void request_context::require_client_capability(std::string_view name) const {
  if (client_capabilities_.is_object() && client_capabilities_.contains(name)) return;
  throw missing_client_capability(json{{std::string(name), json::object()}});
}

const json& request_context::request_meta() const noexcept {
  static const json empty = json::object();
  return request_meta_ ? *request_meta_ : empty;
}

const json& request_context::http_headers() const noexcept {
  static const json none = nullptr;
  return http_headers_ ? *http_headers_ : none;
}

const json* request_context::client_extension(std::string_view id) const {
  if (!client_capabilities_.is_object()) return nullptr;
  auto ext = client_capabilities_.find("extensions");
  if (ext == client_capabilities_.end() || !ext->is_object()) return nullptr;
  auto it = ext->find(id);
  return it == ext->end() ? nullptr : &*it;
}

}  // namespace mcpcxx
