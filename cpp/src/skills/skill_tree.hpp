// A skills tree loaded into memory: every skill (a directory holding SKILL.md), its validated
// frontmatter and its files with their bytes, SHA-256 digests and sizes, addressed by skill://
// URIs, plus the directory listing resources/directory/read serves. Loading reads the tree once
// through directory descriptors (openat, O_NOFOLLOW), so nothing outside the root is opened; it
// enforces every skills_options limit and refuses the whole tree on the first problem, naming
// the file and what to change.
// Thread-safety: load_skill_tree is reentrant; a loaded tree is immutable.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"
#include "mcpcxx/skills.hpp"

namespace mcpcxx::skills {

/// One served file.
struct skill_file {
  std::string uri;        ///< skill://<skill-path>/<file-path>, segments percent-encoded
  std::string path;       ///< relative to the root, '/'-separated (for messages)
  std::string name;       ///< the last path segment
  std::string bytes;      ///< the content as read at load
  std::string digest;     ///< "sha256:" and 64 lowercase hex digits
  std::string mime_type;  ///< by extension; text/markdown for .md
  bool text = false;      ///< valid UTF-8: served as text, else as a base64 blob
};

/// One skill.
struct skill_entry {
  std::string uri;   ///< of its SKILL.md
  std::string path;  ///< the skill path (its directory relative to the root)
  json frontmatter;  ///< verbatim; name and description checked
  std::vector<std::shared_ptr<const skill_file>> files;  ///< every file below it, by URI
};

/// A direct child of a directory resource.
struct directory_child {
  std::string uri;
  std::string name;
  std::string mime_type;            ///< inode/directory for a subdirectory
  std::optional<std::size_t> size;  ///< files only
};

/// Everything served from one root.
struct skill_tree {
  std::vector<skill_entry> skills;                                              ///< by URI
  std::map<std::string, std::shared_ptr<const skill_file>, std::less<>> files;  ///< by URI
  /// Directory URI (no trailing slash) -> its direct children by URI.
  std::map<std::string, std::vector<directory_child>, std::less<>> directories;
  std::size_t total_bytes = 0;
};

/// Loads the tree below `root` (a directory; the path may be a symlink). Throws
/// std::invalid_argument "skills: <path>: <problem>; <what to do>" for a tree it refuses and
/// std::runtime_error for an I/O failure.
std::shared_ptr<const skill_tree> load_skill_tree(const std::string& root,
                                                  const skills_options& options);

/// The Skill entry of the Skills extension: uri, frontmatter, resources [{uri, digest, size}].
json skill_json(const skill_entry& skill);

/// `segment` percent-encoded for a skill:// URI path (RFC 3986 pchar kept as is).
std::string encode_segment(std::string_view segment);

/// True for an Agent Skills name: 1-64 of [a-z0-9-], no leading, trailing or double hyphen.
bool valid_skill_name(std::string_view name) noexcept;

}  // namespace mcpcxx::skills
