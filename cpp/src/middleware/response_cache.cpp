// The built-in response cache (mcpcxx::response_cache; docs/middleware.md "Response cache").
// `before` looks the request's key up and answers a hit; a miss leaves the key in the request's
// state for `after`, which stores a successful result and marks it. Store failures never fail a
// request: it runs (or is answered) uncached.
#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

#include "mcpcxx/middleware.hpp"

#include "core/middleware_chain.hpp"
#include "core/server_core.hpp"
#include "core/store_unavailable.hpp"
#include "middleware/digest.hpp"

namespace mcpcxx {

namespace {

using detail::middleware_access;

// What one response_cache middleware holds (shared by its hooks).
struct cache_setup {
  std::string name;
  std::string state_key;  // its slot in middleware_request::state()
  std::chrono::milliseconds ttl;
  bool shared;  // scope "public"
  std::function<std::string(const middleware_request&)> vary;
  detail::memory_cache_bounds bounds;
};

bool read_only_tool(const middleware_request& r) {
  const json& a = r.tool_annotations();
  return a.is_object() && a.value("readOnlyHint", false) == true;
}

// Continuations of a multi-round request and task-augmented calls are never cached: their
// answer depends on more than the key.
bool cacheable(const middleware_request& r) {
  if (r.method() == "tools/call" && !read_only_tool(r)) return false;
  const json& p = r.params();
  return !p.contains("inputResponses") && !p.contains("requestState") && !p.contains("task");
}

void append_part(std::string& key, std::string_view part) {
  key += std::to_string(part.size());
  key += ':';
  key += part;
}

std::string key_of(const cache_setup& c, const middleware_request& r) {
  std::string key;
  append_part(key, c.name);
  append_part(key, r.method());
  append_part(key, r.name());
  append_part(key, r.protocol_version());
  append_part(key, c.shared ? std::string("*") : "p:" + r.principal_identity());
  append_part(key, c.vary ? c.vary(r) : std::string());
  key += detail::arguments_digest(r.arguments());
  return key;
}

std::vector<std::string> tags_of(const middleware_request& r) {
  if (r.method() == "tools/call") return {"list:tools"};
  if (r.method() == "prompts/get") return {"list:prompts"};
  return {"list:resources", "res:" + std::string(r.name())};
}

// The result as sent: _meta["mcpcxx/cache"] always; a 2026-07-28 resources/read also its
// required top-level hints, which must match the cache's.
json decorated(json result, const cache_setup& c, const middleware_request& r, bool hit,
               std::chrono::milliseconds left, const std::string& own_scope) {
  const std::string scope = !c.shared || own_scope == "private" ? "private" : "public";
  result["_meta"]["mcpcxx/cache"] = {{"hit", hit}, {"ttlMs", left.count()}, {"cacheScope", scope}};
  if (r.modern() && r.method() == "resources/read") {
    result["ttlMs"] = left.count();
    result["cacheScope"] = scope;
  }
  return result;
}

void bypassed(const cache_setup& c, const middleware_request& r, std::string_view why) {
  // an unreachable shared store is reported once per outage by the store itself
  middleware_access::exchange_of(r).core().log().write(
      "warning", "response_cache_bypassed",
      {{"cache", c.name}, {"method", std::string(r.method())}, {"why", std::string(why)}});
}

std::optional<middleware_reply> look_up(const cache_setup& c, const middleware_request& r) {
  if (!cacheable(r)) return std::nullopt;
  auto& core = middleware_access::exchange_of(r).core();
  std::string key = key_of(c, r);
  try {
    auto hit = core.caches().store_for(c.name, c.bounds)->get(key);
    if (hit) {
      json entry = json::parse(hit->body);
      const std::string own = entry.value("scope", std::string());
      return middleware_reply::with_result(
          decorated(std::move(entry["result"]), c, r, true, hit->remaining, own));
    }
  } catch (const detail::store_unavailable&) {
    return std::nullopt;
  } catch (const std::exception& e) {
    bypassed(c, r, e.what());
    return std::nullopt;
  }
  r.state()[c.state_key] = std::move(key);
  return std::nullopt;
}

std::optional<middleware_reply> keep(const cache_setup& c, const middleware_request& r,
                                     const middleware_reply& reply) {
  const json& s = r.state();
  const auto slot = s.find(c.state_key);
  if (slot == s.end() || reply.what() != middleware_reply::kind::result) return std::nullopt;
  json result = reply.result();
  if (!result.is_object() || result.value("isError", false) == true) return std::nullopt;
  const std::string own = result.value("cacheScope", std::string());
  result.erase("ttlMs");
  result.erase("cacheScope");
  if (auto m = result.find("_meta"); m != result.end() && m->is_object()) {
    m->erase("mcpcxx/cache");
    if (m->empty()) result.erase(m);
  }
  try {
    auto& core = middleware_access::exchange_of(r).core();
    core.caches()
        .store_for(c.name, c.bounds)
        ->put(slot->get<std::string>(), json{{"result", result}, {"scope", own}}.dump(), c.ttl,
              tags_of(r));
  } catch (const detail::store_unavailable&) {
    return std::nullopt;
  } catch (const std::exception& e) {
    bypassed(c, r, e.what());
    return std::nullopt;
  }
  return middleware_reply::with_result(decorated(std::move(result), c, r, false, c.ttl, own));
}

void check(const response_cache_options& o) {
  const std::string who = "response_cache " + o.name;
  if (o.ttl.count() <= 0) {
    throw std::invalid_argument(who + ": ttl must be above 0 (how long an entry is served)");
  }
  if (o.scope != "private" && o.scope != "public") {
    throw std::invalid_argument(who + ": scope must be \"private\" (an entry per caller) or " +
                                "\"public\" (one for every caller), got \"" +
                                o.scope.substr(0, 40) + "\"");
  }
  if (o.methods.empty()) throw std::invalid_argument(who + ": name the methods to cache");
  for (const auto& m : o.methods) {
    if (m != "tools/call" && m != "resources/read" && m != "prompts/get") {
      throw std::invalid_argument(who + ": cannot cache \"" + m.substr(0, 60) +
                                  "\"; it caches tools/call, resources/read and prompts/get");
    }
  }
  if (o.max_entries == 0 || o.max_bytes == 0) {
    throw std::invalid_argument(who + ": max_entries and max_bytes must be above 0");
  }
}

}  // namespace

middleware response_cache(response_cache_options o) {
  check(o);
  middleware m{.name = o.name, .methods = o.methods, .tools = std::move(o.tools)};
  auto c = std::make_shared<const cache_setup>(
      cache_setup{.name = o.name,
                  .state_key = "mcpcxx/response_cache/" + o.name,
                  .ttl = o.ttl,
                  .shared = o.scope == "public",
                  .vary = std::move(o.vary),
                  .bounds = {o.max_entries, o.max_bytes, std::move(o.clock)}});
  m.before = [c](const middleware_request& r) { return look_up(*c, r); };
  m.after = [c](const middleware_request& r, const middleware_reply& reply) {
    return keep(*c, r, reply);
  };
  return m;
}

}  // namespace mcpcxx
