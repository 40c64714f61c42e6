#include "transport/http/redis_event_store.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <sys/random.h>
#include <unordered_map>
#include <utility>
#include <vector>

#include "transport/http/redis_keys.hpp"
#include "transport/http/redis_support.hpp"
#include "transport/http/wire.hpp"

namespace mcpcxx::http {

namespace {

// Every script takes KEYS meta log run cxl and ARGV[1] = the handle's token, ARGV[2] = the TTL;
// `stale` is true when the session's record is not the handle's (forgotten, or made afresh).
const std::string k_prologue = R"lua(
local stale = redis.call('HGET', KEYS[1], 'gen') ~= ARGV[1]
local function renew()
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
)lua";

// Joins or creates the record: {token, bytes}.
const std::string k_open = R"lua(
local gen = redis.call('HGET', KEYS[1], 'gen')
if not gen then
  gen = ARGV[1]
  redis.call('HSET', KEYS[1], 'gen', gen, 'seq', 0, 'streams', 0, 'bytes', 0)
end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return {gen, redis.call('HGET', KEYS[1], 'bytes')}
)lua";

// Numbers an event and keeps it: {seq, bytes}; {0, 0} when stale.
// ARGV[3] capacity, [4] stream, [5] entry tail ("m:<frame>" or "p:"), [6] '' or the digest of
// a broadcast frame, [7] its window in ms. A broadcast frame whose digest was appended within
// the window (field 'once' of meta: "<digest>:<seq>:<ms>;" entries) is not kept again: {that
// seq, -1}.
const std::string k_append = k_prologue + R"lua(
if stale then return {0, 0} end
local once, now = nil, 0
if ARGV[6] ~= '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  once = {}
  local window = tonumber(ARGV[7])
  for d, s, at in string.gmatch(redis.call('HGET', KEYS[1], 'once') or '', '(%w+):(%d+):(%d+);') do
    if now - tonumber(at) < window then
      if d == ARGV[6] then
        renew()
        return {tonumber(s), -1}
      end
      once[#once + 1] = d .. ':' .. s .. ':' .. at .. ';'
    end
  end
end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
if once then
  once[#once + 1] = ARGV[6] .. ':' .. seq .. ':' .. now .. ';'
  redis.call('HSET', KEYS[1], 'once', table.concat(once))
end
local bytes = tonumber(redis.call('HGET', KEYS[1], 'bytes'))
local cap = tonumber(ARGV[3])
if cap > 0 then
  local entry = ARGV[4] .. ':' .. seq .. ':' .. ARGV[5]
  redis.call('RPUSH', KEYS[2], entry)
  bytes = redis.call('HINCRBY', KEYS[1], 'bytes', #entry)
  while redis.call('LLEN', KEYS[2]) > cap do
    bytes = redis.call('HINCRBY', KEYS[1], 'bytes', -#redis.call('LPOP', KEYS[2]))
  end
end
renew()
return {seq, bytes}
)lua";

// A fresh stream number, marked running; 0 when stale.
const std::string k_open_stream = k_prologue + R"lua(
if stale then return 0 end
local n = redis.call('HINCRBY', KEYS[1], 'streams', 1)
redis.call('SADD', KEYS[3], n)
renew()
return n
)lua";

// ARGV[3] stream: no longer running.
const std::string k_finish = k_prologue + R"lua(
if stale then return 0 end
redis.call('SREM', KEYS[3], ARGV[3])
renew()
return 1
)lua";

// ARGV[3] stream, [4] marker "<stream>:<request id JSON>", [5] markers kept.
const std::string k_cancel = k_prologue + R"lua(
if stale then return 0 end
redis.call('RPUSH', KEYS[4], ARGV[4])
redis.call('LTRIM', KEYS[4], -tonumber(ARGV[5]), -1)
redis.call('SREM', KEYS[3], ARGV[3])
renew()
return 1
)lua";

// ARGV[3] stream: {1} running, {2, id JSON} cancelled, {0} ended.
const std::string k_state = k_prologue + R"lua(
if stale then return {0} end
if redis.call('SISMEMBER', KEYS[3], ARGV[3]) == 1 then return {1} end
local prefix = ARGV[3] .. ':'
for _, m in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
  if string.sub(m, 1, #prefix) == prefix then return {2, string.sub(m, #prefix + 1)} end
end
return {0}
)lua";

// The kept entries of stream ARGV[3] with a seq above ARGV[4], oldest first.
const std::string k_replay = k_prologue + R"lua(
if stale then return {} end
local last = tonumber(redis.call('HGET', KEYS[1], 'seq'))
local n = redis.call('LLEN', KEYS[2])
local start = math.max(0, tonumber(ARGV[4]) + 1 - (last - n + 1))
local prefix = ARGV[3] .. ':'
local out = {}
for _, e in ipairs(redis.call('LRANGE', KEYS[2], start, -1)) do
  if string.sub(e, 1, #prefix) == prefix then out[#out + 1] = e end
end
return out
)lua";

// Whether (ARGV[3] stream, ARGV[4] seq) was handed out: 1 or 0 (session_events::issued).
const std::string k_issued = k_prologue + R"lua(
if stale then return 0 end
local last = tonumber(redis.call('HGET', KEYS[1], 'seq'))
local streams = tonumber(redis.call('HGET', KEYS[1], 'streams'))
local s, q = tonumber(ARGV[3]), tonumber(ARGV[4])
if q == 0 or q > last or s > streams then return 0 end
local n = redis.call('LLEN', KEYS[2])
local first = last - n + 1
if n == 0 or q < first then return 1 end
local e = redis.call('LINDEX', KEYS[2], q - first)
local prefix = ARGV[3] .. ':'
if string.sub(e, 1, #prefix) == prefix then return 1 end
return 0
)lua";

// 32 hex characters from getrandom(2): the token of a record.
std::string new_token() {
  std::array<unsigned char, 16> raw{};
  std::size_t got = 0;
  while (got < raw.size()) {
    ssize_t n = ::getrandom(raw.data() + got, raw.size() - got, 0);
    if (n < 0) throw std::runtime_error("getrandom failed");
    got += static_cast<std::size_t>(n);
  }
  std::string out;
  out.reserve(32);
  for (unsigned char b : raw) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", b);
    out.append(two, 2);
  }
  return out;
}

std::size_t to_size(const std::string& text) {
  std::size_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Names a broadcast frame of `stream` among the frames appended within the window: FNV-1a, 64
// bits, as 16 hex digits (the same on every replica, unlike std::hash).
std::string digest_of(std::uint64_t stream, std::string_view frame) {
  std::uint64_t h = 14695981039346656037ULL;
  const auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ULL;
  };
  for (const char c : std::to_string(stream) + ":") mix(static_cast<unsigned char>(c));
  for (const char c : frame) mix(static_cast<unsigned char>(c));
  std::array<char, 17> hex{};
  std::snprintf(hex.data(), hex.size(), "%016llx", static_cast<unsigned long long>(h));
  return {hex.data(), 16};
}

// The SSE text of a buffer entry "<stream>:<seq>:<m|p>:<frame>".
std::string entry_text(const std::string& entry) {
  const std::size_t a = entry.find(':');
  const std::size_t b = entry.find(':', a + 1);
  const std::string id = entry.substr(0, a) + "-" + entry.substr(a + 1, b - a - 1);
  if (entry.compare(b + 1, 1, "p") == 0) return "id: " + id + "\ndata: \n\n";
  return sse_event(id, std::string_view(entry).substr(b + 3));
}

}  // namespace

struct redis_event_store::shared {
  std::shared_ptr<redis::client> client;
  std::string prefix;
  std::size_t capacity;
  std::string ttl;  ///< milliseconds, as the scripts take it
  std::mutex lock;
  std::unordered_map<std::string, std::weak_ptr<session_events>> live;
};

namespace {

// One session's events as this process reaches them.
class redis_session_events final : public session_events {
 public:
  redis_session_events(std::shared_ptr<redis_event_store::shared> s, std::string id,
                       std::string token, std::size_t bytes)
      : shared_(std::move(s)),
        id_(std::move(id)),
        keys_(redis_session_keys::of(shared_->prefix, id_).events()),
        token_(std::move(token)),
        bytes_(bytes) {}
  ~redis_session_events() override;
  redis_session_events(const redis_session_events&) = delete;
  redis_session_events& operator=(const redis_session_events&) = delete;

  std::uint64_t open_stream() override {
    return static_cast<std::uint64_t>(run(k_open_stream, {}).integer);
  }
  std::string append(std::uint64_t stream, std::string_view frame) override {
    return append_entry(stream, "m:" + std::string(frame), frame, false);
  }
  std::string append_once(std::uint64_t stream, std::string_view frame) override {
    return append_entry(stream, "m:" + std::string(frame), frame, false, digest_of(stream, frame));
  }
  std::string append_priming(std::uint64_t stream) override {
    return append_entry(stream, "p:", {}, true);
  }
  void replay(event_position after, const event_visitor& visit) const override {
    redis::reply r = run(k_replay, {std::to_string(after.stream), std::to_string(after.seq)});
    for (const auto& e : r.elements) visit(entry_text(e.str));
  }
  bool issued(event_position p) const override {
    return run(k_issued, {std::to_string(p.stream), std::to_string(p.seq)}).integer == 1;
  }
  void finish(std::uint64_t stream) override { run(k_finish, {std::to_string(stream)}); }
  void cancel(std::uint64_t stream, const jsonrpc::request_id& id) override {
    const std::string marker = std::to_string(stream) + ":" + jsonrpc::id_to_json(id).dump();
    run(k_cancel, {std::to_string(stream), marker, std::to_string(shared_->capacity + 1)});
  }
  stream_state state(std::uint64_t stream) const override;
  std::size_t bytes() const override {
    return sizeof(*this) + id_.capacity() + token_.capacity() + bytes_.load();
  }
  /// The record token this handle was opened with.
  const std::string& token() const noexcept { return token_; }

 private:
  const std::shared_ptr<redis_event_store::shared> shared_;
  const std::string id_;
  const std::vector<std::string> keys_;
  const std::string token_;
  std::atomic<std::size_t> bytes_;

  redis::reply run(const std::string& script, std::vector<std::string> args) const {
    args.insert(args.begin(), {token_, shared_->ttl});
    return store_call([&] { return shared_->client->eval(script, keys_, args); });
  }
  std::string append_entry(std::uint64_t stream, std::string tail, std::string_view frame,
                           bool priming, const std::string& once = {});
};

redis_session_events::~redis_session_events() {
  // Unlists this handle unless the id was forgotten and opened again meanwhile (a live entry).
  std::lock_guard g(shared_->lock);
  auto it = shared_->live.find(id_);
  if (it != shared_->live.end() && it->second.expired()) shared_->live.erase(it);
}

std::string redis_session_events::append_entry(std::uint64_t stream, std::string tail,
                                               std::string_view frame, bool priming,
                                               const std::string& once) {
  const std::string window = std::to_string(k_broadcast_window.count());
  redis::reply r = run(k_append, {std::to_string(shared_->capacity), std::to_string(stream),
                                  std::move(tail), once, window});
  const auto seq = static_cast<std::uint64_t>(r.elements.at(0).integer);
  // A broadcast frame kept already (bytes -1) leaves the buffer as it was.
  if (r.elements.at(1).integer >= 0) {
    bytes_.store(static_cast<std::size_t>(r.elements.at(1).integer));
  }
  // A stale handle numbers nothing: seq 0, which issued() never accepts.
  const std::string id = format_event_id({stream, seq});
  return priming ? "id: " + id + "\ndata: \n\n" : sse_event(id, frame);
}

stream_state redis_session_events::state(std::uint64_t stream) const {
  redis::reply r = run(k_state, {std::to_string(stream)});
  const std::int64_t phase = r.elements.empty() ? 0 : r.elements[0].integer;
  if (phase == 1) return {stream_state::phase::running, {}};
  if (phase == 2 && r.elements.size() == 2) {
    json id = json::parse(r.elements[1].str, nullptr, false);
    if (id.is_number_integer()) return {stream_state::phase::cancelled, id.get<std::int64_t>()};
    if (id.is_string()) return {stream_state::phase::cancelled, id.get<std::string>()};
  }
  return {};
}

}  // namespace

redis_event_store::redis_event_store(std::shared_ptr<redis::client> client, std::string key_prefix,
                                     std::size_t replay_capacity, std::chrono::milliseconds ttl)
    : shared_(std::make_shared<shared>()) {
  if (!client) throw std::invalid_argument("redis_event_store needs a client");
  check_redis_key_prefix(key_prefix);
  shared_->client = std::move(client);
  shared_->prefix = std::move(key_prefix);
  shared_->capacity = replay_capacity;
  shared_->ttl = std::to_string(ttl.count());
}

redis_event_store::~redis_event_store() = default;

std::shared_ptr<session_events> redis_event_store::open(const std::string& session_id) {
  // Always asks Redis: a handle kept here may be stale (the session was forgotten elsewhere).
  auto keys = redis_session_keys::of(shared_->prefix, session_id).events();
  redis::reply r = store_call([&] {
    return shared_->client->eval(k_open, keys, {new_token(), shared_->ttl});
  });
  const std::string& token = r.elements.at(0).str;
  std::lock_guard g(shared_->lock);
  auto& slot = shared_->live[session_id];
  if (auto existing = std::static_pointer_cast<redis_session_events>(slot.lock())) {
    if (existing->token() == token) return existing;
  }
  auto fresh = std::make_shared<redis_session_events>(shared_, session_id, token,
                                                      to_size(r.elements.at(1).str));
  slot = fresh;
  return fresh;
}

void redis_event_store::forget(const std::string& session_id) {
  auto keys = redis_session_keys::of(shared_->prefix, session_id).events();
  redis::command del = {"DEL"};
  del.insert(del.end(), keys.begin(), keys.end());
  {
    std::lock_guard g(shared_->lock);
    shared_->live.erase(session_id);
  }
  store_call([&] { return shared_->client->run(del); });
}

std::size_t redis_event_store::sessions() const {
  std::lock_guard g(shared_->lock);
  return static_cast<std::size_t>(std::count_if(shared_->live.begin(), shared_->live.end(),
                                                [](const auto& e) { return !e.second.expired(); }));
}

std::size_t redis_event_store::bytes() const {
  // Summed outside the lock: the last handle of one may go meanwhile, and its destructor locks.
  std::vector<std::shared_ptr<session_events>> held;
  std::size_t total = sizeof(shared) + shared_->prefix.capacity();
  {
    std::lock_guard g(shared_->lock);
    total += shared_->live.bucket_count() * sizeof(void*);
    for (const auto& [id, weak] : shared_->live) {
      total += id.capacity() + sizeof(std::string) + sizeof(weak) + 2 * sizeof(void*);
      if (auto e = weak.lock()) held.push_back(std::move(e));
    }
  }
  for (const auto& e : held) total += e->bytes();
  return total;
}

}  // namespace mcpcxx::http
