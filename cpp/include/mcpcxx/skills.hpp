// The Skills extension (io.modelcontextprotocol/skills): serving a directory tree of Agent Skills
// as skill:// resources with skills/list, skills/get and, when enabled, resources/directory/read
// (docs/skills.md). server::add_skills loads a tree; server::reload_skills re-reads it.
// Thread-safety: plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpcxx {

/// The extension id advertised in ServerCapabilities `extensions`.
inline constexpr std::string_view k_skills_extension_id = "io.modelcontextprotocol/skills";

/// What add_skills does with a symbolic link inside the tree.
enum class skills_symlinks {
  refuse,         ///< any symlink is a load error naming it (the default)
  follow_inside,  ///< followed when its target resolves inside the tree, else a load error
};

/// How a skills tree is read and served. Every limit is checked while loading: a tree over a
/// limit is refused with an error naming the file or skill, so a read never blows memory.
struct skills_options {
  /// Serve resources/directory/read (advertised as `directoryRead: true`).
  bool directory_read = false;
  /// Symlinks inside the tree (the root path itself may be a link).
  skills_symlinks symlinks = skills_symlinks::refuse;
  /// Serve files and directories whose name starts with '.' (.git, .DS_Store); skipped if false.
  bool include_hidden = false;
  /// Limit: bytes of one file. Default 8 MiB.
  std::size_t max_file_bytes = std::size_t{8} * 1024 * 1024;
  /// Limit: bytes of one skill, its files summed (the spec's 16 MiB per skill).
  std::size_t max_skill_bytes = std::size_t{16} * 1024 * 1024;
  /// Limit: files of one skill, SKILL.md included (the spec's 512).
  std::size_t max_skill_files = 512;
  /// Limit: bytes of every served file together (they are kept in memory). Default 64 MiB.
  std::size_t max_total_bytes = std::size_t{64} * 1024 * 1024;
  /// Limit: directory depth below the root. Default 16.
  std::size_t max_depth = 16;
  /// ttlMs of skills/list and skills/get results; unset: server_options::list_ttl_ms.
  std::optional<std::int64_t> ttl_ms;
  /// cacheScope of skills/list and skills/get results; unset: server_options::cache_scope.
  std::optional<std::string> cache_scope;
};

/// What a reload changed, by skill:// URI.
struct skills_changes {
  std::vector<std::string> added;    ///< files new in the tree
  std::vector<std::string> removed;  ///< files gone from the tree
  std::vector<std::string> changed;  ///< files whose bytes differ (new digest)
  std::size_t skills = 0;            ///< skills served after the reload
  /// True when some file was added, removed or changed.
  bool any() const noexcept { return !added.empty() || !removed.empty() || !changed.empty(); }
};

}  // namespace mcpcxx
