// The pooled, reconnecting client (redis/client.hpp): a pool of connections, the backoff after
// failed connects, EVALSHA with its script cache.
#include "redis/client.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "redis/connection.hpp"

namespace mcpcxx::redis {

using detail::clock;
using detail::connection;

namespace {

// The reason alone, without the "Redis at <url>: " every unavailable starts with.
std::string reason_of(const std::string& what, const store_url& url) {
  const std::string prefix = detail::failure_text(url, "");
  return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
}

}  // namespace

struct client::impl {
  explicit impl(options o) : opt(std::move(o)), connect(opt.url), backoff(opt.backoff_min) {
    opt.pool_size = std::max<std::size_t>(opt.pool_size, 1);
  }

  options opt;
  detail::connector connect;
  std::atomic<bool> ok{false};

  std::mutex mutex;  // guards everything below
  std::condition_variable returned;
  std::vector<std::unique_ptr<connection>> idle;
  std::size_t open = 0;          // idle, in use or being opened
  bool down = false;             // the last outcome was a failure
  bool reconnecting = false;     // a connect is under way while down
  clock::time_point retry_at{};  // no connect before (the backoff)
  std::chrono::milliseconds backoff;
  std::string last_failure;

  std::mutex scripts_mutex;
  std::unordered_map<std::string, std::string> scripts;  // script text -> SHA1

  std::unique_ptr<connection> acquire();
  std::unique_ptr<connection> take_idle(std::unique_lock<std::mutex>& lock);
  std::unique_ptr<connection> open_one(std::unique_lock<std::mutex>& lock);
  void give_back(std::unique_ptr<connection> c);
  void drop();
  void broken(const std::string& why);
  void connect_failed(const std::string& why);
  void succeeded();
  std::vector<reply> exchange(const std::vector<command>& cs);
  std::string load(const std::string& script);
};

std::unique_ptr<connection> client::impl::acquire() {
  std::unique_lock lock(mutex);
  const auto give_up = clock::now() + opt.command_timeout;
  for (;;) {
    if (auto c = take_idle(lock)) return c;
    if (open < opt.pool_size) return open_one(lock);
    if (returned.wait_until(lock, give_up) == std::cv_status::timeout && idle.empty() &&
        open >= opt.pool_size) {
      throw unavailable(detail::failure_text(
          opt.url, "all " + std::to_string(opt.pool_size) + " connections stayed busy for " +
                       std::to_string(opt.command_timeout.count()) + " ms"));
    }
  }
}

std::unique_ptr<connection> client::impl::take_idle(std::unique_lock<std::mutex>& /*lock*/) {
  while (!idle.empty()) {
    std::unique_ptr<connection> c = std::move(idle.back());
    idle.pop_back();
    if (c->still_idle()) return c;
    --open;  // closed by the server while pooled (a restart, an idle timeout): not a failure
  }
  return nullptr;
}

std::unique_ptr<connection> client::impl::open_one(std::unique_lock<std::mutex>& lock) {
  const auto now = clock::now();
  if (now < retry_at) {
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(retry_at - now);
    throw unavailable(detail::failure_text(
        opt.url,
        "not retrying for " + std::to_string(wait.count()) + " ms after: " + last_failure));
  }
  if (reconnecting) {  // one caller probes a Redis that was down; the others fail at once
    throw unavailable(detail::failure_text(opt.url, "reconnecting after: " + last_failure));
  }
  ++open;
  reconnecting = down;
  lock.unlock();
  try {
    auto c = std::make_unique<connection>(connect, opt.connect_timeout);
    lock.lock();
    reconnecting = false;
    return c;
  } catch (const unavailable& e) {
    lock.lock();
    --open;
    reconnecting = false;
    connect_failed(e.what());
    returned.notify_one();
    throw;
  }
}

void client::impl::connect_failed(const std::string& why) {
  ok = false;
  down = true;
  retry_at = clock::now() + backoff;
  backoff = std::min(backoff * 2, std::max(opt.backoff_max, opt.backoff_min));
  last_failure = reason_of(why, opt.url);
}

void client::impl::give_back(std::unique_ptr<connection> c) {
  const std::lock_guard lock(mutex);
  idle.push_back(std::move(c));
  returned.notify_one();
}

// A connection left in an unknown state (an exception mid-exchange) is closed.
void client::impl::drop() {
  const std::lock_guard lock(mutex);
  --open;
  returned.notify_one();
}

// A connection failed in use: the pooled ones likely share its fate (Redis went away), so they
// are closed too; the next call connects afresh.
void client::impl::broken(const std::string& why) {
  const std::lock_guard lock(mutex);
  open -= 1 + idle.size();
  idle.clear();
  ok = false;
  down = true;
  last_failure = reason_of(why, opt.url);
  returned.notify_all();
}

void client::impl::succeeded() {
  if (ok.load()) return;
  const std::lock_guard lock(mutex);
  ok = true;
  down = false;
  backoff = opt.backoff_min;
}

std::vector<reply> client::impl::exchange(const std::vector<command>& cs) {
  for (const command& c : cs) {
    if (c.empty()) throw std::invalid_argument("redis: a command needs at least its name");
  }
  std::unique_ptr<connection> c = acquire();
  std::vector<reply> out;
  try {
    out = c->round_trip(cs, opt.command_timeout);
  } catch (const unavailable& e) {
    c.reset();
    broken(e.what());
    throw;
  } catch (...) {
    c.reset();
    drop();
    throw;
  }
  give_back(std::move(c));
  succeeded();
  return out;
}

std::string client::impl::load(const std::string& script) {
  const reply r = exchange({{"SCRIPT", "LOAD", script}}).front();
  if (r.is_error()) throw command_error("Redis refused SCRIPT LOAD: " + r.str);
  const std::lock_guard lock(scripts_mutex);
  scripts[script] = r.str;
  return r.str;
}

client::client(options o) : impl_(std::make_unique<impl>(std::move(o))) {}

client::~client() = default;

void client::check() {
  std::unique_ptr<connection> c;
  try {
    c = std::make_unique<connection>(impl_->connect, impl_->opt.connect_timeout);
  } catch (const unavailable& e) {
    const std::lock_guard lock(impl_->mutex);
    impl_->connect_failed(e.what());
    throw;
  }
  impl_->succeeded();
  const std::lock_guard lock(impl_->mutex);
  if (impl_->open < impl_->opt.pool_size) {
    ++impl_->open;
    impl_->idle.push_back(std::move(c));
    impl_->returned.notify_one();
  }
}

reply client::run(const command& c) {
  reply r = std::move(impl_->exchange({c}).front());
  if (r.is_error()) throw command_error("Redis refused " + c[0] + ": " + r.str);
  return r;
}

std::vector<reply> client::pipeline(const std::vector<command>& cs) {
  if (cs.empty()) return {};
  return impl_->exchange(cs);
}

reply client::eval(const std::string& script, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args) {
  std::string sha;
  {
    const std::lock_guard lock(impl_->scripts_mutex);
    const auto it = impl_->scripts.find(script);
    if (it != impl_->scripts.end()) sha = it->second;
  }
  if (sha.empty()) sha = impl_->load(script);
  command c = {"EVALSHA", sha, std::to_string(keys.size())};
  c.insert(c.end(), keys.begin(), keys.end());
  c.insert(c.end(), args.begin(), args.end());
  reply r = std::move(impl_->exchange({c}).front());
  if (r.is_error() && r.str.rfind("NOSCRIPT", 0) == 0) {  // flushed, or a restarted Redis
    c[1] = impl_->load(script);
    r = std::move(impl_->exchange({c}).front());
  }
  if (r.is_error()) throw command_error("Redis refused EVALSHA: " + r.str);
  return r;
}

bool client::healthy() const noexcept { return impl_->ok.load(); }

const options& client::config() const noexcept { return impl_->opt; }

}  // namespace mcpcxx::redis
