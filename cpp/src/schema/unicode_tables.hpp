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

/// Ranges of general category `name` ("L", "Lu", "Ll", "N", "Nd", "M", or "Virama" for canonical
/// combining class 9); empty when unsupported.
std::span<const code_range> unicode_category(std::string_view name);

/// Unicode bidirectional classes (UAX #9).
enum class bidi : unsigned char {
  L,
  R,
  AL,
  EN,
  ES,
  ET,
  AN,
  CS,
  NSM,
  BN,
  ON,
  B,
  S,
  WS,
  LRE,
  LRO,
  RLE,
  RLO,
  PDF,
  LRI,
  RLI,
  FSI,
  PDI
};

/// The bidirectional class of `cp` (L for unassigned code points).
bidi bidi_class(char32_t cp) noexcept;

/// True when `cp` is in `ranges` (sorted, disjoint).
bool in_ranges(std::span<const code_range> ranges, char32_t cp) noexcept;

}  // namespace mcpcxx::schema::detail
