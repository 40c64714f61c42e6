// The in-process notification bus: copy-on-write subscriber lists per kind, handlers called on
// the publishing thread with no bus lock held.
#include "core/notification_bus.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <mutex>
#include <vector>

#include "core/guarded_callback.hpp"

namespace mcpcxx::detail {

namespace {

// One subscriber list per change_kind.
constexpr std::size_t k_kinds = k_change_kind_count;

struct subscriber {
  subscriber(notification_bus::subscription i, notification_bus::handler h,
             notification_bus::interest w)
      : id(i), handler(std::move(h)), wants(std::move(w)) {}
  notification_bus::subscription id;
  guarded_callback<notification_bus::handler> handler;
  guarded_callback<notification_bus::interest> wants;

  bool wants_subject(std::string_view subject) {
    bool yes = false;
    wants.visit([&](const notification_bus::interest& w) { yes = !w || w(subject); });
    return yes;
  }
};

using subscriber_list = std::vector<std::shared_ptr<subscriber>>;

class memory_bus final : public notification_bus {
 public:
  explicit memory_bus(bus_error_callback on_error) : on_error_(std::move(on_error)) {
    for (auto& l : lists_) l = std::make_shared<const subscriber_list>();
  }

  void publish(const change_event& e) override {
    const auto subscribers = list(e.kind);  // held: a handler may change the list meanwhile
    for (const auto& s : *subscribers) deliver(*s, e);
  }

  subscription subscribe(change_kind kind, handler h, interest wants) override {
    const subscription id = next_.fetch_add(1, std::memory_order_relaxed);
    auto s = std::make_shared<subscriber>(id, std::move(h), std::move(wants));
    std::lock_guard g(mutex_);
    auto& slot = lists_[index(kind)];
    auto copy = std::make_shared<subscriber_list>(*slot);
    copy->push_back(std::move(s));
    slot = std::move(copy);
    return id;
  }

  bool unsubscribe(subscription id) override {
    std::shared_ptr<subscriber> gone = take(id);
    if (!gone) return false;
    gone->handler.close();
    gone->wants.close();
    return true;
  }

  bool wanted(change_kind kind, std::string_view subject) const override {
    const auto subs = list(kind);
    return std::any_of(subs->begin(), subs->end(), [subject](const auto& s) {
      return s->handler.open() && s->wants_subject(subject);
    });
  }

 private:
  static std::size_t index(change_kind k) { return static_cast<std::size_t>(k); }

  std::shared_ptr<const subscriber_list> list(change_kind k) const {
    std::lock_guard g(mutex_);
    return lists_[index(k)];
  }

  std::shared_ptr<subscriber> take(subscription id) {
    std::lock_guard g(mutex_);
    for (auto& slot : lists_) {
      auto it =
          std::find_if(slot->begin(), slot->end(), [id](const auto& s) { return s->id == id; });
      if (it == slot->end()) continue;
      std::shared_ptr<subscriber> found = *it;
      auto copy = std::make_shared<subscriber_list>(*slot);
      copy->erase(copy->begin() + (it - slot->begin()));
      slot = std::move(copy);
      return found;
    }
    return nullptr;
  }

  void deliver(subscriber& s, const change_event& e) const {
    try {
      s.handler.call(e);
    } catch (const std::exception& x) {
      report(x.what());
    } catch (...) {
      report("unknown exception");
    }
  }

  void report(std::string_view what) const {
    if (!on_error_) return;
    try {
      on_error_(what);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failing error report must not stop delivery
    }
  }

  bus_error_callback on_error_;
  mutable std::mutex mutex_;
  std::array<std::shared_ptr<const subscriber_list>, k_kinds> lists_;
  std::atomic<subscription> next_{1};
};

}  // namespace

std::unique_ptr<notification_bus> make_memory_notification_bus(bus_error_callback on_error) {
  return std::make_unique<memory_bus>(std::move(on_error));
}

}  // namespace mcpcxx::detail
