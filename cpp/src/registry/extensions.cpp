// Extensions the server declares (ServerCapabilities `extensions`): id checks and the registry.
#include <stdexcept>
#include <string>
#include <string_view>

#include "registry/catalog.hpp"

namespace mcpcxx::detail {

namespace {

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool alnum(char c) { return letter(c) || digit(c); }

// A prefix label: starts with a letter, ends with a letter or digit, hyphens inside.
bool valid_label(std::string_view l) {
  if (l.empty() || !letter(l.front()) || !alnum(l.back())) return false;
  for (char c : l) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

bool valid_prefix(std::string_view p) {
  for (std::size_t start = 0;;) {
    const std::size_t dot = p.find('.', start);
    if (!valid_label(p.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// The name after the slash: starts and ends alphanumeric; hyphens, underscores, dots inside.
bool valid_name(std::string_view n) {
  if (n.empty() || !alnum(n.front()) || !alnum(n.back())) return false;
  for (char c : n) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// The spec's _meta key rules with the mandatory prefix extension ids need.
bool valid_extension_id(std::string_view id) {
  const std::size_t slash = id.find('/');
  if (slash == std::string_view::npos) return false;
  return valid_prefix(id.substr(0, slash)) && valid_name(id.substr(slash + 1));
}

}  // namespace

void catalog::add_extension(std::string id, json settings) {
  if (!valid_extension_id(id)) {
    throw std::invalid_argument(
        "invalid extension id '" + id.substr(0, 80) +
        "': use a prefix of dot-separated labels, a slash and a name, e.g. "
        "'com.example/feature' (labels start with a letter; the name starts and ends with a "
        "letter or digit)");
  }
  if (!settings.is_object()) {
    throw std::invalid_argument("extension '" + id + "' settings must be a JSON object (use {} " +
                                "for none), got " + std::string(settings.type_name()));
  }
  {
    std::unique_lock lock(mutex_);
    if (extensions_.contains(id)) {
      throw std::invalid_argument("extension '" + id +
                                  "' is already declared: remove it first to change its settings");
    }
    extensions_[std::move(id)] = std::move(settings);
  }
}

bool catalog::remove_extension(std::string_view id) {
  std::unique_lock lock(mutex_);
  auto it = extensions_.find(id);
  if (it == extensions_.end()) return false;
  extensions_.erase(it);
  return true;
}

}  // namespace mcpcxx::detail
