// Reading and checking Icon arrays.
#include "model/icons.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>

#include "model/fields.hpp"

namespace mcpcxx::model {

namespace {

bool has_icon_scheme(const std::string& src) {
  std::string head = src.substr(0, 6);
  std::transform(head.begin(), head.end(), head.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return head.rfind("https:", 0) == 0 || head.rfind("http:", 0) == 0 || head.rfind("data:", 0) == 0;
}

bool string_list(const json& v) {
  return v.is_array() &&
         std::all_of(v.begin(), v.end(), [](const json& s) { return s.is_string(); });
}

void check_icon(const json& icon, const std::string& what) {
  require_object(icon, what);
  reject_unknown(icon, what + " key", {"src", "mimeType", "sizes", "theme"});
  const std::string src = required_string(icon, "src", what);
  if (!has_icon_scheme(src)) fail(what, "src", "an https:, http: or data: URI", icon["src"]);
  (void)optional_string(icon, "mimeType", what);
  if (auto it = icon.find("sizes"); it != icon.end() && !it->is_null() && !string_list(*it))
    fail(what, "sizes", "a list of strings like [\"48x48\", \"any\"]", *it);
  if (auto it = icon.find("theme"); it != icon.end() && !it->is_null()) {
    if (!it->is_string() || (*it != "light" && *it != "dark"))
      fail(what, "theme", "\"light\" or \"dark\"", *it);
  }
}

}  // namespace

json read_icons(const json& j, std::string_view what) {
  json icons = optional_value(j, "icons");
  if (icons.is_null()) return icons;
  if (!icons.is_array()) fail(what, "icons", "a list of Icon objects", icons);
  for (std::size_t i = 0; i < icons.size(); ++i) {
    check_icon(icons[i], std::string(what) + " icons[" + std::to_string(i) + "]");
  }
  return icons;
}

}  // namespace mcpcxx::model
