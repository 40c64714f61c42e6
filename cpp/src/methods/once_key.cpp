// Canonical JSON and the operation key of at-most-once tools.
#include "methods/once_key.hpp"

#include <cmath>
#include <cstdint>

#include "state/codec.hpp"

namespace mcpcxx::detail {

namespace {

// 2^63: doubles below it in magnitude with an integral value print as int64 exactly.
constexpr double k_int64_bound = 9223372036854775808.0;

void append_number(std::string& out, const json& v) {
  if (!v.is_number_float()) {
    out += v.dump();  // integers: one spelling already
    return;
  }
  const double d = v.get<double>();
  if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < k_int64_bound) {
    out += std::to_string(static_cast<std::int64_t>(d));  // -0.0 gives "0"
    return;
  }
  out += v.dump();  // shortest round-trip form
}

void append(std::string& out, const json& v) {
  switch (v.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, member] : v.items()) {  // nlohmann's object map is ordered by key
        if (!first) out += ',';
        first = false;
        out += json(k).dump();
        out += ':';
        append(out, member);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += ',';
        append(out, v[i]);
      }
      out += ']';
      return;
    }
    case json::value_t::number_float:
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      append_number(out, v);
      return;
    default:
      out += v.dump();
  }
}

}  // namespace

std::string canonical_json(const json& v) {
  std::string out;
  append(out, v);
  return out;
}

std::string operation_key(std::string_view scope, std::string_view tool, const json& compared) {
  std::string material;
  material.reserve(scope.size() + tool.size() + 64);
  // Lengths first: no scope or tool name can end where another begins.
  material += std::to_string(scope.size()) + ':';
  material += scope;
  material += std::to_string(tool.size()) + ':';
  material += tool;
  material += canonical_json(compared);
  return state::hex_encode(state::sha256(material));
}

}  // namespace mcpcxx::detail
