// Renders the generated tables of docs/error-model.md from the situation table.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace mcpcxx::wire::testing {

/// The names of the generated sections, in document order.
inline constexpr std::string_view k_sections[] = {"protocol", "tool", "transport"};

/// The markdown table of one section ("protocol": P rows, "tool": T rows, "transport": H rows).
std::string render_section(std::string_view section);

/// The begin and end marker lines that enclose a generated section in the document.
std::string begin_marker(std::string_view section);
/// See begin_marker.
std::string end_marker(std::string_view section);

/// `doc` with every generated section replaced by its rendering; sections without markers are
/// left alone (the caller checks they exist).
std::string regenerate(std::string doc);

}  // namespace mcpcxx::wire::testing
