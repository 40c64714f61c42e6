// The Redis call records (store/redis_stores.hpp): a hash per operation and a lease per running
// claim, each change one Lua script; one thread renews the leases of this replica's claims.
#include <algorithm>
#include <charconv>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/redis_stores.hpp"
#include "store/renewal_loop.hpp"
#include "store/trouble.hpp"

namespace mcpcxx::detail {

namespace {

// KEYS: record, lease. ARGV: call, now ms, expiry ms, replica, lease ms, replaces ("" none).
// Returns {1} when the call claimed the record, else {0, st, call, at, task, result, reason}.
// A running record whose lease is gone turns unknown/replica_lost here, so every reader sees the
// same outcome and a resolver's takeover follows in the same atomic step.
const std::string k_once_claim_script = R"lua(
local h = redis.call('HMGET', KEYS[1], 'st', 'call', 'at', 'task', 'result', 'reason')
local function take()
  redis.call('HSET', KEYS[1], 'st', 'running', 'call', ARGV[1], 'at', ARGV[2], 'task', '',
             'result', '', 'reason', '')
  redis.call('PEXPIREAT', KEYS[1], ARGV[3])
  redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
  return {1}
end
if not h[1] then return take() end
if h[1] == 'running' and redis.call('EXISTS', KEYS[2]) == 0 then
  h[1] = 'unknown'
  h[6] = 'replica_lost'
  redis.call('HSET', KEYS[1], 'st', h[1], 'reason', h[6])
end
if ARGV[6] ~= '' and h[1] == 'unknown' and h[2] == ARGV[6] then return take() end
return {0, h[1], h[2] or '', h[3] or '0', h[4] or '', h[5] or '', h[6] or ''}
)lua";

// KEYS: record, lease. ARGV: call, st, result, reason. Returns 1 when the call held the record.
const std::string k_once_settle_script = R"lua(
if redis.call('HGET', KEYS[1], 'call') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'st', ARGV[2], 'result', ARGV[3], 'reason', ARGV[4])
redis.call('DEL', KEYS[2])
return 1
)lua";

// KEYS: record. ARGV: call, task id. Returns 1 when the call held the record.
const std::string k_once_task_script = R"lua(
if redis.call('HGET', KEYS[1], 'call') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'task', ARGV[2])
return 1
)lua";

// KEYS: record, lease. ARGV: call. Returns 1 when the call held the record.
const std::string k_once_release_script = R"lua(
if redis.call('HGET', KEYS[1], 'call') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
)lua";

// KEYS: pairs (record, lease). ARGV: replica, lease ms, then the call of each pair. Renews the
// lease of each record its call still runs; returns the 1-based numbers of the others, whose
// lease (if any) is another call's and stays.
const std::string k_once_renew_script = R"lua(
local gone = {}
for i = 1, #KEYS, 2 do
  local n = (i + 1) / 2
  local h = redis.call('HMGET', KEYS[i], 'st', 'call')
  if h[1] == 'running' and h[2] == ARGV[2 + n] then
    redis.call('SET', KEYS[i + 1], ARGV[1], 'PX', ARGV[2])
  else
    gone[#gone + 1] = n
  end
end
return gone
)lua";

constexpr std::size_t k_once_leases_per_script = 250;

std::string_view call_state_text(call_state s) {
  switch (s) {
    case call_state::running:
      return "running";
    case call_state::applied:
      return "applied";
    case call_state::unknown:
      return "unknown";
  }
  return "unknown";
}

call_state call_state_named(const std::string& name) {
  if (name == "running") return call_state::running;
  if (name == "applied") return call_state::applied;
  return call_state::unknown;
}

std::int64_t once_integer(const std::string& text) {
  std::int64_t n = 0;
  std::from_chars(text.data(), text.data() + text.size(), n);
  return n;
}

// The record in a claim script's {0, st, call, at, task, result, reason}.
call_record once_record_of(const redis::reply& r) {
  const auto& e = r.elements;
  if (e.size() < 7) throw redis::command_error("call records: a claim returned a short reply");
  call_record out;
  out.state = call_state_named(e[1].str);
  out.call_id = e[2].str;
  out.first_called_at_ms = once_integer(e[3].str);
  out.task_id = e[4].str;
  out.result = e[5].str;
  out.reason = e[6].str;
  return out;
}

// now + window, saturated (PEXPIREAT takes any 64-bit time).
std::int64_t window_end(std::int64_t now_ms, std::chrono::milliseconds window) {
  const std::int64_t w = std::max<std::int64_t>(0, window.count());
  if (now_ms > std::numeric_limits<std::int64_t>::max() - w) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return now_ms + w;
}

class redis_call_records final : public call_records {
 public:
  redis_call_records(redis_scope scope, redis_call_records_options o)
      : scope_(std::move(scope)),
        p_(scope_.key_prefix),
        lease_ms_(std::max<std::int64_t>(3, o.lease.count())),
        trouble_(std::move(o.on_trouble), "call records"),
        renewer_(std::chrono::milliseconds(std::max<std::int64_t>(1, lease_ms_ / 3)),
                 [this] { renew_held(); }) {}

  ~redis_call_records() override { renewer_.stop(); }

  redis_call_records(const redis_call_records&) = delete;
  redis_call_records& operator=(const redis_call_records&) = delete;

  claim_outcome claim(const call_claim& c) override {
    const auto r = trouble_.watch([&] {
      return scope_.client->eval(
          k_once_claim_script, keys(c.key),
          {c.call_id, std::to_string(c.now_ms), std::to_string(window_end(c.now_ms, c.window)),
           scope_.replica_id, std::to_string(lease_ms_), c.replaces});
    });
    if (r.elements.empty()) throw redis::command_error("call records: a claim returned nothing");
    if (r.elements[0].integer == 0) return {false, once_record_of(r)};
    {
      std::lock_guard g(mutex_);
      held_[c.key] = c.call_id;
    }
    claim_outcome out{true, {}};
    out.record.call_id = c.call_id;
    out.record.first_called_at_ms = c.now_ms;
    return out;
  }

  void settle(const std::string& key, const std::string& call_id, const call_record& r) override {
    if (r.state == call_state::running) {
      throw std::invalid_argument("call_records::settle: the outcome must be applied or unknown");
    }
    // Not renewed even if the settle fails: a claim whose outcome went unrecorded must read as
    // unknown once its lease lapses, not as running for the rest of its window.
    drop(key, call_id);
    trouble_.watch([&] {
      return scope_.client->eval(
          k_once_settle_script, keys(key),
          {call_id, std::string(call_state_text(r.state)), r.result, r.reason});
    });
  }

  void set_task(const std::string& key, const std::string& call_id,
                const std::string& task_id) override {
    trouble_.watch([&] {
      return scope_.client->eval(k_once_task_script, {p_ + "once:" + key}, {call_id, task_id});
    });
  }

  void release(const std::string& key, const std::string& call_id) override {
    drop(key, call_id);  // as in settle()
    trouble_.watch(
        [&] { return scope_.client->eval(k_once_release_script, keys(key), {call_id}); });
  }

 private:
  std::vector<std::string> keys(const std::string& key) const {
    return {p_ + "once:" + key, p_ + "once-lease:" + key};
  }

  // Stops renewing `key` if `call_id` still holds it here.
  void drop(const std::string& key, const std::string& call_id) {
    std::lock_guard g(mutex_);
    auto it = held_.find(key);
    if (it != held_.end() && it->second == call_id) held_.erase(it);
  }

  // Renews the leases of `claims` (key, call); those no longer running here stop being renewed.
  void renew(const std::vector<std::pair<std::string, std::string>>& claims) {
    for (std::size_t at = 0; at < claims.size(); at += k_once_leases_per_script) {
      const std::size_t end = std::min(claims.size(), at + k_once_leases_per_script);
      std::vector<std::string> ks;
      std::vector<std::string> args{scope_.replica_id, std::to_string(lease_ms_)};
      for (std::size_t i = at; i < end; ++i) {
        ks.push_back(p_ + "once:" + claims[i].first);
        ks.push_back(p_ + "once-lease:" + claims[i].first);
        args.push_back(claims[i].second);
      }
      const auto r =
          trouble_.watch([&] { return scope_.client->eval(k_once_renew_script, ks, args); });
      for (const auto& n : r.elements) {
        const auto index = at + static_cast<std::size_t>(n.integer) - 1;
        if (index < end) drop(claims[index].first, claims[index].second);
      }
    }
  }

  // The renewal loop's tick: the claims held now.
  void renew_held() {
    std::vector<std::pair<std::string, std::string>> claims;
    {
      std::lock_guard g(mutex_);
      claims.assign(held_.begin(), held_.end());
    }
    renew(claims);
  }

  redis_scope scope_;
  const std::string p_;  // the key prefix
  const std::int64_t lease_ms_;
  trouble_reporter trouble_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::string> held_;  // key -> call: this replica's running claims
  renewal_loop renewer_;                               // last: starts once everything above exists
};

}  // namespace

std::shared_ptr<call_records> make_redis_call_records(redis_scope scope,
                                                      redis_call_records_options o) {
  return std::make_shared<redis_call_records>(std::move(scope), std::move(o));
}

}  // namespace mcpcxx::detail
