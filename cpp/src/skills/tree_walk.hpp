// Reading a skills tree from disk (skill_tree.cpp builds the served tree from it): the walk
// descends through directory descriptors (openat with O_NOFOLLOW), so a path can neither leave
// the root nor be swapped for a link between the check and the open; symlinks are refused or,
// with skills_symlinks::follow_inside, followed only when the opened target lies inside the
// root. Files are read only below a skill, each bounded by max_file_bytes before and while
// reading, all of them by max_total_bytes.
// Thread-safety: reentrant.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mcpcxx/skills.hpp"

namespace mcpcxx::skills {

/// What the walk found.
struct walked_tree {
  std::string root;                          ///< the root's real path
  std::vector<std::string> skill_dirs;       ///< relative paths of directories with SKILL.md
  std::map<std::string, std::string> files;  ///< relative path -> bytes, files below skills
};

/// Walks `root`; throws std::invalid_argument "skills: <path>: <problem>" (and
/// std::runtime_error for I/O errors).
walked_tree walk_skill_tree(const std::string& root, const skills_options& options);

/// Throws std::invalid_argument "skills: <path>: <problem>".
[[noreturn]] void refuse(const std::string& path, const std::string& problem);

}  // namespace mcpcxx::skills
