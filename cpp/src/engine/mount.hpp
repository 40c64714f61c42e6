// detail::mounts: server::mount, composition of servers. A mounted (child) server's tools,
// prompts, resources and resource templates are registered in its parent's catalog under a
// prefix as mirrors: copies of the child's specs with prefixed names and URIs whose handlers call
// the child's. The parent's own tools/call, resources/read and prompts/get pipelines then serve
// them (its era handling, transports, sessions, per-tool steps: the child's scopes,
// at_most_once, timeouts and tasks come along in the copied spec), and the handlers receive the
// parent's request_context (progress, logging and questions reach the caller's session).
// The child's middleware is set on the parent's chain after the parent's own (subject maps
// strip the prefix). A change of the child's catalog re-syncs the mirrors (the parent's catalog
// then announces list_changed); the child's resources/updated is re-published with the
// prefixed URI. Names: tools and prompts "<prefix>_<name>"; URIs "scheme://<prefix>/<rest>".
// A server with nothing mounted and mounted nowhere runs none of this on the request path.
// Thread-safety: every member may be called from any thread. Each link serializes its syncs
// with its own mutex; the mount graph is acyclic (mount refuses cycles), so syncs that nest
// from a child up to its ancestors take link mutexes in one direction only.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpcxx::detail {

class engine;
struct mount_link;

/// What a registration names (the families of keys mount keeps apart).
enum class mount_kind { tool, resource, resource_template, prompt };

/// The tool or prompt name `name` gets under `prefix`: "<prefix>_<name>".
std::string mounted_name(std::string_view prefix, std::string_view name);
/// The URI (or URI template) `uri` gets under `prefix`: "scheme://<prefix>/<rest>" (or
/// "scheme:<prefix>/<rest>" without an authority); nullopt when `uri` has no scheme before its
/// first template expression.
std::optional<std::string> mounted_uri(std::string_view prefix, std::string_view uri);
/// The inverse of mounted_uri; nullopt when `uri` is not under `prefix`.
std::optional<std::string> unmounted_uri(std::string_view prefix, std::string_view uri);

/// The mounts of one server: the servers mounted into it and the servers it is mounted into.
class mounts {
 public:
  explicit mounts(engine& self) : self_(self) {}
  mounts(const mounts&) = delete;
  mounts& operator=(const mounts&) = delete;

  /// Mounts `child` into `parent` under `prefix` (server::mount); throws std::invalid_argument
  /// for a bad prefix, a cycle, a name that would be invalid, or collisions (all named).
  static void mount(const std::shared_ptr<engine>& parent, const std::shared_ptr<engine>& child,
                    const std::string& prefix);
  /// Refuses (std::invalid_argument) a user registration of `key` on this server that collides
  /// with a mounted server's entry here or, prefixed, with an entry of a server this one is
  /// mounted into.
  void check_claim(mount_kind kind, const std::string& key) const;
  /// This server's catalog changed in `family` ("tools", "resources", "prompts"): re-syncs the
  /// mirrors in the servers it is mounted into.
  void changed(std::string_view family) const;
  /// This server's resource `uri` changed: tells the servers it is mounted into.
  void resource_updated(std::string_view uri) const;
  /// This server's middleware changed: re-sets it on the servers it is mounted into.
  void middleware_changed() const;

 private:
  friend struct mount_link;
  std::vector<std::shared_ptr<mount_link>> parents() const;
  std::vector<std::shared_ptr<mount_link>> children() const;
  void check_own(mount_kind kind, const std::string& key) const;
  void check_up(mount_kind kind, const std::string& key, const mount_link* except) const;
  bool reaches(const engine& target) const;

  engine& self_;
  mutable std::mutex mutex_;
  std::vector<std::weak_ptr<mount_link>> parents_;
  std::vector<std::shared_ptr<mount_link>> children_;
};

}  // namespace mcpcxx::detail
