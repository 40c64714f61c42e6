// Numeric and structural comparisons with JSON Schema semantics.
#include "schema/values.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace mcpcxx::schema::detail {
namespace {

// Compares an exact integer (sign + magnitude) with a double without precision loss.
int compare_int_double(bool neg, std::uint64_t mag, double d) noexcept {
  if (std::isnan(d)) return -1;
  const long double x = neg ? -static_cast<long double>(mag) : static_cast<long double>(mag);
  const long double y = d;
  return x < y ? -1 : (x > y ? 1 : 0);
}

void split_int(const json& v, bool& neg, std::uint64_t& mag) noexcept {
  if (v.is_number_unsigned()) {
    neg = false;
    mag = v.get<std::uint64_t>();
  } else {
    const std::int64_t i = v.get<std::int64_t>();
    neg = i < 0;
    mag = neg ? static_cast<std::uint64_t>(-(i + 1)) + 1 : static_cast<std::uint64_t>(i);
  }
}

bool numbers_equal(const json& a, const json& b) noexcept { return compare_numbers(a, b) == 0; }

}  // namespace

int compare_numbers(const json& a, const json& b) noexcept {
  const bool af = a.is_number_float();
  const bool bf = b.is_number_float();
  if (af && bf) {
    const double x = a.get<double>();
    const double y = b.get<double>();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (af) return -compare_numbers(b, a);
  bool an = false;
  std::uint64_t am = 0;
  split_int(a, an, am);
  if (bf) return compare_int_double(an, am, b.get<double>());
  bool bn = false;
  std::uint64_t bm = 0;
  split_int(b, bn, bm);
  if (an != bn) return an ? -1 : 1;
  if (am == bm) return 0;
  return (am < bm) != an ? -1 : 1;
}

bool is_multiple_of(const json& value, const json& divisor) noexcept {
  if (value.is_number_integer() && divisor.is_number_integer() && !divisor.is_number_float()) {
    if (divisor.is_number_unsigned() || value.is_number_unsigned()) {
      bool vn = false, dn = false;
      std::uint64_t vm = 0, dm = 0;
      split_int(value, vn, vm);
      split_int(divisor, dn, dm);
      return dm != 0 && vm % dm == 0;
    }
    const std::int64_t d = divisor.get<std::int64_t>();
    return d != 0 && (d == -1 || value.get<std::int64_t>() % d == 0);
  }
  const double v = value.get<double>();
  const double d = divisor.get<double>();
  if (d == 0 || !std::isfinite(v)) return false;
  const double q = v / d;
  if (!std::isfinite(q)) {
    // The quotient overflows; an integer value is still a multiple when 1/d is an integer.
    const double inv = 1.0 / d;
    return std::floor(v) == v && std::isfinite(inv) && std::floor(inv) == inv;
  }
  const double r = std::round(q);
  return std::fabs(q - r) <= 1e-9 * std::max(1.0, std::fabs(q));
}

eq_result json_equal(const json& a, const json& b, std::size_t max_depth) {
  struct frame {
    const json* a;
    const json* b;
    std::size_t depth;
  };
  std::vector<frame> stack{{&a, &b, 0}};
  while (!stack.empty()) {
    frame f = stack.back();
    stack.pop_back();
    if (f.depth > max_depth) return eq_result::too_deep;
    const json& x = *f.a;
    const json& y = *f.b;
    if (x.is_number() && y.is_number()) {
      if (!numbers_equal(x, y)) return eq_result::different;
      continue;
    }
    if (x.type() != y.type()) return eq_result::different;
    if (x.is_array()) {
      if (x.size() != y.size()) return eq_result::different;
      for (std::size_t i = 0; i < x.size(); ++i) stack.push_back({&x[i], &y[i], f.depth + 1});
    } else if (x.is_object()) {
      if (x.size() != y.size()) return eq_result::different;
      for (auto it = x.begin(); it != x.end(); ++it) {
        auto other = y.find(it.key());
        if (other == y.end()) return eq_result::different;
        stack.push_back({&*it, &*other, f.depth + 1});
      }
    } else if (x != y) {
      return eq_result::different;
    }
  }
  return eq_result::equal;
}

std::size_t code_points(std::string_view s) noexcept {
  std::size_t n = 0;
  for (unsigned char ch : s) {
    if ((ch & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string truncate_text(std::string_view s, std::size_t max_chars) {
  if (s.size() <= max_chars) return std::string(s);
  std::size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

std::string concat(std::initializer_list<std::string_view> parts) {
  std::size_t size = 0;
  for (const std::string_view part : parts) size += part.size();
  std::string out;
  out.reserve(size);
  for (const std::string_view part : parts) out.append(part);
  return out;
}

std::string short_dump(const json& v, std::size_t max_chars) {
  // Deep schema values were bounded at compile time, so dump() cannot recurse too far.
  return truncate_text(v.dump(-1, ' ', false, json::error_handler_t::replace), max_chars);
}

}  // namespace mcpcxx::schema::detail
