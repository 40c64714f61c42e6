// The notification side of middleware (mcpcxx/middleware.hpp, middleware::on_notification): which
// client notifications a middleware may wrap, how registration checks a hook, and how a
// notification passes the server's hooks before the session acts on it.
// Thread-safety: admit_notification runs on the thread that read the notification, any number of
// sessions at once; it only reads the (immutable) chain.
#pragma once

#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/middleware.hpp"

namespace mcpcxx::detail {

class middleware_chain;
class server_log;

/// True for the notifications a client sends a server (initialized, cancelled, progress,
/// roots/list_changed): the ones on_notification may wrap.
bool is_client_notification(std::string_view method) noexcept;

/// Checks how `m` combines on_notification with its methods (std::invalid_argument naming `who`
/// and the fix): a named notification needs the hook, the hook needs a notification to wrap.
void check_notification_hook(const middleware& m, const std::string& who);

/// Runs the on_notification hooks of the server's own middleware in `chain` that wrap
/// `msg.method`, in order; false when one dropped it or threw (both logged to `log`).
bool admit_notification(const middleware_chain& chain, server_log& log, const jsonrpc::message& msg,
                        const json& principal, const std::string& version);

}  // namespace mcpcxx::detail
