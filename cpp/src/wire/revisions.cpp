// The public revision constants, generated from the revisions table.
#include <array>
#include <cstddef>

#include "mcpcxx/versions.hpp"

#include "wire/era.hpp"

namespace mcpcxx {

namespace {

// The revision strings as NUL-terminated C strings (each name is a string literal of the table).
constexpr std::array<const char*, wire::k_revision_count> k_version_cstrings = [] {
  std::array<const char*, wire::k_revision_count> out{};
  for (std::size_t i = 0; i < wire::k_revision_count; ++i)
    out[i] = wire::k_revisions[i].name.data();
  return out;
}();

}  // namespace

constinit const version_list k_supported_versions{k_version_cstrings.data(),
                                                  k_version_cstrings.size()};
constinit const std::string_view k_modern_version = wire::k_modern;
constinit const std::string_view k_latest_legacy_version = wire::k_latest_legacy;

}  // namespace mcpcxx
