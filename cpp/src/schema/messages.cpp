// Model-facing text and machine-readable JSON for validation results.
#include <vector>

#include "schema/ast.hpp"
#include "schema/uri.hpp"
#include "schema/values.hpp"

namespace mcpcxx::schema {
namespace {

// The value at JSON pointer `ptr`, or nullptr when the pointer does not resolve.
const json* at_pointer(const json& root, const std::string& ptr) {
  std::vector<std::string> tokens;
  if (!detail::pointer_split(ptr, tokens)) return nullptr;
  const json* cur = &root;
  for (const auto& t : tokens) {
    if (cur->is_object()) {
      auto it = cur->find(t);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else if (cur->is_array()) {
      if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos)
        return nullptr;
      const auto idx = std::stoull(t);
      if (idx >= cur->size()) return nullptr;
      cur = &(*cur)[idx];
    } else {
      return nullptr;
    }
  }
  return cur;
}

}  // namespace

std::string format_violations(const validation_result& result, const json& instance,
                              const format_options& opts) {
  std::string out;
  const std::size_t n = result.violations.size();
  const std::size_t listed = std::min(n, opts.max_violations_listed);
  for (std::size_t i = 0; i < listed; ++i) {
    const violation& v = result.violations[i];
    if (!out.empty()) out += '\n';
    out += v.instance_location.empty() ? std::string("(root)")
                                       : detail::truncate_text(v.instance_location, 120);
    out += ": ";
    out += v.message;
    if (v.message.find(", got ") == std::string::npos) {
      const json* value = at_pointer(instance, v.instance_location);
      if (value != nullptr) {
        out += " (got ";
        out += detail::type_name(*value);
        out += ')';
      }
    }
  }
  if (n > listed) {
    out += "\nand " + std::to_string(n - listed) + " more";
  }
  return out;
}

json violations_to_json(const validation_result& result) {
  json arr = json::array();
  auto& items = arr.get_ref<json::array_t&>();
  items.reserve(result.violations.size());
  for (const auto& v : result.violations) {
    // Emplaced in key order at the end (no lookups); an initializer list would copy each value
    // once more.
    json item(json::value_t::object);
    auto& m = item.get_ref<json::object_t&>();
    m.emplace_hint(m.end(), "instanceLocation", v.instance_location);
    m.emplace_hint(m.end(), "keyword", v.keyword);
    m.emplace_hint(m.end(), "keywordLocation", v.keyword_location);
    m.emplace_hint(m.end(), "message", v.message);
    items.push_back(std::move(item));
  }
  return arr;
}

}  // namespace mcpcxx::schema
