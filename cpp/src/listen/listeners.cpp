// Listen streams: the bounded per-listener queue, the registry, and the graceful end.
#include "listen/listeners.hpp"

#include <algorithm>

#include "core/exchange.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"

namespace mcpcxx::detail {

bool listen_filter::watches(std::string_view uri) const {
  return std::binary_search(resource_subscriptions.begin(), resource_subscriptions.end(), uri);
}

bool listen_filter::follows_task(std::string_view task_id) const {
  return std::binary_search(task_ids.begin(), task_ids.end(), task_id);
}

json listen_filter::honored() const {
  json h = json::object();
  if (tools_list_changed) h["toolsListChanged"] = true;
  if (prompts_list_changed) h["promptsListChanged"] = true;
  if (resources_list_changed) h["resourcesListChanged"] = true;
  if (!resource_subscriptions.empty()) h["resourceSubscriptions"] = resource_subscriptions;
  if (task_ids_requested) h["taskIds"] = task_ids;
  return h;
}

listener::listener(std::shared_ptr<exchange> ex, listen_filter filter, std::size_t max_queued)
    : ex_(std::move(ex)),
      filter_(std::move(filter)),
      max_queued_(std::max<std::size_t>(1, max_queued)),
      id_json_(jsonrpc::id_to_json(ex_->id())) {}

const jsonrpc::request_id& listener::id() const noexcept { return ex_->id(); }

const session_state& listener::session() const noexcept { return ex_->session(); }

std::size_t listener::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

std::string listener::frame_of(const listen_notification& n) const {
  json params = n.params.is_object() ? n.params : json::object();
  json& meta = params["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta[k_subscription_id_key] = id_json_;
  return jsonrpc::serialize_notification(n.method, params);
}

// stdio shares one channel between every request, so the end of a stream must be announced;
// an HTTP POST has a stream of its own that its result closes.
bool listener::shared_channel() const { return ex_->reply_sink() == ex_->session().sink(); }

bool listener::writable() const noexcept {
  const auto& sink = ex_->reply_sink();
  return !ended() && !ex_->settled() && (!sink || sink->queued_bytes() <= k_listen_backlog_bytes);
}

void listener::write_locked(std::string frame) {
  ex_->session().send(ex_->reply_sink(), std::move(frame), {frame_kind::notification, {}, true});
}

bool listener::offer(const listen_notification& n) {
  std::string frame = frame_of(n);
  std::lock_guard lock(mutex_);
  if (ended()) return true;
  if (!n.coalesce_key.empty()) {
    auto same = std::find_if(queue_.begin(), queue_.end(),
                             [&](const auto& q) { return q.first == n.coalesce_key; });
    if (same != queue_.end()) {
      // The newer one says everything the older one did; it keeps the older one's place.
      same->second = std::move(frame);
      return true;
    }
  }
  if (queue_.size() >= max_queued_) return false;
  queue_.emplace_back(n.coalesce_key, std::move(frame));
  while (!queue_.empty() && writable()) {
    write_locked(std::move(queue_.front().second));
    queue_.pop_front();
  }
  if (!queue_.empty()) schedule_retry_locked();
  return true;
}

void listener::flush() {
  std::lock_guard lock(mutex_);
  retry_scheduled_ = false;
  while (!queue_.empty() && writable()) {
    write_locked(std::move(queue_.front().second));
    queue_.pop_front();
  }
  if (ended()) {
    queue_.clear();
  } else if (!queue_.empty()) {
    schedule_retry_locked();
  }
}

void listener::schedule_retry_locked() {
  if (retry_scheduled_) return;
  retry_scheduled_ = true;
  std::weak_ptr<listener> weak = weak_from_this();
  ex_->core().deadlines().schedule(std::chrono::steady_clock::now() + k_listen_retry, [weak] {
    if (auto self = weak.lock()) self->flush();
  });
}

void listener::end(std::string_view reason) {
  std::lock_guard lock(mutex_);
  if (ex_->settled()) return;
  queue_.clear();
  if (shared_channel()) {
    json params = {{"requestId", id_json_}, {"reason", std::string(reason)}};
    params["_meta"] = {{k_subscription_id_key, id_json_}};
    write_locked(jsonrpc::serialize_notification("notifications/cancelled", params));
  }
  ended_.store(true, std::memory_order_release);
  ex_->core().log().write("info", "listen_ended",
                          {{"id", id_json_}, {"reason", std::string(reason)}});
  ex_->finish(method_outcome::ok({{"_meta", {{k_subscription_id_key, id_json_}}}}));
}

std::shared_ptr<listener> listener_registry::open(const std::shared_ptr<exchange>& ex,
                                                  listen_filter filter) {
  {
    std::lock_guard lock(mutex_);
    if (closed_ || open_.size() >= options_.max_listeners) return nullptr;
  }
  auto l = std::make_shared<listener>(ex, std::move(filter), options_.listener_queue);
  // The acknowledgement is the stream's first message; nothing is published to it before.
  json params = {{"notifications", l->filter().honored()}};
  ex->session().send(ex->reply_sink(),
                     l->frame_of({"notifications/subscriptions/acknowledged", params, {}}),
                     {frame_kind::notification, {}, true});
  {
    std::lock_guard lock(mutex_);
    open_.emplace(l.get(), l);
    if (closed_) {  // the engine stopped meanwhile: end at once rather than leak the stream
      open_.erase(l.get());
      l->drop();
    }
  }
  if (l->ended()) {
    l->end("the server is stopping");
    return l;
  }
  std::weak_ptr<listener> weak = l;
  ex->token().on_cancel([this, weak] {
    if (auto self = weak.lock()) remove(self.get());
  });
  return l;
}

std::vector<std::shared_ptr<listener>> listener_registry::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<listener>> all;
  all.reserve(open_.size());
  for (const auto& [key, l] : open_) all.push_back(l);
  return all;
}

std::size_t listener_registry::publish(const listen_notification& n,
                                       const std::function<bool(const listener&)>& wants) {
  std::size_t took = 0;
  for (const auto& l : snapshot()) {
    if (l->ended() || !wants(*l)) continue;
    if (l->offer(n)) {
      ++took;
      continue;
    }
    if (remove(l.get())) {
      l->end("the client did not read its notifications: more than " +
             std::to_string(options_.listener_queue) +
             " waited; listen again and re-read what you follow");
    }
  }
  return took;
}

bool listener_registry::any(const std::function<bool(const listener&)>& wants) const {
  std::lock_guard lock(mutex_);
  return std::any_of(open_.begin(), open_.end(),
                     [&](const auto& e) { return !e.second->ended() && wants(*e.second); });
}

std::size_t listener_registry::end(const session_state* s, std::string_view reason) {
  std::size_t ended = 0;
  for (const auto& l : snapshot()) {
    if (s != nullptr && &l->session() != s) continue;
    if (!remove(l.get())) continue;
    l->end(reason);
    ++ended;
  }
  return ended;
}

void listener_registry::close(std::string_view reason) {
  unfollow();
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  end(nullptr, reason);
}

bool listener_registry::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

bool listener_registry::remove(const listener* l) {
  std::shared_ptr<listener> gone;
  {
    std::lock_guard lock(mutex_);
    auto it = open_.find(l);
    if (it == open_.end()) return false;
    gone = std::move(it->second);
    open_.erase(it);
  }
  gone->drop();
  return true;
}

std::size_t listener_registry::size() const {
  std::lock_guard lock(mutex_);
  return open_.size();
}

}  // namespace mcpcxx::detail
