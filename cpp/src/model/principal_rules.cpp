// The ready-made principal rules (mcpcxx/primitives.hpp): roles and claims.
#include <stdexcept>

#include "mcpcxx/primitives.hpp"

namespace mcpcxx {

namespace {

// A member of the principal, else of its "claims" object; nullptr when neither has it.
const json* claim(const json& principal, const std::string& name) {
  if (!principal.is_object()) return nullptr;
  if (auto it = principal.find(name); it != principal.end()) return &*it;
  auto claims = principal.find("claims");
  if (claims == principal.end() || !claims->is_object()) return nullptr;
  auto it = claims->find(name);
  return it == claims->end() ? nullptr : &*it;
}

bool has_role(const json& roles, const std::string& role) {
  if (roles.is_array()) {
    for (const auto& r : roles) {
      if (r.is_string() && r.get_ref<const std::string&>() == role) return true;
    }
    return false;
  }
  if (!roles.is_string()) return false;
  const auto& text = roles.get_ref<const std::string&>();
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    if (text.compare(start, end - start, role) == 0 && end - start == role.size()) return true;
    start = end + 1;
  }
  return false;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

principal_rule require_roles(std::vector<std::string> roles) {
  if (roles.empty()) throw std::invalid_argument("require_roles needs at least one role");
  for (const auto& r : roles) {
    if (r.empty() || r.find(' ') != std::string::npos) {
      throw std::invalid_argument("require_roles: a role must be non-empty without spaces, got '" +
                                  r.substr(0, 80) + "'");
    }
  }
  principal_rule rule;
  rule.requirement = (roles.size() == 1 ? "the role " : "the roles ") + joined(roles);
  rule.test = [roles = std::move(roles)](const json& principal) {
    const json* held = claim(principal, "roles");
    if (held == nullptr) return false;
    for (const auto& r : roles) {
      if (!has_role(*held, r)) return false;
    }
    return true;
  };
  return rule;
}

principal_rule require_claims(json claims) {
  if (!claims.is_object() || claims.empty()) {
    throw std::invalid_argument(
        "require_claims needs a non-empty JSON object of claim names and values, e.g. "
        "{\"tenant\": \"acme\"}");
  }
  principal_rule rule;
  for (const auto& [name, value] : claims.items()) {
    rule.requirement += (rule.requirement.empty() ? "the claim " : ", ") + name + "=" +
                        value.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  rule.test = [claims = std::move(claims)](const json& principal) {
    for (const auto& [name, value] : claims.items()) {
      const json* held = claim(principal, name);
      if (held == nullptr || *held != value) return false;
    }
    return true;
  };
  return rule;
}

}  // namespace mcpcxx
