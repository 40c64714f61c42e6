// detail::outbound_requests: the requests a legacy session sends to its client (elicitation,
// sampling, roots). Each gets an id from the session's own id space (integers from 1, unrelated to
// the client's ids; strings "<prefix><n>" when the session has a request_id_prefix), waits in the
// pending table until the client's response is routed back by session_state::receive, and gives up
// on timeout or cancellation of the waiting request, telling the client with
// notifications/cancelled. Thread-safety: ask() blocks its calling (handler) thread; resolve() runs
// on the transport's receiving thread; close() on any thread. The pending table is guarded by one
// mutex.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "mcpcxx/context.hpp"
#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/session.hpp"

namespace mcpcxx::detail {

class session_state;

/// Writes one outbound frame (a request or notifications/cancelled) of kind `kind`.
using outbound_writer = std::function<void(std::string frame, frame_kind kind)>;

/// The pending table of one session.
class outbound_requests {
 public:
  /// What resolve() did with a response.
  enum class routed { answered, unknown_id };

  /// A table whose request ids are integers (empty `id_prefix`) or "<id_prefix><n>" strings.
  explicit outbound_requests(std::string id_prefix = {}) : id_prefix_(std::move(id_prefix)) {}

  /// Sends `request` through `write`, then blocks until the client answers, `timeout` passes or
  /// `token` is cancelled. Returns the result object. Throws client_request_error (the client's
  /// error), client_answer_invalid (a result that is not an object), client_request_timeout or
  /// request_cancelled (both after sending notifications/cancelled through `write`).
  json ask(const client_request& request, const outbound_writer& write,
           std::chrono::milliseconds timeout, const cancellation_token& token);
  /// Hands a response to its waiting ask(); unknown_id when nothing waits for it (never sent,
  /// already answered, timed out or cancelled).
  routed resolve(const jsonrpc::message& response);
  /// Wakes every waiting ask() with request_cancelled; later asks fail at once the same way.
  void close();
  /// Requests currently waiting for an answer.
  std::size_t pending() const;

 private:
  struct waiter {
    std::mutex mutex;
    std::condition_variable cv;
    bool answered = false;
    bool woken = false;  ///< cancellation or close
    json body;           ///< the response object
  };
  std::shared_ptr<waiter> enter(std::int64_t& id);
  bool leave(std::int64_t id);
  json wire_id(std::int64_t n) const;
  std::optional<std::int64_t> number_of(const jsonrpc::request_id& id) const;

  const std::string id_prefix_;
  mutable std::mutex mutex_;
  std::int64_t next_id_ = 1;
  bool closed_ = false;
  std::unordered_map<std::int64_t, std::shared_ptr<waiter>> pending_;
};

/// One legacy question: request `r` on session `s`, written to `to` (null = the session's sink),
/// waiting at most the server's client_request_timeout and giving up when `token` is cancelled.
json legacy_ask(const std::shared_ptr<session_state>& s, const std::shared_ptr<frame_sink>& to,
                const cancellation_token& token, const client_request& r);

/// The legacy era's context_hooks::ask: a live request on session `s`, written to `to` (the
/// tools/call's own reply sink; null = the session's sink), waiting at most the server's
/// client_request_timeout and giving up when `token` (the asking request's) is cancelled.
std::function<json(const client_request&)> legacy_ask_hook(std::shared_ptr<session_state> s,
                                                           std::shared_ptr<frame_sink> to,
                                                           cancellation_token token);

}  // namespace mcpcxx::detail
