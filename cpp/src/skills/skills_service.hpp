// detail::skills_service: the Skills extension of one server. It holds the loaded tree
// (skills/skill_tree.hpp), declares io.modelcontextprotocol/skills in the catalog, registers every
// skill file as a resource whose reader serves the tree's bytes (so a read never touches the disk
// and cannot leave the tree), and on reload swaps the tree and brings the catalog in line: the
// catalog announces resources list_changed, and a changed file gets resources/updated.
// Thread-safety: add() and reload() serialize on one mutex; tree() and the readers may run on
// any thread at any time (they see the old or the new tree, never a mix).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "mcpcxx/skills.hpp"

#include "core/server_core.hpp"
#include "skills/skill_tree.hpp"

namespace mcpcxx::detail {

/// The served skills of one server (see the file comment).
class skills_service {
 public:
  /// `core` must outlive the service (the engine keeps the service in it).
  explicit skills_service(server_core& core) : core_(core) {}

  /// server::add_skills: loads `root`, declares the extension, registers the files. Throws
  /// std::invalid_argument (a tree it refuses, options out of range, skills already added, a URI
  /// already registered) or std::runtime_error (I/O); nothing changes then.
  void add(const std::string& root, skills_options options);
  /// server::reload_skills: re-reads the tree; throws like add() and keeps serving the old tree.
  skills_changes reload();

  /// The current tree; null before add().
  std::shared_ptr<const skills::skill_tree> tree() const;
  /// True when resources/directory/read is served.
  bool directory_read() const;
  /// ttlMs and cacheScope of skills/list and skills/get.
  void put_cache_hints(json& result) const;

 private:
  void register_files(const skills::skill_tree& tree, const skills::skill_tree* old,
                      skills_changes& changes);
  resource_spec spec_for(const skills::skill_file& f, const skills::skill_tree& tree) const;

  server_core& core_;
  std::mutex load_mutex_;     // add() and reload()
  mutable std::mutex mutex_;  // root_, options_, tree_
  std::string root_;
  skills_options options_;
  std::shared_ptr<const skills::skill_tree> tree_;
};

}  // namespace mcpcxx::detail
