// Scopes of primitives: the registration check and a tool's visibility.
#include "registry/tool_scopes.hpp"

#include <stdexcept>

#include "mcpcxx/context.hpp"

#include "registry/access.hpp"

namespace mcpcxx::detail {

namespace {

bool scope_token(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (c < 0x21 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

}  // namespace

std::string space_joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : " ") + s;
  return out;
}

void check_tool_scopes(const std::vector<std::string>& scopes, std::string_view what) {
  for (const auto& s : scopes) {
    if (!scope_token(s)) {
      throw std::invalid_argument(std::string(what) + " scope '" + s.substr(0, 80) +
                                  "' is not a scope token: use visible ASCII without spaces, "
                                  "'\"' or '\\\\'");
    }
  }
}

bool tool_visible(const tool_entry& t, const json& principal) {
  return check_access(t.spec, principal) == access::allowed;
}

}  // namespace mcpcxx::detail
