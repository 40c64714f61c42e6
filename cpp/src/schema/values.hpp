// JSON value helpers with JSON Schema semantics: numeric equality across integer/float
// representations, bounded-depth comparison, Unicode lengths and short renderings for messages.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::schema::detail {

/// Result of comparing two values whose nesting may exceed the bound.
enum class eq_result { equal, different, too_deep };

/// Structural equality where 1 == 1.0; stops with too_deep past `max_depth` levels.
eq_result json_equal(const json& a, const json& b, std::size_t max_depth);

/// Three-way numeric comparison of two JSON numbers (exact across int64/uint64/double).
int compare_numbers(const json& a, const json& b) noexcept;

/// True when the number `value` is an integer multiple of `divisor` (> 0).
bool is_multiple_of(const json& value, const json& divisor) noexcept;

/// Number of Unicode code points in UTF-8 `s` (invalid bytes count as one each).
std::size_t code_points(std::string_view s) noexcept;

/// Compact JSON text of `v`, cut to about `max_chars` with "..." (for schema values in messages).
std::string short_dump(const json& v, std::size_t max_chars = 60);

/// The pieces joined into one string, allocated once. Messages and JSON pointers are built with
/// it instead of `"text" + std::string(...)`, which GCC 12 at -O3 misreports as an overlapping
/// memcpy (-Wrestrict, GCC bug 105651) in the README's demo build.
std::string concat(std::initializer_list<std::string_view> parts);

/// `s` cut to `max_chars` bytes on a UTF-8 boundary, with "..." when cut.
std::string truncate_text(std::string_view s, std::size_t max_chars = 60);

}  // namespace mcpcxx::schema::detail
