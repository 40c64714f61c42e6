// The protocol revisions the engine implements. The strings come from the engine's one revisions
// table (cpp/src/wire/revisions.hpp); this header only exposes them.
// Thread-safety: immutable constants, constant-initialized (usable during static initialization).
#pragma once

#include <cstddef>
#include <string_view>

namespace mcpcxx {

/// A read-only, ordered list of protocol revision strings (NUL-terminated), newest first.
class version_list {
 public:
  /// A list over `size` strings at `data` (which must outlive the list).
  constexpr version_list(const char* const* data, std::size_t size) noexcept
      : data_(data), size_(size) {}
  /// The first revision.
  constexpr const char* const* begin() const noexcept { return data_; }
  /// One past the last revision.
  constexpr const char* const* end() const noexcept { return data_ + size_; }
  /// How many revisions the list holds.
  constexpr std::size_t size() const noexcept { return size_; }
  /// The revision at `i` (i < size()).
  constexpr const char* operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  const char* const* data_;
  std::size_t size_;
};

/// Every protocol revision the engine implements, newest first.
extern const version_list k_supported_versions;
/// The stateless (modern) revision.
extern const std::string_view k_modern_version;
/// The newest legacy revision (initialize counter-offer).
extern const std::string_view k_latest_legacy_version;

}  // namespace mcpcxx
