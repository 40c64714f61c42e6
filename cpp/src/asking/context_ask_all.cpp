// request_context::ask_all: several server-to-client requests at once (2026-07-28: one
// InputRequiredResult listing every unanswered one; legacy: one after the other).
#include <string>
#include <vector>

#include "mcpcxx/context.hpp"
#include "mcpcxx/errors.hpp"

namespace mcpcxx {

namespace {

// The capability a request needs; its method's namespace ("elicitation", "sampling", "roots").
std::string capability_of(const std::string& method) { return method.substr(0, method.find('/')); }

}  // namespace

std::vector<json> request_context::ask_all(const std::vector<client_request>& requests) {
  for (const client_request& r : requests) {
    const std::string cap = capability_of(r.method);
    if (!client_capabilities_.is_object() || !client_capabilities_.contains(cap) ||
        !client_capabilities_.at(cap).is_object()) {
      throw client_capability_error(r.method, cap);
    }
  }
  if (hooks_.ask_all) return hooks_.ask_all(requests);
  std::vector<json> results;
  results.reserve(requests.size());
  for (const client_request& r : requests) results.push_back(ask_client(r.method, r.params));
  return results;
}

}  // namespace mcpcxx
