// The spec's Icon shape (2025-11-25+) on tools, resources, templates, prompts and Implementation.
// Icon = {src (required: an https:, http: or data: URI), mimeType?, sizes?: string[], theme?:
// "light" | "dark"}; python/mcpcxx/_icons.py refuses the same shapes.
#pragma once

#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::model {

/// The `icons` value of `j` (null when absent or null). Throws std::invalid_argument naming the
/// object, the icon's index and field, and what it must be, for anything but an Icon array.
json read_icons(const json& j, std::string_view what);

}  // namespace mcpcxx::model
