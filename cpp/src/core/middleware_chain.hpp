// detail::middleware_chain: the middleware of one server (mcpcxx/middleware.hpp) and how a
// request runs through them. The session's run() calls before() in place of the handler when a
// chain exists; the exchange calls after() from finish() with the reply it is about to send, so
// replies made by deadlines, async completions and refusals pass through it too.
// A server without middleware holds no chain: run() and finish() test one pointer.
// Mounted servers (server::mount, engine/mount.hpp) add their middleware after the server's own,
// each with a subject map: it runs only for requests of that server's primitives and sees their
// names as that server registered them.
// Thread-safety: a chain is immutable; middleware_list::add() publishes a new one (copy on
// write) and requests keep the chain they started with.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mcpcxx/middleware.hpp"

#include "core/exchange.hpp"

namespace mcpcxx::detail {

/// The engine's side of the public middleware types.
struct middleware_access {
  /// The view of `ex` handed to hooks.
  static middleware_request request(exchange& ex, const std::string* subject = nullptr) noexcept {
    return middleware_request(ex, subject);
  }
  /// The view of a client notification handed to on_notification hooks.
  static middleware_notification notification(std::string_view method, const json& params,
                                              json principal, std::string version) {
    return {method, params, std::move(principal), std::move(version)};
  }
  /// The exchange behind a view (for the built-in middleware).
  static exchange& exchange_of(const middleware_request& r) noexcept { return *r.ex_; }
  /// A reply viewing `o` (moved in; take it back with outcome()).
  static middleware_reply wrap(method_outcome o);
  /// The reference id of an unexpected failure the reply carries; "" otherwise.
  static std::string reference_of(const middleware_reply& r) {
    return r.outcome_ ? r.outcome_->reference : std::string();
  }
  /// The outcome a reply answers `ex` with (a refusal rendered for its method).
  static method_outcome outcome(middleware_reply&& r, const exchange& ex);
};

/// Maps a request's (method, subject) to the subject a mounted server registered; nullopt when
/// the request is not for one of that server's primitives.
using subject_map =
    std::function<std::optional<std::string>(std::string_view method, std::string_view subject)>;

/// A middleware and, for a mounted server's, its subject map (null: the server's own).
struct scoped_middleware {
  middleware m;
  subject_map subject;
};

/// The middleware of one server, in order (see the file comment).
class middleware_chain {
 public:
  explicit middleware_chain(std::vector<scoped_middleware> list) : list_(std::move(list)) {}

  /// Runs the before hooks that apply to `ex` in order, recording on `ex` how far it got; the
  /// reply of the first that answers, or nullopt to run the handler. Hooks may throw.
  std::optional<method_outcome> before(exchange& ex) const;
  /// Runs the after hooks of the middleware `ex` reached, last first, on `o` (which a hook may
  /// replace). A hook that throws replaces `o` with the classified failure and the rest still run.
  void after(exchange& ex, method_outcome& o) const;
  /// True when a middleware that applies to `method` may block (it must run on a worker).
  bool blocks(std::string_view method) const noexcept;
  /// True when any middleware may block.
  bool any_blocks() const noexcept;
  /// The middleware in order (core/notification_middleware.cpp runs their on_notification).
  const std::vector<scoped_middleware>& entries() const noexcept { return list_; }

 private:
  static bool applies(const scoped_middleware& s, const exchange& ex,
                      std::optional<std::string>& subject);
  std::vector<scoped_middleware> list_;
};

/// The server's middleware: registration and the chain requests use.
class middleware_list {
 public:
  /// Checks `m` (std::invalid_argument naming what is wrong) and appends it.
  void add(middleware m);
  /// Sets (empty `list`: removes) the middleware of the server mounted as `key`; they run after
  /// the server's own, mounted servers in the order they were first set.
  void set_mounted(const void* key, std::vector<scoped_middleware> list);
  /// The server's own middleware followed by the mounted ones (what a parent mounts).
  std::vector<scoped_middleware> effective() const;
  /// The chain to run; null when no middleware was added (the fast path).
  std::shared_ptr<const middleware_chain> chain() const {
    if (!any_.load(std::memory_order_acquire)) return nullptr;
    std::lock_guard g(mutex_);
    return chain_;
  }

 private:
  std::vector<scoped_middleware> flat() const;  // under mutex_
  void rebuild();                               // under mutex_
  mutable std::mutex mutex_;
  std::vector<middleware> list_;
  std::vector<std::pair<const void*, std::vector<scoped_middleware>>> mounted_;
  std::shared_ptr<const middleware_chain> chain_;
  std::atomic<bool> any_{false};
};

}  // namespace mcpcxx::detail
