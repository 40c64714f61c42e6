// The notification side of middleware (see notification_middleware.hpp).
#include "core/notification_middleware.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <stdexcept>
#include <typeinfo>

#include "core/middleware_chain.hpp"
#include "observability/server_log.hpp"

namespace mcpcxx::detail {

namespace {

constexpr std::array<std::string_view, 4> k_client_notifications = {
    "notifications/initialized", "notifications/cancelled", "notifications/progress",
    "notifications/roots/list_changed"};

bool wraps(const middleware& m, std::string_view method) {
  if (!m.on_notification) return false;
  return m.methods.empty() ||
         std::find(m.methods.begin(), m.methods.end(), method) != m.methods.end();
}

// A hook that throws drops the notification: it may have been meant to stop it, and letting
// it through on a failure would turn a broken policy into no policy.
bool run_hook(const middleware& m, server_log& log, const middleware_notification& n) {
  try {
    if (m.on_notification(n)) return true;
    log.write("info", "notification_dropped", {{"method", n.method()}, {"middleware", m.name}});
  } catch (const std::exception& e) {
    log.write("error", "middleware_exception",
              {{"hook", "on_notification"},
               {"method", n.method()},
               {"middleware", m.name},
               {"reference", server_log::new_reference()},
               {"type", typeid(e).name()},
               {"what", e.what()},
               {"note", "the notification was dropped"}});
  } catch (...) {
    log.write("error", "middleware_exception",
              {{"hook", "on_notification"},
               {"method", n.method()},
               {"middleware", m.name},
               {"reference", server_log::new_reference()},
               {"what", "a non-standard exception"},
               {"note", "the notification was dropped"}});
  }
  return false;
}

}  // namespace

bool is_client_notification(std::string_view method) noexcept {
  return std::find(k_client_notifications.begin(), k_client_notifications.end(), method) !=
         k_client_notifications.end();
}

void check_notification_hook(const middleware& m, const std::string& who) {
  const bool names_notification =
      std::any_of(m.methods.begin(), m.methods.end(), is_client_notification);
  const bool names_request = std::any_of(m.methods.begin(), m.methods.end(),
                                         [](const auto& x) { return !is_client_notification(x); });
  if (names_notification && !m.on_notification) {
    throw std::invalid_argument(who +
                                ": methods names a client notification but there is no "
                                "on_notification hook to run for it; set one or drop the name");
  }
  if (m.on_notification && !m.methods.empty() && !names_notification) {
    throw std::invalid_argument(who +
                                ": on_notification is set but methods names no client "
                                "notification (notifications/cancelled, notifications/initialized, "
                                "notifications/progress, notifications/roots/list_changed)");
  }
  if ((m.before || m.after) && names_notification && !names_request) {
    throw std::invalid_argument(who +
                                ": before/after hooks are set but methods names only "
                                "notifications, which get no reply; name request methods too");
  }
}

bool admit_notification(const middleware_chain& chain, server_log& log, const jsonrpc::message& msg,
                        const json& principal, const std::string& version) {
  const middleware_notification n =
      middleware_access::notification(msg.method, msg.params, principal, version);
  for (const auto& s : chain.entries()) {
    if (s.subject || !wraps(s.m, msg.method)) continue;  // a mounted server's sees no client
    if (!run_hook(s.m, log, n)) return false;
  }
  return true;
}

}  // namespace mcpcxx::detail
