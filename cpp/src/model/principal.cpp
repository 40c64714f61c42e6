// The principal's scopes and stable identity (the JSON contract of request_context::principal()).
#include <algorithm>
#include <array>

#include "mcpcxx/context.hpp"

namespace mcpcxx {

std::vector<std::string> principal_scopes(const json& principal) {
  std::vector<std::string> out;
  if (!principal.is_object()) return out;
  auto it = principal.find("scopes");
  if (it == principal.end() || !it->is_array()) return out;
  for (const auto& s : *it) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

std::vector<std::string> missing_scopes(const json& principal,
                                        const std::vector<std::string>& required) {
  if (required.empty()) return {};
  const std::vector<std::string> held = principal_scopes(principal);
  std::vector<std::string> missing;
  for (const auto& r : required) {
    if (std::find(held.begin(), held.end(), r) == held.end()) missing.push_back(r);
  }
  return missing;
}

namespace {

// A member of the principal, else of its "claims" object; nullptr when neither has it.
const json* claim_of(const json& principal, const std::string& name) {
  if (auto it = principal.find(name); it != principal.end()) return &*it;
  auto claims = principal.find("claims");
  if (claims == principal.end() || !claims->is_object()) return nullptr;
  auto it = claims->find(name);
  return it == claims->end() ? nullptr : &*it;
}

const json* string_claim(const json& principal, const std::string& name) {
  const json* v = claim_of(principal, name);
  return v != nullptr && v->is_string() ? v : nullptr;
}

std::string compact(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string principal_identity(const json& principal,
                               const std::vector<std::string>& identity_claims) {
  if (principal.is_null()) return {};
  // Without a subject nothing says which user this is: the whole object keeps owners apart.
  if (!principal.is_object() || !principal.contains("sub") || !principal["sub"].is_string()) {
    return compact(principal);
  }
  json id = {{"sub", principal["sub"]}};
  if (const json* iss = string_claim(principal, "iss")) id["iss"] = *iss;
  const json* client = string_claim(principal, "client_id");
  if (client == nullptr) client = string_claim(principal, "azp");
  if (client != nullptr) id["client_id"] = *client;
  if (!identity_claims.empty()) {
    json extra = json::object();
    for (const auto& name : identity_claims) {
      const json* v = claim_of(principal, name);
      extra[name] = v != nullptr ? *v : json(nullptr);
    }
    id["claims"] = std::move(extra);
  }
  return compact(id);
}

std::optional<std::string> identity_claim_problem(std::string_view name) {
  if (name.empty()) return "an identity claim needs a name";
  // "claims" would name the whole claims object, iat and exp included.
  static constexpr std::array<std::string_view, 9> k_volatile = {
      "iat", "exp", "nbf", "jti", "auth_time", "scope", "scp", "scopes", "claims"};
  if (std::find(k_volatile.begin(), k_volatile.end(), name) == k_volatile.end()) {
    return std::nullopt;
  }
  // Appended, not `"\"" + std::string(name) + ...`: GCC 12 at -O3 misreports that as an
  // overlapping memcpy (-Wrestrict, GCC bug 105651) in the README demo's build.
  std::string problem = "\"";
  problem.append(name).append(
      "\" cannot be an identity claim: it changes when a token is refreshed or gains scopes, "
      "so the user would lose their tasks and requestStates; name a claim that stays the same "
      "for one user (a tenant id, for example)");
  return problem;
}

}  // namespace mcpcxx
