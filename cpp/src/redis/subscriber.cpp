// The SUBSCRIBE connection and its reader thread (redis/client.hpp). Only the reader thread
// touches the socket: subscribe() and unsubscribe() change the wanted set and wake it through an
// eventfd, and it sends the difference. An idle connection is PINGed, so a hung Redis is noticed
// like a closed one.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <poll.h>
#include <set>
#include <string>
#include <sys/eventfd.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <utility>

#include "redis/client.hpp"
#include "redis/connection.hpp"

namespace mcpcxx::redis {

using detail::clock;
using detail::connection;

namespace {

// Silence on the connection for this long sends a PING; its answer must come within
// options::command_timeout.
constexpr std::chrono::milliseconds k_idle_ping{2000};

}  // namespace

struct subscriber::impl {
  impl(options o, message_handler m, std::function<void(bool)> s)
      : opt(std::move(o)),
        connect(opt.url),
        on_message(std::move(m)),
        on_state(std::move(s)),
        wake_fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
        backoff(opt.backoff_min) {
    if (wake_fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  }
  ~impl() { ::close(wake_fd); }
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;

  options opt;
  detail::connector connect;
  message_handler on_message;
  std::function<void(bool)> on_state;
  int wake_fd;
  std::atomic<bool> stopping{false};
  std::thread reader;

  std::mutex mutex;  // guards wanted and confirmed
  std::condition_variable changed;
  std::set<std::string> wanted;     // asked for by subscribe(), not unsubscribed since
  std::set<std::string> confirmed;  // confirmed by Redis on the current connection

  // The reader thread's own state.
  std::set<std::string> sent;  // SUBSCRIBEd (and not UNSUBSCRIBEd) on the current connection
  std::optional<bool> reported;
  std::chrono::milliseconds backoff;

  void wake() const;
  void drain() const;
  void run();
  void session(connection& c);
  void sync(connection& c);
  void handle(const reply& r);
  void report(bool up);
  void pause(std::chrono::milliseconds how_long);
};

void subscriber::impl::wake() const {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(wake_fd, &one, sizeof one);  // full counter: awake anyway
}

void subscriber::impl::drain() const {
  std::uint64_t count = 0;
  while (::read(wake_fd, &count, sizeof count) > 0) {
  }
}

void subscriber::impl::run() {
  while (!stopping.load()) {
    try {
      connection c(connect, opt.connect_timeout);
      backoff = opt.backoff_min;
      session(c);
    } catch (const std::exception&) {  // unavailable, or no memory: the loop goes on
    }
    {
      const std::lock_guard lock(mutex);
      confirmed.clear();
    }
    changed.notify_all();
    if (stopping.load()) break;
    report(false);
    pause(backoff);
    backoff = std::min(backoff * 2, std::max(opt.backoff_max, opt.backoff_min));
  }
}

void subscriber::impl::session(connection& c) {
  sent.clear();
  auto heard = clock::now();
  bool pinged = false;
  while (!stopping.load()) {
    sync(c);
    bool up = false;
    {
      const std::lock_guard lock(mutex);
      up = std::includes(confirmed.begin(), confirmed.end(), sent.begin(), sent.end());
    }
    if (up) report(true);
    const auto deadline = pinged ? heard + k_idle_ping + opt.command_timeout : heard + k_idle_ping;
    if (auto r = c.next_reply(deadline, wake_fd)) {
      heard = clock::now();
      pinged = false;
      handle(*r);
      continue;
    }
    drain();
    if (clock::now() < deadline) continue;  // woken: subscribe(), unsubscribe() or stop()
    if (pinged) {
      throw unavailable(detail::failure_text(
          opt.url,
          "no answer to PING within " + std::to_string(opt.command_timeout.count()) + " ms"));
    }
    c.send({{"PING"}}, opt.command_timeout);
    pinged = true;
  }
}

// Sends SUBSCRIBE for the channels wanted but not sent, UNSUBSCRIBE for those no longer wanted.
void subscriber::impl::sync(connection& c) {
  command add = {"SUBSCRIBE"};
  command remove = {"UNSUBSCRIBE"};
  {
    const std::lock_guard lock(mutex);
    for (const auto& ch : wanted) {
      if (sent.count(ch) == 0) add.push_back(ch);
    }
    for (const auto& ch : sent) {
      if (wanted.count(ch) == 0) remove.push_back(ch);
    }
  }
  std::vector<command> cs;
  if (add.size() > 1) cs.push_back(add);
  if (remove.size() > 1) cs.push_back(remove);
  if (cs.empty()) return;
  c.send(cs, opt.command_timeout);
  sent.insert(add.begin() + 1, add.end());
  for (auto it = remove.begin() + 1; it != remove.end(); ++it) sent.erase(*it);
}

void subscriber::impl::handle(const reply& r) {
  if (r.is_error()) {
    throw unavailable(detail::failure_text(opt.url, "error reply to a subscriber: " + r.str));
  }
  if (r.kind != reply::type::array || r.elements.size() < 2) return;  // +PONG when unsubscribed
  const std::string& kind = r.elements[0].str;
  const std::string& channel = r.elements[1].str;
  if (kind == "message" && r.elements.size() == 3) {
    bool wanted_now = false;
    {
      const std::lock_guard lock(mutex);
      wanted_now = wanted.count(channel) != 0;  // not for a channel unsubscribe() dropped
    }
    if (!wanted_now || !on_message) return;
    try {
      on_message(channel, r.elements[2].str);
    } catch (...) {  // a handler's exception must not end the subscription
    }
    return;
  }
  if (kind == "subscribe" || kind == "unsubscribe") {
    {
      const std::lock_guard lock(mutex);
      if (kind == "subscribe") {
        confirmed.insert(channel);
      } else {
        confirmed.erase(channel);
      }
    }
    changed.notify_all();
  }
}

void subscriber::impl::report(bool up) {
  if (reported == up) return;
  reported = up;
  if (!on_state) return;
  try {
    on_state(up);
  } catch (...) {  // as for on_message
  }
}

// Sleeps `how_long`, or less when stop() is called.
void subscriber::impl::pause(std::chrono::milliseconds how_long) {
  const auto until = clock::now() + how_long;
  while (!stopping.load() && clock::now() < until) {
    pollfd p{wake_fd, POLLIN, 0};
    ::poll(&p, 1, detail::remaining_ms(until));
    drain();
  }
}

subscriber::subscriber(options o, message_handler on_message, std::function<void(bool up)> on_state)
    : impl_(std::make_unique<impl>(std::move(o), std::move(on_message), std::move(on_state))) {
  impl_->reader = std::thread([state = impl_.get()] { state->run(); });
}

subscriber::~subscriber() { stop(); }

void subscriber::subscribe(const std::string& channel) {
  {
    const std::lock_guard lock(impl_->mutex);
    impl_->wanted.insert(channel);
  }
  impl_->wake();
}

void subscriber::unsubscribe(const std::string& channel) {
  {
    const std::lock_guard lock(impl_->mutex);
    impl_->wanted.erase(channel);
  }
  impl_->changed.notify_all();
  impl_->wake();
}

bool subscriber::wait_subscribed(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->mutex);
  return impl_->changed.wait_for(lock, timeout, [&] {
    return std::includes(impl_->confirmed.begin(), impl_->confirmed.end(), impl_->wanted.begin(),
                         impl_->wanted.end());
  });
}

void subscriber::stop() {
  impl_->stopping = true;
  impl_->wake();
  if (impl_->reader.joinable() && impl_->reader.get_id() != std::this_thread::get_id()) {
    impl_->reader.join();
  }
}

}  // namespace mcpcxx::redis
