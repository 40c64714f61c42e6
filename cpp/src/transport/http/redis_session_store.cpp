#include "transport/http/redis_session_store.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <utility>

#include "transport/http/redis_keys.hpp"
#include "transport/http/redis_support.hpp"

namespace mcpcxx::http {

namespace {

// Reserves the index entry of a new record: drops entries whose records outlived their TTL (by
// score), refuses an id present (0) or a full index (-1), else adds it (1).
// KEYS idx size; ARGV id score max ttl prune_below bytes.
const std::string k_reserve = R"lua(
for _, stale in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[5])) do
  redis.call('ZREM', KEYS[1], stale)
  redis.call('HDEL', KEYS[2], stale)
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
)lua";

// Writes a new record unless one exists. KEYS rec subs; ARGV ttl principal version caps info
// level last uri...
const std::string k_write = R"lua(
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'principal', ARGV[2], 'version', ARGV[3], 'caps', ARGV[4],
           'info', ARGV[5], 'level', ARGV[6], 'last', ARGV[7])
redis.call('DEL', KEYS[2])
for i = 8, #ARGV do redis.call('SADD', KEYS[2], ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
)lua";

// Moves the last use forward and renews the TTL of every key of the session (its events too:
// they live as long as the session); nil when absent, else 1 or (ARGV[3] = '1') the record.
// KEYS rec subs ev_meta ev_log ev_run ev_cxl; ARGV now ttl read.
const std::string k_touch = std::string(k_lua_cmp) + R"lua(
local last = redis.call('HGET', KEYS[1], 'last')
if not last then return false end
if cmp(ARGV[1], last) > 0 then redis.call('HSET', KEYS[1], 'last', ARGV[1]) end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
if ARGV[3] == '1' then
  return {redis.call('HGETALL', KEYS[1]), redis.call('SMEMBERS', KEYS[2])}
end
return 1
)lua";

// Takes the record when used at or before ARGV[1] ('' = any): {fields, subscriptions}; 0 when
// absent, 1 when used later. KEYS rec subs.
const std::string k_take = std::string(k_lua_cmp) + R"lua(
local last = redis.call('HGET', KEYS[1], 'last')
if not last then return 0 end
if ARGV[1] ~= '' and cmp(last, ARGV[1]) > 0 then return 1 end
local rec = redis.call('HGETALL', KEYS[1])
local subs = redis.call('SMEMBERS', KEYS[2])
redis.call('DEL', KEYS[1], KEYS[2])
return {rec, subs}
)lua";

// Changes the client state. KEYS rec subs; ARGV ttl has_level level n_subscribed uri...
const std::string k_update = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'level', ARGV[3]) end
local n = tonumber(ARGV[4])
for i = 5, 4 + n do redis.call('SADD', KEYS[2], ARGV[i]) end
for i = 5 + n, #ARGV do redis.call('SREM', KEYS[2], ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
)lua";

// Drops index entries. KEYS idx size; ARGV id...
const std::string k_unindex = R"lua(
for i = 1, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
end
return #ARGV
)lua";

// The sum of the sizes. KEYS size.
const std::string k_bytes = R"lua(
local total = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(v) end
return total
)lua";

// Scripts and pipelines carry at most this many ids at once.
constexpr std::size_t k_batch = 256;

std::int64_t to_int(const std::string& text) {
  std::int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

std::size_t record_size(const session_record& r) {
  std::size_t n = r.id.size() + r.principal_key.size() + r.protocol_version.size() +
                  r.client_capabilities.size() + r.client_info.size() + r.log_level.size() + 20;
  for (const auto& uri : r.subscriptions) n += uri.size();
  return n;
}

// A record from its HGETALL fields and SMEMBERS reply.
session_record parse_record(const std::string& id, const redis::reply& fields,
                            const redis::reply& subs) {
  session_record r;
  r.id = id;
  r.principal_key = hash_field(fields, "principal");
  r.protocol_version = hash_field(fields, "version");
  r.client_capabilities = hash_field(fields, "caps");
  r.client_info = hash_field(fields, "info");
  r.log_level = hash_field(fields, "level");
  r.last_used_ns = to_int(hash_field(fields, "last"));
  for (const auto& e : subs.elements) r.subscriptions.push_back(e.str);
  std::sort(r.subscriptions.begin(), r.subscriptions.end());
  return r;
}

// The commands that move the index entry of `id` to `now` and renew the index TTLs.
std::vector<redis::command> index_touch(const std::vector<std::string>& index,
                                        const std::string& id, std::int64_t now,
                                        const std::string& ttl) {
  return {{"ZADD", index[0], "XX", "GT", std::to_string(now), id},
          {"PEXPIRE", index[0], ttl},
          {"PEXPIRE", index[1], ttl}};
}

}  // namespace

redis_session_store::redis_session_store(std::shared_ptr<redis::client> client,
                                         std::string key_prefix, std::size_t max_sessions,
                                         std::chrono::milliseconds ttl)
    : client_(std::move(client)),
      prefix_(std::move(key_prefix)),
      max_sessions_(max_sessions),
      ttl_(ttl),
      index_(redis_index_keys(prefix_)) {
  if (!client_) throw std::invalid_argument("redis_session_store needs a client");
  check_redis_key_prefix(prefix_);
}

std::int64_t redis_session_store::clock_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool redis_session_store::insert(session_record r) {
  return store_call([&] {
    const std::string ttl = std::to_string(ttl_.count());
    const std::int64_t ttl_ns = std::chrono::nanoseconds(ttl_).count();
    const std::string last = std::to_string(r.last_used_ns);
    redis::reply reserved =
        client_->eval(k_reserve, index_,
                      {r.id, last, std::to_string(max_sessions_), ttl,
                       std::to_string(r.last_used_ns - ttl_ns), std::to_string(record_size(r))});
    if (reserved.integer != 1) return false;
    auto keys = redis_session_keys::of(prefix_, r.id);
    std::vector<std::string> args = {
        ttl, r.principal_key, r.protocol_version, r.client_capabilities, r.client_info, r.log_level,
        last};
    args.insert(args.end(), r.subscriptions.begin(), r.subscriptions.end());
    // An existing record (its index entry had expired) keeps the entry just made.
    return client_->eval(k_write, {keys.rec, keys.subs}, args).integer == 1;
  });
}

std::optional<session_record> redis_session_store::find(const std::string& id) const {
  return store_call([&]() -> std::optional<session_record> {
    auto keys = redis_session_keys::of(prefix_, id);
    auto replies = client_->pipeline({{"HGETALL", keys.rec}, {"SMEMBERS", keys.subs}});
    if (checked(replies.at(0)).elements.empty()) return std::nullopt;
    return parse_record(id, replies[0], checked(replies.at(1)));
  });
}

redis::reply redis_session_store::touch_script(const std::string& id, std::int64_t now_ns,
                                               bool read) {
  auto keys = redis_session_keys::of(prefix_, id);
  const std::string ttl = std::to_string(ttl_.count());
  std::vector<redis::command> cs = {eval_command(
      k_touch, {keys.rec, keys.subs, keys.ev_meta, keys.ev_log, keys.ev_run, keys.ev_cxl},
      {std::to_string(now_ns), ttl, read ? "1" : "0"})};
  auto more = index_touch(index_, id, now_ns, ttl);
  cs.insert(cs.end(), more.begin(), more.end());
  auto replies = client_->pipeline(cs);
  for (const auto& r : replies) checked(r);
  return std::move(replies.at(0));
}

bool redis_session_store::touch(const std::string& id, std::int64_t now_ns) {
  return store_call([&] { return !touch_script(id, now_ns, false).is_nil(); });
}

std::optional<session_record> redis_session_store::use(const std::string& id, std::int64_t now_ns) {
  return store_call([&]() -> std::optional<session_record> {
    redis::reply r = touch_script(id, now_ns, true);
    if (r.is_nil() || r.elements.size() != 2) return std::nullopt;
    return parse_record(id, r.elements[0], r.elements[1]);
  });
}

bool redis_session_store::remove(const std::string& id) {
  return store_call([&] {
    auto keys = redis_session_keys::of(prefix_, id);
    auto replies = client_->pipeline(
        {{"DEL", keys.rec}, {"DEL", keys.subs}, eval_command(k_unindex, index_, {id})});
    for (const auto& r : replies) checked(r);
    return replies[0].integer > 0;
  });
}

void redis_session_store::unindex(const std::vector<std::string>& ids) {
  for (std::size_t at = 0; at < ids.size(); at += k_batch) {
    const auto end = ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), at + k_batch));
    checked(client_->eval(
        k_unindex, index_,
        std::vector<std::string>(ids.begin() + static_cast<std::ptrdiff_t>(at), end)));
  }
}

std::vector<session_record> redis_session_store::take(const std::vector<std::string>& ids,
                                                      const std::string& cutoff) {
  std::vector<session_record> out;
  std::vector<std::string> gone;
  for (std::size_t at = 0; at < ids.size(); at += k_batch) {
    std::vector<redis::command> cs;
    const std::size_t end = std::min(ids.size(), at + k_batch);
    for (std::size_t i = at; i < end; ++i) {
      auto keys = redis_session_keys::of(prefix_, ids[i]);
      cs.push_back(eval_command(k_take, {keys.rec, keys.subs}, {cutoff}));
    }
    auto replies = client_->pipeline(cs);
    for (std::size_t i = at; i < end; ++i) {
      const redis::reply& r = checked(replies.at(i - at));
      if (r.kind == redis::reply::type::array && r.elements.size() == 2) {
        out.push_back(parse_record(ids[i], r.elements[0], r.elements[1]));
        gone.push_back(ids[i]);
      } else if (r.integer == 0) {
        gone.push_back(ids[i]);  // expired by its TTL: only the index entry was left
      }
    }
  }
  unindex(gone);
  return out;
}

std::vector<session_record> redis_session_store::take_expired(std::int64_t cutoff_ns,
                                                              const session_active_fn& active) {
  return store_call([&] {
    const std::string cutoff = std::to_string(cutoff_ns);
    // The scores are the last uses as doubles: a superset of the records to take, which the
    // script narrows exactly.
    redis::reply candidates = checked(client_->run({"ZRANGEBYSCORE", index_[0], "-inf", cutoff}));
    std::vector<std::string> ids;
    for (const auto& e : candidates.elements) {
      if (!active(e.str)) ids.push_back(e.str);
    }
    return take(ids, cutoff);
  });
}

std::vector<session_record> redis_session_store::take_all() {
  return store_call([&] {
    redis::reply all = checked(client_->run({"ZRANGE", index_[0], "0", "-1"}));
    std::vector<std::string> ids;
    ids.reserve(all.elements.size());
    for (const auto& e : all.elements) ids.push_back(e.str);
    return take(ids, "");
  });
}

std::size_t redis_session_store::size() const {
  try {
    auto n = static_cast<std::size_t>(checked(client_->run({"ZCARD", index_[0]})).integer);
    last_size_.store(n);
    return n;
  } catch (const redis::unavailable&) {
    return last_size_.load();
  }
}

bool redis_session_store::full() const {
  return store_call([&] {
    return static_cast<std::size_t>(checked(client_->run({"ZCARD", index_[0]})).integer) >=
           max_sessions_;
  });
}

std::size_t redis_session_store::bytes() const {
  try {
    auto n = static_cast<std::size_t>(checked(client_->eval(k_bytes, {index_[1]}, {})).integer);
    last_bytes_.store(n);
    return sizeof(*this) + prefix_.capacity() + n;
  } catch (const redis::unavailable&) {
    return sizeof(*this) + prefix_.capacity() + last_bytes_.load();
  }
}

bool redis_session_store::update(const std::string& id, const session_state_change& c) {
  return store_call([&] {
    auto keys = redis_session_keys::of(prefix_, id);
    std::vector<std::string> args = {std::to_string(ttl_.count()), c.log_level ? "1" : "0",
                                     c.log_level.value_or(""), std::to_string(c.subscribed.size())};
    args.insert(args.end(), c.subscribed.begin(), c.subscribed.end());
    args.insert(args.end(), c.unsubscribed.begin(), c.unsubscribed.end());
    return checked(client_->eval(k_update, {keys.rec, keys.subs}, args)).integer == 1;
  });
}

std::vector<std::string> redis_session_store::missing(const std::vector<std::string>& ids) const {
  return store_call([&] {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < ids.size(); at += k_batch) {
      std::vector<redis::command> cs;
      const std::size_t end = std::min(ids.size(), at + k_batch);
      for (std::size_t i = at; i < end; ++i) {
        cs.push_back({"EXISTS", redis_session_keys::of(prefix_, ids[i]).rec});
      }
      auto replies = client_->pipeline(cs);
      for (std::size_t i = at; i < end; ++i) {
        if (checked(replies.at(i - at)).integer == 0) out.push_back(ids[i]);
      }
    }
    return out;
  });
}

}  // namespace mcpcxx::http
