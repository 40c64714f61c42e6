// The principal's scopes (the JSON contract of request_context::principal()).
#include <algorithm>

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

}  // namespace mcpcxx
