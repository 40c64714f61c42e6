// Session receive path: classify each message; requests become exchanges for dispatch().
#include "engine/session_state.hpp"

#include "mcpcxx/error_codes.hpp"

#include "engine/batch_reply.hpp"
#include "engine/dispatch.hpp"
#include "engine/engine.hpp"
#include "engine/exchange.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::detail {

namespace {

using ::mcpcxx::wire::render;
using ::mcpcxx::wire::row_of;

// The row of a message the codec refused. The codec does not report its row yet (the wire
// helper's table will); until then the code tells the parse (P1) and shape (P2/P3) rows apart.
std::string_view invalid_message_row(const jsonrpc::error_object& e) {
  return e.code == error_code::parse_error ? "P1" : "P2";
}

}  // namespace

session_state::session_state(std::shared_ptr<engine> eng, std::shared_ptr<frame_sink> sink,
                             session_options options)
    : engine_(std::move(eng)), sink_(std::move(sink)), options_(options) {}

void session_state::send(const std::shared_ptr<frame_sink>& to, std::string frame,
                         const frame_info& info) {
  const auto& target = to ? to : sink_;
  if (!target) return;
  try {
    target->send_frame(std::move(frame), info);
  } catch (const std::exception& e) {
    engine_->log().write("error", "sink_failed", {{"what", e.what()}});
  }
}

void session_state::receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to,
                            era_hint hint) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
  }
  if (msg.kind == jsonrpc::message_kind::batch) {
    receive_batch(std::move(msg), reply_to ? reply_to : sink_, hint);
    return;
  }
  receive_one(std::move(msg), reply_route{reply_to ? reply_to : sink_, nullptr}, hint);
}

void session_state::receive_one(jsonrpc::message msg, const reply_route& route, era_hint hint) {
  switch (msg.kind) {
    case jsonrpc::message_kind::invalid: {
      engine_->count(outcome_class::protocol_error, "invalid_message");
      engine_->log().write(
          "warning", "invalid_message",
          {{"code", msg.error.code}, {"message", msg.error.message}});  // wire-text: not wire (log)
      std::string frame = jsonrpc::serialize_error(msg.id, msg.error);
      if (route.batch) return route.batch->add(std::move(frame));
      return send(route.sink, std::move(frame),
                  {frame_kind::response, invalid_message_row(msg.error)});
    }
    case jsonrpc::message_kind::batch:  // a batch inside a batch
      engine_->count(outcome_class::protocol_error, "batch_not_allowed");
      return route.batch->add(
          jsonrpc::serialize_error(std::nullopt, render(situation::P4_batch_not_allowed)));
    case jsonrpc::message_kind::response:
      // We never send requests, so a response has nothing to answer; note it for operators.
      engine_->log().write("info", "unexpected_response", {});
      return;
    case jsonrpc::message_kind::notification:
      return receive_notification(msg);
    case jsonrpc::message_kind::request:
      dispatch(std::make_shared<exchange>(shared_from_this(), route, *msg.id, std::move(msg.method),
                                          std::move(msg.params)),
               hint);
      return;
  }
}

void session_state::receive_notification(const jsonrpc::message& msg) {
  engine_->count(outcome_class::ok, "notification");
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

void session_state::receive_batch(jsonrpc::message msg, const std::shared_ptr<frame_sink>& target,
                                  era_hint hint) {
  if (legacy_version() != "2025-03-26") {
    engine_->count(outcome_class::protocol_error, "batch_not_allowed");
    send(target, jsonrpc::serialize_error(std::nullopt, render(situation::P4_batch_not_allowed)),
         {frame_kind::response, row_of(situation::P4_batch_not_allowed).id});
    return;
  }
  std::vector<jsonrpc::message> parts;
  std::size_t members = 0;  // every member but notifications and responses settles once
  for (auto& element : msg.body) {
    parts.push_back(jsonrpc::classify(std::move(element)));
    const auto k = parts.back().kind;
    if (k != jsonrpc::message_kind::notification && k != jsonrpc::message_kind::response) {
      ++members;
    }
  }
  const reply_route route{target,
                          std::make_shared<batch_reply>(shared_from_this(), target, members)};
  for (auto& part : parts) {
    if (part.kind == jsonrpc::message_kind::request && part.method == "initialize") {
      route.batch->add(
          jsonrpc::serialize_error(part.id, render(situation::P5_initialize_in_batch)));
    } else {
      receive_one(std::move(part), route, hint);
    }
  }
}

bool session_state::admit(const std::shared_ptr<exchange>& ex, bool cancellable) {
  std::lock_guard lock(mutex_);
  if (!in_flight_.emplace(jsonrpc::id_key(ex->id()), in_flight_entry{ex, cancellable}).second) {
    return false;
  }
  ex->mark_registered();
  ++running_;
  return true;
}

void session_state::forget(const jsonrpc::request_id& id) {
  std::lock_guard lock(mutex_);
  in_flight_.erase(jsonrpc::id_key(id));
}

void session_state::handler_returned() {
  std::lock_guard lock(mutex_);
  if (running_ > 0) --running_;
  if (running_ == 0) idle_cv_.notify_all();
}

void session_state::cancel(const jsonrpc::request_id& id, std::string_view reason) {
  std::shared_ptr<exchange> ex;
  {
    std::lock_guard lock(mutex_);
    auto it = in_flight_.find(jsonrpc::id_key(id));
    if (it == in_flight_.end() || !it->second.cancellable) return;  // unknown or done: ignore
    ex = it->second.ex;
  }
  ex->abandon(reason);
}

bool session_state::shutdown(std::chrono::milliseconds grace) {
  const bool drained = wait_idle_for(grace);
  std::vector<std::shared_ptr<exchange>> rest;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (auto& [key, entry] : in_flight_) rest.push_back(entry.ex);
  }
  for (auto& ex : rest) ex->abandon("session shut down");
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
