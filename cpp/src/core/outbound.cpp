// The pending table of server-to-client requests (see outbound.hpp).
#include "core/outbound.hpp"

#include <charconv>

#include "mcpcxx/errors.hpp"

#include "core/server_core.hpp"
#include "core/session_state.hpp"

namespace mcpcxx::detail {

namespace {

std::string request_frame(const json& id, const client_request& r) {
  json frame = {{"jsonrpc", "2.0"}, {"id", id}, {"method", r.method}};
  if (!r.params.is_null()) frame["params"] = r.params;
  return frame.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string cancelled_frame(const json& id, std::string_view reason) {
  return jsonrpc::serialize_notification("notifications/cancelled",
                                         {{"requestId", id}, {"reason", std::string(reason)}});
}

// The client's error object, kept as sent (a malformed one still reaches the author as an error).
[[noreturn]] void throw_client_error(const std::string& method, const json& error) {
  int code = 0;
  std::string message;
  json data = nullptr;
  if (error.is_object()) {
    if (auto it = error.find("code"); it != error.end() && it->is_number_integer()) {
      code = it->get<int>();
    }
    if (auto it = error.find("message"); it != error.end() && it->is_string()) {
      message = it->get<std::string>();
    }
    if (auto it = error.find("data"); it != error.end()) data = *it;
  }
  throw client_request_error(method, code, std::move(message), std::move(data));
}

// The result object of the client's response `body` to `method`; throws its error instead.
json answered_result(const std::string& method, const json& body) {
  if (auto it = body.find("error"); it != body.end()) throw_client_error(method, *it);
  auto it = body.find("result");
  if (it == body.end() || !it->is_object()) {
    throw client_answer_invalid(method, "the result is not a JSON object");
  }
  return *it;
}

}  // namespace

json outbound_requests::wire_id(std::int64_t n) const {
  if (id_prefix_.empty()) return n;
  return id_prefix_ + std::to_string(n);
}

std::optional<std::int64_t> outbound_requests::number_of(const jsonrpc::request_id& id) const {
  if (id_prefix_.empty()) {
    const auto* n = std::get_if<std::int64_t>(&id);
    return n ? std::optional(*n) : std::nullopt;
  }
  const auto* text = std::get_if<std::string>(&id);
  if (text == nullptr || text->size() <= id_prefix_.size() ||
      text->compare(0, id_prefix_.size(), id_prefix_) != 0) {
    return std::nullopt;
  }
  std::int64_t n = 0;
  const char* first = text->data() + id_prefix_.size();
  const char* last = text->data() + text->size();
  const auto r = std::from_chars(first, last, n);
  if (r.ec != std::errc{} || r.ptr != last) return std::nullopt;
  return n;
}

std::shared_ptr<outbound_requests::waiter> outbound_requests::enter(std::int64_t& id) {
  std::lock_guard lock(mutex_);
  if (closed_) return nullptr;
  id = next_id_++;
  auto w = std::make_shared<waiter>();
  pending_.emplace(id, w);
  return w;
}

bool outbound_requests::leave(std::int64_t id) {
  std::lock_guard lock(mutex_);
  return pending_.erase(id) != 0;
}

json outbound_requests::ask(const client_request& request, const outbound_writer& write,
                            std::chrono::milliseconds timeout, const cancellation_token& token) {
  std::int64_t id = 0;
  auto w = enter(id);
  if (!w || token.cancelled()) {
    if (w) leave(id);
    throw request_cancelled(request.method);
  }
  token.on_cancel([weak = std::weak_ptr<waiter>(w)] {
    if (auto live = weak.lock()) {
      std::lock_guard lock(live->mutex);
      live->woken = true;
      live->cv.notify_all();
    }
  });
  write(request_frame(wire_id(id), request), frame_kind::request);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(w->mutex);
  const bool settled = w->cv.wait_until(lock, deadline, [&] { return w->answered || w->woken; });
  if (w->answered) {
    lock.unlock();
    return answered_result(request.method, w->body);
  }
  lock.unlock();
  // Not answered: the entry may still be pending; a response racing in now is dropped as unknown.
  leave(id);
  if (!settled) {
    write(cancelled_frame(wire_id(id), "timed out after " + std::to_string(timeout.count()) +
                                           " ms waiting for the answer"),
          frame_kind::notification);
    throw client_request_timeout(request.method, timeout);
  }
  write(cancelled_frame(wire_id(id), "the request that asked was cancelled"),
        frame_kind::notification);
  throw request_cancelled(request.method);
}

outbound_requests::routed outbound_requests::resolve(const jsonrpc::message& response) {
  const auto id = response.id ? number_of(*response.id) : std::nullopt;
  if (!id) return routed::unknown_id;
  std::shared_ptr<waiter> w;
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(*id);
    if (it == pending_.end()) return routed::unknown_id;
    w = std::move(it->second);
    pending_.erase(it);
  }
  std::lock_guard lock(w->mutex);
  w->body = response.body;
  w->answered = true;
  w->cv.notify_all();
  return routed::answered;
}

void outbound_requests::close() {
  std::unordered_map<std::int64_t, std::shared_ptr<waiter>> waiting;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    waiting.swap(pending_);
  }
  for (auto& [id, w] : waiting) {
    std::lock_guard lock(w->mutex);
    w->woken = true;
    w->cv.notify_all();
  }
}

std::size_t outbound_requests::pending() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

}  // namespace mcpcxx::detail

namespace mcpcxx::detail {

json legacy_ask(const std::shared_ptr<session_state>& s, const std::shared_ptr<frame_sink>& to,
                const cancellation_token& token, const client_request& r) {
  if (r.method == "elicitation/create" && r.params.value("mode", "") == "url") {
    s->core().elicitations().remember(r.params.value("elicitationId", ""), s);
  }
  const outbound_writer write = [&s, &to](std::string frame, frame_kind kind) {
    s->send(to, std::move(frame), {kind});
  };
  return s->outbound().ask(r, write, s->core().options().client_request_timeout, token);
}

std::function<json(const client_request&)> legacy_ask_hook(std::shared_ptr<session_state> s,
                                                           std::shared_ptr<frame_sink> to,
                                                           cancellation_token token) {
  return [s = std::move(s), to = std::move(to), token = std::move(token)](const client_request& r) {
    return legacy_ask(s, to, token, r);
  };
}

}  // namespace mcpcxx::detail
