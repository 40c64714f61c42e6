// The public task vocabulary (mcpcxx/tasks.hpp) and the default in-memory task store.
#include <charconv>
#include <map>
#include <mutex>
#include <unordered_map>

#include "mcpcxx/tasks.hpp"

namespace mcpcxx {

std::string_view to_string(task_support s) noexcept {
  switch (s) {
    case task_support::optional:
      return "optional";
    case task_support::required:
      return "required";
    case task_support::forbidden:
      break;
  }
  return "forbidden";
}

std::optional<task_support> parse_task_support(std::string_view s) noexcept {
  if (s == "forbidden") return task_support::forbidden;
  if (s == "optional") return task_support::optional;
  if (s == "required") return task_support::required;
  return std::nullopt;
}

std::string_view to_string(task_status s) noexcept {
  switch (s) {
    case task_status::input_required:
      return "input_required";
    case task_status::completed:
      return "completed";
    case task_status::failed:
      return "failed";
    case task_status::cancelled:
      return "cancelled";
    case task_status::working:
      break;
  }
  return "working";
}

bool is_terminal(task_status s) noexcept {
  return s == task_status::completed || s == task_status::failed || s == task_status::cancelled;
}

bool task_record::expired(clock::time_point now) const noexcept {
  return now >= created_at + std::chrono::milliseconds(ttl_ms);
}

namespace {

// Records in creation order (the sequence number is the list cursor), found by id.
class in_memory_store final : public task_store {
 public:
  explicit in_memory_store(in_memory_task_store_options o) : options_(o) {}

  bool create(const task_record& record) override {
    std::lock_guard lock(mutex_);
    purge(task_record::clock::now());
    if (by_id_.size() >= options_.max_tasks || by_id_.count(record.task_id) != 0) return false;
    const std::uint64_t seq = next_++;
    order_.emplace(seq, record);
    by_id_.emplace(record.task_id, seq);
    return true;
  }

  std::optional<task_record> get(std::string_view task_id, std::string_view owner) override {
    std::lock_guard lock(mutex_);
    const task_record* r = find(task_id);
    if (r == nullptr || r->owner != owner) return std::nullopt;
    return *r;
  }

  std::optional<task_record> update(std::string_view task_id,
                                    const std::function<void(task_record&)>& change) override {
    std::lock_guard lock(mutex_);
    task_record* r = find(task_id);
    if (r == nullptr) return std::nullopt;
    change(*r);
    return *r;
  }

  std::optional<task_page> list(std::string_view owner, const std::optional<std::string>& cursor,
                                std::size_t limit) override {
    std::uint64_t from = 0;
    if (cursor && !parse_cursor(*cursor, from)) return std::nullopt;
    std::lock_guard lock(mutex_);
    purge(task_record::clock::now());
    if (cursor && from > next_) return std::nullopt;
    task_page page;
    for (auto it = order_.lower_bound(from); it != order_.end(); ++it) {
      if (it->second.owner != owner) continue;
      if (page.tasks.size() == limit) {
        page.next_cursor = "tasks:" + std::to_string(it->first);
        break;
      }
      page.tasks.push_back(it->second);
    }
    return page;
  }

 private:
  static bool parse_cursor(const std::string& c, std::uint64_t& out) {
    constexpr std::string_view prefix = "tasks:";
    if (c.size() <= prefix.size() || c.compare(0, prefix.size(), prefix) != 0) return false;
    const char* first = c.data() + prefix.size();
    const char* last = c.data() + c.size();
    const auto r = std::from_chars(first, last, out);
    return r.ec == std::errc{} && r.ptr == last;
  }

  // The live record `task_id`; an expired one is erased on the way (its result freed).
  task_record* find(std::string_view task_id) {
    const auto it = by_id_.find(std::string(task_id));
    if (it == by_id_.end()) return nullptr;
    const auto rec = order_.find(it->second);
    if (rec->second.expired(task_record::clock::now())) {
      order_.erase(rec);
      by_id_.erase(it);
      return nullptr;
    }
    return &rec->second;
  }

  void purge(task_record::clock::time_point now) {
    for (auto it = order_.begin(); it != order_.end();) {
      if (it->second.expired(now)) {
        by_id_.erase(it->second.task_id);
        it = order_.erase(it);
      } else {
        ++it;
      }
    }
  }

  in_memory_task_store_options options_;
  std::mutex mutex_;
  std::map<std::uint64_t, task_record> order_;
  std::unordered_map<std::string, std::uint64_t> by_id_;
  std::uint64_t next_ = 1;
};

}  // namespace

std::shared_ptr<task_store> make_in_memory_task_store(in_memory_task_store_options options) {
  return std::make_shared<in_memory_store>(options);
}

}  // namespace mcpcxx
