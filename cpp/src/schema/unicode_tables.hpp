// Unicode general-category ranges for \p{...} in patterns.
#pragma once

#include <span>
#include <string_view>

namespace mcpcxx::schema::detail {

/// An inclusive range of code points.
struct code_range {
  char32_t lo;
  char32_t hi;
};

/// Ranges of general category `name` ("L", "Lu", "Ll", "N", "Nd"); empty when unsupported.
std::span<const code_range> unicode_category(std::string_view name);

}  // namespace mcpcxx::schema::detail
