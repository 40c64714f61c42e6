// What a client declared in its capabilities (legacy initialize or a 2026-07-28 request's _meta),
// read the same way by every check that decides whether the server may ask it something.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mcpcxx::detail {

/// True when `caps` declares the capability `name` as an object (the spec's only form).
inline bool declares(const nlohmann::json& caps, std::string_view name) {
  if (!caps.is_object()) return false;
  auto it = caps.find(std::string(name));
  return it != caps.end() && it->is_object();
}

/// True when `caps` declares URL-mode elicitation (elicitation.url, 2025-11-25 and later).
inline bool declares_url_elicitation(const nlohmann::json& caps) {
  return declares(caps, "elicitation") && caps.at("elicitation").contains("url");
}

}  // namespace mcpcxx::detail
