// Private helpers of the wire layer: filling a row's template and data from arguments.
// Thread-safety: pure functions (a missing argument bumps an atomic counter).
#pragma once

#include <string>

#include "wire/situation.hpp"

namespace mcpcxx::wire::detail {

/// The row's template filled from `args` (notation in situation.hpp). May throw bad_alloc.
std::string fill_template(const row& r, const json& args);
/// The row's data object from `args`; null when the row lists no data keys. May throw bad_alloc.
json fill_data(const row& r, const json& args);
/// fill_data, moving the listed members out of `args` (left null) instead of copying them.
json take_data(const row& r, json& args);

}  // namespace mcpcxx::wire::detail
