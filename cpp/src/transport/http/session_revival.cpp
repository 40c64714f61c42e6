// Legacy sessions over a shared session store (several replicas): the record as the engine
// session's state, a session revived on a replica that did not create it, the client state
// (log level, subscriptions) kept in step with the record, and the reaping of a table whose
// records other replicas share (session_table.hpp).
#include <algorithm>
#include <iterator>
#include <set>

#include "core/session_state.hpp"
#include "core/store_unavailable.hpp"
#include "transport/http/session_table.hpp"

namespace mcpcxx::http {

namespace {

std::string level_text(const std::optional<log_level>& l) {
  return l ? std::string(to_string(*l)) : std::string();
}

json parsed_or(const std::string& text, json fallback) {
  if (text.empty()) return fallback;
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? fallback : j;
}

// What the engine state (`level`, sorted `subs`) changed since the mirror; empty when nothing.
session_state_change changes_since(http_session::client_mirror& m, const std::string& level,
                                   const std::vector<std::string>& subs) {
  session_state_change c;
  std::lock_guard g(m.lock);
  if (level != m.log_level) c.log_level = level;
  std::set_difference(subs.begin(), subs.end(), m.subscriptions.begin(), m.subscriptions.end(),
                      std::back_inserter(c.subscribed));
  std::set_difference(m.subscriptions.begin(), m.subscriptions.end(), subs.begin(), subs.end(),
                      std::back_inserter(c.unsubscribed));
  return c;
}

// The observer that writes the engine session's client state changes to the shared record.
detail::session_state::legacy_observer record_writer(
    std::string id, std::shared_ptr<session_store> records,
    std::shared_ptr<http_session::client_mirror> m) {
  return [id = std::move(id), records = std::move(records),
          m = std::move(m)](const detail::legacy_state& l) {
    const std::string level = level_text(l.level);
    std::vector<std::string> subs(l.subscriptions.begin(), l.subscriptions.end());
    session_state_change c = changes_since(*m, level, subs);
    if (!c.log_level && c.subscribed.empty() && c.unsubscribed.empty()) return;
    try {
      records->update(id, c);
    } catch (const detail::store_unavailable&) {
      std::lock_guard g(m->lock);
      m->stale = true;  // the next use puts the record's state back into the engine session
      throw;
    }
    std::lock_guard g(m->lock);
    m->log_level = level;
    m->subscriptions = std::move(subs);
  };
}

}  // namespace

session_record http_session::to_record(std::int64_t now_ns) const {
  session_record r{id_, principal_key_, engine_ ? engine_->negotiated_version() : std::string(),
                   client_capabilities_, now_ns};
  r.client_info = client_info_;
  if (engine_) {
    detail::legacy_state l = detail::state_of(*engine_)->legacy();
    r.log_level = level_text(l.level);
    r.subscriptions.assign(l.subscriptions.begin(), l.subscriptions.end());
  }
  return r;
}

void http_session::set_engine(mcpcxx::session s) {
  engine_.emplace(std::move(s));
  if (records_->shared()) {
    detail::state_of(*engine_)->observe_legacy(record_writer(id_, records_, mirror_));
  }
}

void http_session::restore(const session_record& r) {
  detail::legacy_state l;
  l.version = r.protocol_version;
  l.initialized_notification = true;  // the record exists once initialize succeeded
  l.client_capabilities = parsed_or(r.client_capabilities, json::object());
  l.client_info = parsed_or(r.client_info, nullptr);
  l.level = parse_log_level(r.log_level);
  l.subscriptions.insert(r.subscriptions.begin(), r.subscriptions.end());
  detail::state_of(*engine_)->restore_legacy(std::move(l));
  std::lock_guard g(mirror_->lock);
  mirror_->log_level = r.log_level;
  mirror_->subscriptions = r.subscriptions;
}

void http_session::adopt_client_state(const session_record& r) {
  {
    std::lock_guard g(mirror_->lock);
    if (!mirror_->stale && mirror_->log_level == r.log_level &&
        mirror_->subscriptions == r.subscriptions) {
      return;
    }
    // The mirror first: the observer then sees no change to write back.
    mirror_->stale = false;
    mirror_->log_level = r.log_level;
    mirror_->subscriptions = r.subscriptions;
  }
  const std::optional<log_level> level = parse_log_level(r.log_level);
  std::set<std::string> subs(r.subscriptions.begin(), r.subscriptions.end());
  detail::state_of(*engine_)->update_legacy([&](detail::legacy_state& l) {
    l.level = level;
    l.subscriptions = std::move(subs);
  });
}

std::shared_ptr<http_session> session_table::find_or_revive(const std::string& id,
                                                            const std::string& principal_key,
                                                            const engine_opener& open) {
  if (auto s = find(id)) return s;
  if (!records_->shared()) return nullptr;
  auto r = records_->find(id);
  // A foreign principal's session is refused like an unknown one, and not cached.
  if (!r || r->principal_key != principal_key) return nullptr;
  auto s = std::make_shared<http_session>(id, r->principal_key, r->client_capabilities,
                                          events_->open(id), records_, r->client_info);
  s->set_engine(open(s));
  s->restore(*r);
  std::shared_ptr<http_session> existing;
  {
    std::lock_guard g(lock_);
    auto [it, fresh] = live_.try_emplace(id, s);
    if (!fresh) existing = it->second;
  }
  if (existing) {  // another request revived it meanwhile
    s->engine().shutdown(std::chrono::milliseconds(0));
    return existing;
  }
  router_->attach(id, inbox_for(s));
  return s;
}

std::shared_ptr<http_session> session_table::drop(const std::string& id) {
  std::shared_ptr<http_session> s;
  {
    std::lock_guard g(lock_);
    auto node = live_.extract(id);
    if (node.empty()) return nullptr;
    s = std::move(node.mapped());
  }
  router_->detach(id);
  return s;
}

std::vector<std::shared_ptr<http_session>> session_table::live() const {
  std::lock_guard g(lock_);
  std::vector<std::shared_ptr<http_session>> out;
  out.reserve(live_.size());
  for (const auto& [id, s] : live_) out.push_back(s);
  return out;
}

std::vector<std::shared_ptr<http_session>> session_table::take_expired_shared(std::int64_t cutoff) {
  std::vector<std::shared_ptr<http_session>> out;
  try {
    const auto held = live();
    const std::int64_t now = records_->clock_ns();
    // Other replicas reaping cannot see what runs here: a used record is spared everywhere.
    for (const auto& s : held) {
      if (s->active()) records_->touch(s->id(), now);
    }
    auto taken = records_->take_expired(cutoff, [this](const std::string& id) {
      auto s = find(id);
      return s && s->active();
    });
    std::set<std::string> ended;
    for (const auto& r : taken) {
      ended.insert(r.id);
      if (auto s = drop(r.id)) out.push_back(std::move(s));
    }
    for (const auto& r : taken) events_->forget(r.id);
    std::vector<std::string> rest;
    for (const auto& s : held) {
      if (!ended.contains(s->id())) rest.push_back(s->id());
    }
    for (const auto& id : records_->missing(rest)) {  // ended on another replica
      if (auto s = drop(id)) out.push_back(std::move(s));
    }
  } catch (const detail::store_unavailable&) {
    // What was taken so far is returned; the next run retries the rest.
  }
  return out;
}

}  // namespace mcpcxx::http
