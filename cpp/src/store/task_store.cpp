// The Redis task store (store/redis_stores.hpp): records in hashes, the bound and the pages in
// sorted sets, leases renewed by one thread; every read fails a task whose lease is gone.
#include <array>
#include <charconv>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "store/lease_failure.hpp"
#include "store/redis_stores.hpp"
#include "store/renewal_loop.hpp"
#include "store/task_codec.hpp"
#include "store/task_scripts.hpp"
#include "store/trouble.hpp"

namespace mcpcxx::detail {

namespace {

namespace scripts = task_scripts;

const std::string k_create_script =
    std::string(scripts::k_extend_fn) + std::string(scripts::k_create_body);
const std::string k_update_script =
    std::string(scripts::k_extend_fn) + std::string(scripts::k_update_body);
const std::string k_read_script(scripts::k_read);
const std::string k_list_script(scripts::k_list);
const std::string k_renew_script(scripts::k_renew);

constexpr std::string_view k_cursor_prefix = "tasks:";
constexpr int k_max_attempts = 100;  // compare-and-set rounds before giving up on a busy record
constexpr std::size_t k_leases_per_script = 250;

// A record as read, with what the store keeps beside it.
struct snapshot {
  task_record record;
  std::string version;
  std::string replica;  // who created it ("" for none)
  bool lease = false;   // its lease key exists

  bool running() const { return !is_terminal(record.status); }
};

snapshot to_snapshot(const redis::reply& r, std::size_t first) {
  const auto& e = r.elements;
  snapshot s;
  s.record = decode_record(e.at(first).str);
  s.version = e.at(first + 1).str;
  s.replica = e.at(first + 3).str;
  s.lease = e.at(first + 4).integer != 0;
  return s;
}

std::optional<std::uint64_t> parse_cursor(const std::string& c) {
  if (c.size() <= k_cursor_prefix.size() || c.compare(0, k_cursor_prefix.size(), k_cursor_prefix))
    return std::nullopt;
  std::uint64_t seq = 0;
  const char* last = c.data() + c.size();
  const auto r = std::from_chars(c.data() + k_cursor_prefix.size(), last, seq);
  if (r.ec != std::errc{} || r.ptr != last) return std::nullopt;
  return seq;
}

class redis_task_store final : public leased_task_store {
 public:
  redis_task_store(redis_scope scope, redis_task_store_options options)
      : scope_(std::move(scope)),
        options_(std::move(options)),
        p_(scope_.key_prefix),
        lease_ms_(std::max<std::int64_t>(3, options_.lease.count())),
        trouble_(options_.on_trouble, "task store"),
        renewer_(std::chrono::milliseconds(std::max<std::int64_t>(1, lease_ms_ / 3)),
                 [this] { renew_leased(); }) {}

  ~redis_task_store() override {
    try {
      release();
    } catch (...) {  // NOLINT(bugprone-empty-catch): the leases expire by themselves
    }
  }

  redis_task_store(const redis_task_store&) = delete;
  redis_task_store& operator=(const redis_task_store&) = delete;

  bool create(const task_record& record) override {
    if (record.expired(task_record::clock::now())) return true;  // nothing would ever see it
    const bool lease = !is_terminal(record.status) && !released();
    const auto r = trouble_.watch([&] {
      return scope_.client->eval(k_create_script, task_keys(record.task_id, record.owner),
                                 {std::to_string(now_epoch_ms()), std::to_string(expiry_ms(record)),
                                  std::to_string(options_.max_tasks), encode_record(record),
                                  std::string(to_string(record.status)), scope_.replica_id,
                                  lease ? std::to_string(lease_ms_) : "0", record.task_id});
    });
    if (r.integer <= 0) return false;
    if (lease) {
      std::lock_guard g(mutex_);
      leased_.insert(record.task_id);
    }
    return true;
  }

  std::optional<task_record> get(std::string_view task_id, std::string_view owner) override {
    auto s = read(std::string(task_id));
    if (!s || s->record.owner != owner) return std::nullopt;
    return settled(std::move(*s)).record;
  }

  std::optional<task_record> update(std::string_view task_id,
                                    const std::function<void(task_record&)>& change) override {
    const std::string id(task_id);
    std::lock_guard order(stripe(id));  // updates from this process take turns: no conflicts
    for (int attempt = 0; attempt < k_max_attempts; ++attempt) {
      auto s = read(id);
      if (!s) return std::nullopt;
      task_record next = s->record;
      change(next);
      next.task_id = s->record.task_id;
      next.owner = s->record.owner;
      if (write(*s, next, false)) return next;
    }
    throw redis::unavailable("task " + id + " kept changing under " +
                             std::to_string(k_max_attempts) + " updates in a row");
  }

  std::optional<task_page> list(std::string_view owner, const std::optional<std::string>& cursor,
                                std::size_t limit) override {
    std::uint64_t from = 0;
    if (cursor) {
      const auto seq = parse_cursor(*cursor);
      if (!seq) return std::nullopt;
      from = *seq;
    }
    const std::string o(owner);
    const auto r = trouble_.watch([&] {
      return scope_.client->eval(
          k_list_script, {p_ + "task-owner:" + o, p_ + "task-seq"},
          {std::to_string(from), std::to_string(limit + 1), p_ + "task:", p_ + "task-lease:"});
    });
    if (r.kind == redis::reply::type::integer) return std::nullopt;  // -1: never issued
    return page_of(r, o, limit);
  }

  void release() override {
    std::vector<std::string> ids;
    {
      std::lock_guard g(mutex_);
      if (released_) return;
      released_ = true;
      ids.assign(leased_.begin(), leased_.end());
      leased_.clear();
    }
    renewer_.stop();
    for (std::size_t at = 0; at < ids.size(); at += k_leases_per_script) {
      redis::command del{"DEL"};
      for (std::size_t i = at; i < std::min(ids.size(), at + k_leases_per_script); ++i) {
        del.push_back(p_ + "task-lease:" + ids[i]);
      }
      trouble_.watch([&] { return scope_.client->run(del); });
    }
  }

  std::size_t leased() const override {
    std::lock_guard g(mutex_);
    return leased_.size();
  }

 private:
  // task, lease, index, owner, seq: the keys the create and update scripts take.
  std::vector<std::string> task_keys(const std::string& id, const std::string& owner) const {
    return {p_ + "task:" + id, p_ + "task-lease:" + id, p_ + "task-index",
            p_ + "task-owner:" + owner, p_ + "task-seq"};
  }

  std::mutex& stripe(const std::string& id) {
    return stripes_[std::hash<std::string>{}(id) % stripes_.size()];
  }

  bool released() const {
    std::lock_guard g(mutex_);
    return released_;
  }

  // The live record `id` (expired by this process's clock too: nil otherwise).
  std::optional<snapshot> read(const std::string& id) {
    const auto r = trouble_.watch([&] {
      return scope_.client->eval(k_read_script, {p_ + "task:" + id, p_ + "task-lease:" + id}, {});
    });
    if (r.is_nil() || r.elements.size() < 5) return std::nullopt;
    snapshot s = to_snapshot(r, 0);
    if (s.record.expired(task_record::clock::now())) return std::nullopt;
    return s;
  }

  // Writes `next` over `s` if nobody changed it since (and, for `lease_gone`, its lease is
  // still gone); false on a conflict.
  bool write(const snapshot& s, const task_record& next, bool lease_gone) {
    const bool moved = next.created_at != s.record.created_at || next.ttl_ms != s.record.ttl_ms;
    const bool terminal = is_terminal(next.status);
    const auto r = trouble_.watch([&] {
      return scope_.client->eval(
          k_update_script, task_keys(next.task_id, next.owner),
          {s.version, encode_record(next), std::string(to_string(next.status)),
           moved ? std::to_string(expiry_ms(next)) : "", next.task_id, lease_gone ? "1" : "0",
           terminal ? "1" : "0"});
    });
    if (r.integer <= 0) return false;
    if (terminal) {
      std::lock_guard g(mutex_);
      leased_.erase(next.task_id);
    }
    return true;
  }

  // `s` as readers must see it: a task whose replica stopped renewing its lease is failed (once,
  // atomically: the write requires the lease to be gone still). Our own running task whose
  // lease lapsed (Redis was away) gets it back instead.
  snapshot settled(snapshot s) {
    for (int attempt = 0; attempt < k_max_attempts; ++attempt) {
      if (!s.running() || s.lease || s.replica.empty()) return s;
      if (s.replica == scope_.replica_id && holds(s.record.task_id)) {
        renew({s.record.task_id});
        return s;
      }
      task_record failed = lease_lost_record(s.record, s.replica);
      if (write(s, failed, true)) {
        if (options_.on_lost) options_.on_lost(failed);
        s.record = std::move(failed);
        return s;
      }
      auto again = read(s.record.task_id);
      if (!again) return s;  // expired meanwhile: what the reader saw last
      s = std::move(*again);
    }
    return s;
  }

  bool holds(const std::string& id) const {
    std::lock_guard g(mutex_);
    return !released_ && leased_.count(id) != 0;
  }

  task_page page_of(const redis::reply& r, const std::string& owner, std::size_t limit) {
    task_page page;
    const auto now = task_record::clock::now();
    for (std::size_t i = 0; i < r.elements.size(); ++i) {
      const redis::reply& item = r.elements[i];
      if (i == limit) {
        page.next_cursor = std::string(k_cursor_prefix) + item.elements.at(0).str;
        break;
      }
      snapshot s = to_snapshot(item, 1);
      if (s.record.owner != owner || s.record.expired(now)) continue;
      page.tasks.push_back(settled(std::move(s)).record);
    }
    return page;
  }

  // Renews the leases of `ids`; those whose task finished (or is gone) are no longer leased.
  void renew(const std::vector<std::string>& ids) {
    for (std::size_t at = 0; at < ids.size(); at += k_leases_per_script) {
      const std::size_t end = std::min(ids.size(), at + k_leases_per_script);
      std::vector<std::string> keys;
      for (std::size_t i = at; i < end; ++i) {
        keys.push_back(p_ + "task:" + ids[i]);
        keys.push_back(p_ + "task-lease:" + ids[i]);
      }
      const auto r = trouble_.watch([&] {
        return scope_.client->eval(k_renew_script, keys,
                                   {scope_.replica_id, std::to_string(lease_ms_)});
      });
      std::vector<std::string> settled;
      {
        std::lock_guard g(mutex_);
        for (const auto& n : r.elements) {
          const auto index = at + static_cast<std::size_t>(n.integer) - 1;
          // Still leased here: this replica has not settled it, another one has.
          if (index < end && leased_.erase(ids[index]) != 0) settled.push_back(ids[index]);
        }
      }
      if (options_.on_settled_elsewhere) {
        for (const auto& id : settled) options_.on_settled_elsewhere(id);
      }
    }
  }

  // The renewal loop's tick: the tasks this replica runs now.
  void renew_leased() {
    std::vector<std::string> ids;
    {
      std::lock_guard g(mutex_);
      if (released_) return;
      ids.assign(leased_.begin(), leased_.end());
    }
    renew(ids);
  }

  redis_scope scope_;
  redis_task_store_options options_;
  const std::string p_;  // the key prefix
  const std::int64_t lease_ms_;
  trouble_reporter trouble_;
  std::array<std::mutex, 64> stripes_;  // see update()
  mutable std::mutex mutex_;
  std::unordered_set<std::string> leased_;  // this replica's running tasks
  bool released_ = false;
  renewal_loop renewer_;  // last: starts once everything above exists
};

}  // namespace

std::shared_ptr<leased_task_store> make_redis_task_store(redis_scope scope,
                                                         redis_task_store_options options) {
  return std::make_shared<redis_task_store>(std::move(scope), std::move(options));
}

}  // namespace mcpcxx::detail
