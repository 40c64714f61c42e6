// The Lua scripts of the Redis task store (store/task_store.cpp), each one atomic on the server.
// Key layout in store/redis_stores.hpp. Scripts that take key names in ARGV (list) reach keys
// they do not declare: fine on one Redis, not on Redis Cluster (docs/scale-out.md).
// Thread-safety: constants.
#pragma once

#include <string_view>

namespace mcpcxx::detail::task_scripts {

/// A Lua function the scripts below that write records start with: extend(first, last, expiry)
/// extends the TTL of KEYS[first..last] to at least absolute ms `expiry` (server time).
inline constexpr std::string_view k_extend_fn = R"lua(
local function extend(first, last, expiry)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  for i = first, last do
    local left = redis.call('PTTL', KEYS[i])
    if left < 0 or now + left < expiry then redis.call('PEXPIREAT', KEYS[i], expiry) end
  end
end
)lua";

/// After k_extend_fn. KEYS: task, lease, index, owner, seq. ARGV: now ms, expiry ms, max tasks,
/// record, status, replica, lease ms (0: none), task id. Returns the creation sequence (> 0), 0
/// when the id exists, -1 when the store is full of live records.
inline constexpr std::string_view k_create_body = R"lua(
local now, expiry = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return -1 end
local seq = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[1], 'r', ARGV[4], 'v', 1, 'st', ARGV[5], 'rep', ARGV[6], 'seq', seq)
redis.call('PEXPIREAT', KEYS[1], expiry)
redis.call('ZADD', KEYS[3], expiry, ARGV[8])
redis.call('ZADD', KEYS[4], seq, ARGV[8])
extend(3, 5, expiry)
if tonumber(ARGV[7]) > 0 then redis.call('SET', KEYS[2], ARGV[6], 'PX', ARGV[7]) end
return seq
)lua";

/// KEYS: task, lease. Returns nil, or {record, version, status, replica, lease exists (0/1)}.
inline constexpr std::string_view k_read = R"lua(
local h = redis.call('HMGET', KEYS[1], 'r', 'v', 'st', 'rep')
if not h[1] then return false end
h[5] = redis.call('EXISTS', KEYS[2])
return h
)lua";

/// After k_extend_fn. KEYS: task, lease, index, owner, seq. ARGV: expected version, record, status,
/// new expiry ms
/// ("" unchanged), task id, "1" to require the lease to be gone, "1" when the status is
/// terminal (the lease is deleted). Returns the new version, 0 on a conflict, -1 when gone.
inline constexpr std::string_view k_update_body = R"lua(
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
if ARGV[6] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local version = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'v', version, 'st', ARGV[3])
if ARGV[7] == '1' then redis.call('DEL', KEYS[2]) end
if ARGV[4] ~= '' then
  local expiry = tonumber(ARGV[4])
  redis.call('PEXPIREAT', KEYS[1], expiry)
  redis.call('ZADD', KEYS[3], 'XX', expiry, ARGV[5])
  extend(3, 5, expiry)
end
return version
)lua";

/// KEYS: owner, seq. ARGV: first sequence, how many, task key prefix, lease key prefix. Returns
/// -1 for a sequence never issued, else up to `how many` {seq, record, version, status,
/// replica, lease exists} in sequence order (ids whose record is gone are dropped from owner).
inline constexpr std::string_view k_list = R"lua(
local want = tonumber(ARGV[2])
if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[2]) or '0') then return -1 end
local out = {}
local start = ARGV[1]
while #out < want do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], start, '+inf', 'WITHSCORES', 'LIMIT', 0, want)
  if #ids == 0 then break end
  for i = 1, #ids, 2 do
    local h = redis.call('HMGET', ARGV[3] .. ids[i], 'r', 'v', 'st', 'rep')
    if h[1] then
      out[#out + 1] = {ids[i + 1], h[1], h[2], h[3], h[4], redis.call('EXISTS', ARGV[4] .. ids[i])}
      if #out == want then break end
    else
      redis.call('ZREM', KEYS[1], ids[i])
    end
  end
  start = '(' .. ids[#ids]
end
return out
)lua";

/// KEYS: pairs (task, lease). ARGV: replica, lease ms. Renews the lease of each unfinished task,
/// deletes it for the others; returns the 1-based pair numbers of those (no longer leased).
inline constexpr std::string_view k_renew = R"lua(
local gone = {}
for i = 1, #KEYS, 2 do
  local st = redis.call('HGET', KEYS[i], 'st')
  if st == 'working' or st == 'input_required' then
    redis.call('SET', KEYS[i + 1], ARGV[1], 'PX', ARGV[2])
  else
    redis.call('DEL', KEYS[i + 1])
    gone[#gone + 1] = (i + 1) / 2
  end
end
return gone
)lua";

}  // namespace mcpcxx::detail::task_scripts
