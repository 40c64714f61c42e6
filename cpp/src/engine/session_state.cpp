// Session routing: classify, pick the era, gate by method table and capability, dispatch.
#include "engine/session_state.hpp"

#include "engine/call.hpp"
#include "engine/era.hpp"
#include "engine/method_table.hpp"
#include "engine/wire_errors.hpp"

namespace mcpcxx::detail {

session_state::session_state(std::shared_ptr<engine> eng, std::shared_ptr<frame_sink> sink,
                             session_options options)
    : engine_(std::move(eng)), sink_(std::move(sink)), options_(options) {}

void session_state::send(const std::shared_ptr<frame_sink>& to, std::string frame, frame_kind kind) {
  const auto& target = to ? to : sink_;
  if (!target) return;
  try {
    target->send(std::move(frame), kind);
  } catch (const std::exception& e) {
    engine_->log().write("error", "sink_failed", {{"what", e.what()}});
  }
}

void session_state::receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
  }
  switch (msg.kind) {
    case jsonrpc::message_kind::invalid:
      engine_->count(outcome::protocol_error, "invalid_message");
      engine_->log().write("warning", "invalid_message",
                           {{"code", msg.error.code}, {"message", msg.error.message}});
      send(reply_to, jsonrpc::serialize_error(msg.id, msg.error), frame_kind::response);
      return;
    case jsonrpc::message_kind::batch:
      receive_batch(std::move(msg), reply_to);
      return;
    case jsonrpc::message_kind::response:
      // We never send requests, so a response has nothing to answer; note it for operators.
      engine_->log().write("info", "unexpected_response", {});
      return;
    case jsonrpc::message_kind::notification:
      receive_notification(msg);
      return;
    case jsonrpc::message_kind::request:
      receive_request(std::move(msg), reply_to);
      return;
  }
}

void session_state::receive_notification(const jsonrpc::message& msg) {
  engine_->count(outcome::ok, "notification");
  if (msg.method == "notifications/initialized") {
    update_legacy([](legacy_state& l) { l.initialized_notification = true; });
    return;
  }
  if (msg.method == "notifications/cancelled") {
    const json* rid = msg.params.is_object() && msg.params.contains("requestId")
                          ? &msg.params["requestId"]
                          : nullptr;
    std::string reason = "cancelled by client";
    if (msg.params.is_object() && msg.params.contains("reason") && msg.params["reason"].is_string())
      reason = msg.params["reason"].get<std::string>();
    if (rid != nullptr && rid->is_number_integer()) cancel(rid->get<std::int64_t>(), reason);
    if (rid != nullptr && rid->is_string()) cancel(rid->get<std::string>(), reason);
    return;
  }
  if (msg.method == "notifications/roots/list_changed" || msg.method == "notifications/progress") {
    return;  // known client notifications with nothing for a server engine to do
  }
  engine_->log().write("warning", "unknown_notification", {{"method", msg.method}});
}

void session_state::receive_request(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to) {
  auto c = std::make_shared<call>();
  c->session = shared_from_this();
  c->reply_to = reply_to ? reply_to : sink_;
  c->id = *msg.id;
  c->method = std::move(msg.method);
  if (!msg.params.is_null() && !msg.params.is_object()) {
    c->reply_error(wire::invalid_params("params must be an object, got " +
                                        std::string(msg.params.type_name())));
    return;
  }
  c->params = msg.params.is_object() ? std::move(msg.params) : json::object();
  const method_info* m = nullptr;
  if (auto err = route(*c, m)) {
    c->reply_error(*err);
    return;
  }
  c->slot = begin(c->id, (m->flags & not_cancellable) == 0);
  if (!c->slot) {
    c->reply_error(wire::duplicate_request_id(c->id));
    return;
  }
  auto run = [c, m] { run_method(*c, *m); };
  if ((m->flags & on_worker) != 0 && !options_.inline_dispatch) {
    engine_->pool().post(std::move(run));
  } else {
    run();
  }
}

void session_state::receive_batch(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to) {
  const auto target = reply_to ? reply_to : sink_;
  if (legacy_version() != "2025-03-26") {
    engine_->count(outcome::protocol_error, "batch_not_allowed");
    send(target, jsonrpc::serialize_error(std::nullopt, wire::batch_not_allowed()),
         frame_kind::response);
    return;
  }
  std::vector<jsonrpc::message> parts;
  for (auto& element : msg.body) parts.push_back(jsonrpc::classify(std::move(element)));
  auto collector = make_batch_collector(shared_from_this(), target, parts);
  for (auto& part : parts) {
    if (part.kind == jsonrpc::message_kind::request && part.method == "initialize") {
      collector->send(jsonrpc::serialize_error(part.id, wire::initialize_in_batch()),
                      frame_kind::response);
    } else if (part.kind == jsonrpc::message_kind::batch) {
      collector->send(jsonrpc::serialize_error(std::nullopt, wire::batch_not_allowed()),
                      frame_kind::response);
    } else {
      receive(std::move(part), collector);
    }
  }
}

std::shared_ptr<in_flight> session_state::begin(const jsonrpc::request_id& id, bool cancellable) {
  auto slot = std::make_shared<in_flight>();
  slot->id = id;
  slot->cancellable = cancellable;
  std::lock_guard lock(mutex_);
  if (!in_flight_.emplace(jsonrpc::id_key(id), slot).second) return nullptr;
  ++running_;
  return slot;
}

void session_state::end(const jsonrpc::request_id& id) {
  std::lock_guard lock(mutex_);
  in_flight_.erase(jsonrpc::id_key(id));
}

void session_state::finished_running() {
  std::lock_guard lock(mutex_);
  if (running_ > 0) --running_;
  if (running_ == 0) idle_cv_.notify_all();
}

void session_state::cancel(const jsonrpc::request_id& id, std::string_view reason) {
  std::shared_ptr<in_flight> slot;
  {
    std::lock_guard lock(mutex_);
    auto it = in_flight_.find(jsonrpc::id_key(id));
    if (it == in_flight_.end() || !it->second->cancellable) return;  // unknown or done: ignore
    slot = it->second;
    in_flight_.erase(it);
  }
  if (slot->finished.exchange(true)) return;
  engine_->count(outcome::cancelled, "cancelled");
  engine_->log().write("info", "request_cancelled",
                       {{"id", jsonrpc::id_to_json(id)}, {"reason", std::string(reason)}});
  slot->token.cancel();
}

bool session_state::shutdown(std::chrono::milliseconds grace) {
  const bool drained = wait_idle_for(grace);
  std::vector<std::shared_ptr<in_flight>> rest;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (auto& [key, slot] : in_flight_) rest.push_back(slot);
    in_flight_.clear();
  }
  for (auto& slot : rest) {
    if (!slot->finished.exchange(true)) slot->token.cancel();
  }
  return drained || wait_idle_for(grace);
}

void session_state::wait_idle() const {
  std::unique_lock lock(mutex_);
  idle_cv_.wait(lock, [this] { return running_ == 0; });
}

bool session_state::wait_idle_for(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return idle_cv_.wait_for(lock, timeout, [this] { return running_ == 0; });
}

std::size_t session_state::in_flight_count() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::string session_state::legacy_version() const {
  std::lock_guard lock(mutex_);
  return legacy_.version;
}

bool session_state::subscribed(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  return legacy_.subscriptions.count(uri) != 0;
}

legacy_state session_state::legacy() const {
  std::lock_guard lock(mutex_);
  return legacy_;
}

void session_state::set_principal(json p) {
  std::lock_guard lock(mutex_);
  principal_ = std::move(p);
}

json session_state::principal() const {
  std::lock_guard lock(mutex_);
  return principal_;
}

}  // namespace mcpcxx::detail
