// The engine's task manager: records in the store, live tasks in this process, the task threads.
#include "tasks/tasks.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <stdexcept>

#include "state/codec.hpp"

namespace mcpcxx::detail {

namespace {

using sys_clock = std::chrono::system_clock;

// 128 random bits as 32 hex digits: a task id is a bearer capability when nobody authenticates.
std::string new_task_id() {
  thread_local std::random_device rd;
  std::array<char, 16> bits{};
  for (std::size_t at = 0; at < bits.size(); at += sizeof(std::uint32_t)) {
    const std::uint32_t v = rd();
    std::memcpy(bits.data() + at, &v, sizeof v);
  }
  return state::hex_encode({bits.data(), bits.size()});
}

void put_common(json& j, const task_record& r) {
  j["taskId"] = r.task_id;
  j["status"] = std::string(to_string(r.status));
  if (r.status_message) j["statusMessage"] = *r.status_message;
  j["createdAt"] = iso8601(r.created_at);
  j["lastUpdatedAt"] = iso8601(r.last_updated_at);
}

}  // namespace

json legacy_task_json(const task_record& r) {
  json j = json::object();
  put_common(j, r);
  j["ttl"] = r.ttl_ms;
  j["pollInterval"] = r.poll_interval_ms;
  return j;
}

json modern_task_json(const task_record& r) {
  json j = json::object();
  put_common(j, r);
  j["ttlMs"] = r.ttl_ms;
  j["pollIntervalMs"] = r.poll_interval_ms;
  return j;
}

json modern_detailed_task_json(const task_record& r) {
  json j = modern_task_json(r);
  if (r.status == task_status::completed) j["result"] = r.result;
  if (r.status == task_status::failed) j["error"] = r.error;
  if (r.status == task_status::input_required) j["inputRequests"] = r.input_requests;
  return j;
}

// ---- live_task ----

std::optional<std::vector<json>> live_task::wait(const std::vector<std::string>& keys) {
  std::unique_lock lock(mutex_);
  const auto all_answered = [&] {
    return std::all_of(keys.begin(), keys.end(),
                       [&](const std::string& k) { return answers_.contains(k); });
  };
  cv_.wait(lock, [&] { return token_.cancelled() || all_answered(); });
  waiting_.clear();
  if (token_.cancelled()) return std::nullopt;
  std::vector<json> out;
  for (const auto& k : keys) {
    out.push_back(std::move(answers_[k]));
    answers_.erase(k);
  }
  return out;
}

void live_task::expect(const std::vector<std::string>& keys) {
  std::lock_guard lock(mutex_);
  waiting_ = keys;
}

std::vector<std::string> live_task::deliver(const json& responses) {
  std::vector<std::string> taken;
  {
    std::lock_guard lock(mutex_);
    for (const auto& key : waiting_) {
      if (const auto it = responses.find(key); it != responses.end() && !answers_.contains(key)) {
        answers_[key] = *it;
        taken.push_back(key);
      }
    }
  }
  cv_.notify_all();
  return taken;
}

void live_task::wake() {
  { std::lock_guard lock(mutex_); }
  cv_.notify_all();
}

// ---- task_manager ----

task_manager::task_manager(task_options options)
    : options_(std::move(options)),
      store_(options_.store ? options_.store : make_in_memory_task_store()),
      pool_({.threads = std::max<std::size_t>(1, options_.threads),
             .max_threads = std::max<std::size_t>(1, options_.threads),
             .max_stuck = 0}) {}

task_manager::~task_manager() { stop(std::chrono::milliseconds(0)); }

std::optional<task_record> task_manager::create(const std::string& owner,
                                                std::optional<std::int64_t> requested_ttl_ms,
                                                const cancellation_token& token) {
  task_record r;
  r.task_id = options_.id_generator ? options_.id_generator() : new_task_id();
  r.owner = owner;
  r.created_at = r.last_updated_at = sys_clock::now();
  const std::int64_t ttl = requested_ttl_ms.value_or(options_.default_ttl_ms);
  r.ttl_ms = std::clamp<std::int64_t>(ttl, 1, std::max<std::int64_t>(1, options_.max_ttl_ms));
  r.poll_interval_ms = std::max<std::int64_t>(1, options_.poll_interval_ms);
  {
    std::lock_guard lock(mutex_);
    live_.emplace(r.task_id, std::make_shared<live_task>(token));
  }
  if (!store_->create(r)) {
    std::lock_guard lock(mutex_);
    live_.erase(r.task_id);
    return std::nullopt;
  }
  return r;
}

void task_manager::post(std::function<void()> job) { pool_.post(std::move(job)); }

std::shared_ptr<live_task> task_manager::live(const std::string& task_id) {
  std::lock_guard lock(mutex_);
  const auto it = live_.find(task_id);
  return it == live_.end() ? nullptr : it->second;
}

std::optional<task_record> task_manager::apply(const std::string& task_id,
                                               const std::function<void(task_record&)>& fn) {
  bool applied = false;
  auto after = store_->update(task_id, [&](task_record& r) {
    applied = !is_terminal(r.status);  // set on every run: a shared store may retry the change
    if (applied) fn(r);
  });
  if (!applied) return std::nullopt;
  return after;
}

void task_manager::changed(const std::optional<task_record>& after) {
  status_listener listener;
  {
    std::lock_guard lock(mutex_);
    listener = listener_;
  }
  changed_cv_.notify_all();
  if (!listener || !after) return;
  // Changes made on two threads may arrive here in either order; publishing the store's current
  // record, one at a time, makes the last notification of a task carry its latest state.
  std::lock_guard order(publish_mutex_);
  if (const auto now = store_->get(after->task_id, after->owner)) listener(*now);
}

void task_manager::use_store(std::shared_ptr<task_store> store) {
  std::lock_guard g(mutex_);
  if (!live_.empty()) {
    throw std::logic_error("mcpcxx: the task store cannot change while tasks run");
  }
  store_ = std::move(store);
}

void task_manager::set_status_listener(status_listener fn) {
  std::lock_guard lock(mutex_);
  listener_ = std::move(fn);
}

void task_manager::settle(const std::string& task_id, task_status status, json result, json error) {
  bool done = false;
  // A shared store may run the change again after a conflict: it copies what it sets.
  const auto after = store_->update(task_id, [&](task_record& r) {
    done = !is_terminal(r.status);
    if (!done) return;
    r.status = status;
    r.result = result;
    r.error = error;
    r.input_requests = json::object();
    r.last_updated_at = sys_clock::now();
  });
  {
    std::lock_guard lock(mutex_);
    live_.erase(task_id);
  }
  changed(done ? after : std::nullopt);
}

void task_manager::set_message(const std::string& task_id, std::string message) {
  changed(apply(task_id, [&](task_record& r) {
    r.status_message = message;
    r.last_updated_at = sys_clock::now();
  }));
}

std::optional<task_record> task_manager::cancel(const std::string& task_id,
                                                const std::string& owner) {
  auto before = store_->get(task_id, owner);
  if (!before) return std::nullopt;
  if (is_terminal(before->status)) return before;
  const auto after = apply(task_id, [](task_record& r) {
    r.status = task_status::cancelled;
    r.status_message = "cancelled by the client (tasks/cancel)";
    r.input_requests = json::object();
    r.last_updated_at = sys_clock::now();
  });
  if (auto l = live(task_id)) {
    l->token().cancel();
    l->wake();
  } else if (after) {
    forward(task_id, {{"op", "cancel"}});
  }
  changed(after);
  return before;
}

std::optional<std::vector<json>> task_manager::ask(const std::string& task_id,
                                                   const json& questions) {
  auto l = live(task_id);
  if (!l) return std::nullopt;
  std::vector<std::string> keys;
  for (const auto& [k, v] : questions.items()) keys.push_back(k);
  l->expect(keys);  // before the record says input_required: an early answer is kept
  set_input(task_id, questions);
  auto answers = l->wait(keys);
  if (answers) set_input(task_id, json::object());
  return answers;
}

void task_manager::set_input(const std::string& task_id, const json& pending) {
  changed(apply(task_id, [&](task_record& r) {
    r.status = pending.empty() ? task_status::working : task_status::input_required;
    r.input_requests = pending;
    r.last_updated_at = sys_clock::now();
  }));
}

bool task_manager::answer(const std::string& task_id, const std::string& owner,
                          const json& responses) {
  const auto r = store_->get(task_id, owner);
  if (!r) return false;
  if (auto l = live(task_id)) {
    deliver(task_id, *l, responses);
  } else if (!is_terminal(r->status)) {  // running elsewhere: acknowledged, handed on
    forward(task_id, {{"op", "answer"}, {"responses", responses}});
  }
  return true;
}

void task_manager::deliver(const std::string& task_id, live_task& l, const json& responses) {
  const auto taken = l.deliver(responses);
  if (taken.empty()) return;
  changed(apply(task_id, [&](task_record& r) {
    for (const auto& k : taken) r.input_requests.erase(k);
    r.last_updated_at = sys_clock::now();
  }));
}

void task_manager::set_control_forwarder(control_forwarder fn) {
  std::lock_guard lock(mutex_);
  forwarder_ = std::move(fn);
}

void task_manager::forward(const std::string& task_id, const json& control) {
  control_forwarder fn;
  {
    std::lock_guard lock(mutex_);
    fn = forwarder_;
  }
  if (fn) fn(task_id, control);
}

bool task_manager::apply_control(const std::string& task_id, const json& control) {
  auto l = live(task_id);
  if (!l || !control.is_object()) return false;
  const std::string op = control.value("op", "");
  if (op == "cancel") {
    l->token().cancel();
    l->wake();
    return true;
  }
  const auto responses = control.find("responses");
  if (op != "answer" || responses == control.end() || !responses->is_object()) return false;
  deliver(task_id, *l, *responses);
  return true;
}

std::optional<task_record> task_manager::wait_terminal(const std::string& task_id,
                                                       const std::string& owner,
                                                       const cancellation_token& token) {
  const auto poll =
      std::chrono::milliseconds(std::max<std::int64_t>(50, options_.poll_interval_ms));
  for (;;) {
    auto r = store_->get(task_id, owner);
    if (!r || is_terminal(r->status) || token.cancelled()) return r;
    std::unique_lock lock(mutex_);
    // Woken by changes made here; the timeout covers changes made by another replica's store.
    changed_cv_.wait_for(lock, poll);
  }
}

void task_manager::stop(std::chrono::milliseconds grace) {
  std::vector<std::shared_ptr<live_task>> running;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, l] : live_) running.push_back(l);
  }
  for (auto& l : running) {
    l->token().cancel();
    l->wake();
  }
  changed(std::nullopt);
  pool_.stop(grace);
}

}  // namespace mcpcxx::detail
