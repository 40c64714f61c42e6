// server::mount: mirrors of a child server's primitives in its parent (see mount.hpp).
#include "engine/mount.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/middleware_chain.hpp"
#include "engine/engine.hpp"
#include "registry/registry.hpp"

namespace mcpcxx::detail {

namespace {

constexpr std::array<mount_kind, 4> k_kinds = {mount_kind::tool, mount_kind::resource,
                                               mount_kind::resource_template, mount_kind::prompt};

std::string_view kind_word(mount_kind k) {
  switch (k) {
    case mount_kind::tool:
      return "tool";
    case mount_kind::resource:
      return "resource";
    case mount_kind::resource_template:
      return "resource template";
    case mount_kind::prompt:
      return "prompt";
  }
  return "entry";
}

const std::string& name_of(const engine& e) { return e.core()->options().info.name; }

bool prefix_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

void check_prefix(const std::string& prefix) {
  const bool ok = !prefix.empty() && prefix.size() <= 62 && prefix_char(prefix[0]) &&
                  prefix[0] != '.' && std::all_of(prefix.begin(), prefix.end(), prefix_char);
  if (!ok) {
    throw std::invalid_argument(
        "mount: invalid prefix '" + prefix.substr(0, 80) +
        "': use 1-62 characters from A-Z a-z 0-9 _ . - (not starting with '.'), such as "
        "\"billing\"; tools and prompts are then served as billing_<name> and resources as "
        "scheme://billing/<rest>");
  }
}

}  // namespace

std::string mounted_name(std::string_view prefix, std::string_view name) {
  std::string out(prefix);
  out += '_';
  out += name;
  return out;
}

std::optional<std::string> mounted_uri(std::string_view prefix, std::string_view uri) {
  const auto colon = uri.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > uri.find('{')) return std::nullopt;
  std::size_t at = colon + 1;
  if (uri.substr(at, 2) == "//") at += 2;
  std::string out(uri.substr(0, at));
  out += prefix;
  out += '/';
  out += uri.substr(at);
  return out;
}

std::optional<std::string> unmounted_uri(std::string_view prefix, std::string_view uri) {
  const auto colon = uri.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::size_t at = colon + 1;
  if (uri.substr(at, 2) == "//") at += 2;
  const auto rest = uri.substr(at);
  if (rest.size() <= prefix.size() || rest.substr(0, prefix.size()) != prefix ||
      rest[prefix.size()] != '/') {
    return std::nullopt;
  }
  std::string out(uri.substr(0, at));
  out += rest.substr(prefix.size() + 1);
  return out;
}

/// One child mounted into one parent under a prefix, with the mirrors it registered there.
struct mount_link {
  mount_link(std::string p, const std::shared_ptr<engine>& parent_engine,
             std::shared_ptr<engine> child_engine)
      : prefix(std::move(p)), parent(parent_engine), child(std::move(child_engine)) {}

  const std::string prefix;
  const std::weak_ptr<engine> parent;
  const std::shared_ptr<engine> child;  // kept alive while mounted
  mutable std::mutex mutex;             // serializes syncs; guards mirrors
  // per mount_kind: child key -> the child entry mirrored (to notice a re-registration)
  std::array<std::map<std::string, const void*>, 4> mirrors;

  /// The parent's key of the child's `key`; nullopt when it cannot be prefixed (no scheme).
  std::optional<std::string> parent_key(mount_kind k, std::string_view key) const {
    if (k == mount_kind::tool || k == mount_kind::prompt) return mounted_name(prefix, key);
    return mounted_uri(prefix, key);
  }
  /// The child's key of the parent's `key`; nullopt when `key` is not under the prefix.
  std::optional<std::string> child_key(mount_kind k, std::string_view key) const {
    if (k == mount_kind::resource || k == mount_kind::resource_template) {
      return unmounted_uri(prefix, key);
    }
    if (key.size() <= prefix.size() + 1 || key.substr(0, prefix.size()) != prefix ||
        key[prefix.size()] != '_') {
      return std::nullopt;
    }
    return std::string(key.substr(prefix.size() + 1));
  }
  bool mirrors_key(mount_kind k, const std::string& child_key) const {
    std::lock_guard g(mutex);
    return mirrors[static_cast<std::size_t>(k)].count(child_key) != 0;
  }
  /// What is wrong with serving the child's `key` in the parent; "" when nothing.
  std::string problem(engine& p, mount_kind k, const std::string& key) const;
  void sync(mount_kind k);
  std::optional<std::string> child_subject(std::string_view method, std::string_view subject) const;
};

namespace {

// The child's entries of kind `k` as (key, entry).
std::vector<std::pair<std::string, std::shared_ptr<const void>>> entries_of(engine& e,
                                                                            mount_kind k) {
  std::vector<std::pair<std::string, std::shared_ptr<const void>>> out;
  switch (k) {
    case mount_kind::tool:
      for (auto& t : e.registry().all_tools()) out.emplace_back(t->spec.name, t);
      break;
    case mount_kind::resource:
      for (auto& r : e.registry().all_resources()) out.emplace_back(r->spec.uri, r);
      break;
    case mount_kind::resource_template:
      for (auto& t : e.registry().all_templates()) out.emplace_back(t->spec.uri_template, t);
      break;
    case mount_kind::prompt:
      for (auto& p : e.registry().all_prompts()) out.emplace_back(p->spec.name, p);
      break;
  }
  return out;
}

bool parent_has(engine& p, mount_kind k, const std::string& key) {
  switch (k) {
    case mount_kind::tool:
      return p.registry().find_tool(key) != nullptr;
    case mount_kind::resource:
      return p.registry().find_resource(key) != nullptr;
    case mount_kind::resource_template:
      for (const auto& t : p.registry().all_templates()) {
        if (t->spec.uri_template == key) return true;
      }
      return false;
    case mount_kind::prompt:
      return p.registry().find_prompt(key) != nullptr;
  }
  return false;
}

// The contents a child's reader returned, with their URIs as the parent serves them.
std::vector<resource_contents> remapped(std::vector<resource_contents> contents,
                                        const std::string& prefix) {
  for (auto& c : contents) {
    if (auto u = mounted_uri(prefix, c.uri)) c.uri = std::move(*u);
  }
  return contents;
}

void add_tool_mirror(catalog& parent, const std::shared_ptr<const tool_entry>& e, std::string key) {
  tool_spec spec = e->spec;
  spec.name = std::move(key);
  if (e->async_handler) {
    parent.add_async_tool(std::move(spec),
                          [e](const json& args, request_context& ctx, tool_completion done) {
                            e->async_handler(args, ctx, std::move(done));
                          });
    return;
  }
  parent.add_tool(std::move(spec),
                  [e](const json& args, request_context& ctx) { return e->handler(args, ctx); });
}

void add_mirror(catalog& parent, mount_kind k, const std::shared_ptr<const void>& entry,
                std::string key, const std::string& prefix) {
  switch (k) {
    case mount_kind::tool:
      add_tool_mirror(parent, std::static_pointer_cast<const tool_entry>(entry), std::move(key));
      return;
    case mount_kind::resource: {
      auto e = std::static_pointer_cast<const resource_entry>(entry);
      resource_spec spec = e->spec;
      spec.uri = std::move(key);
      parent.add_resource(std::move(spec), [e, prefix](const std::string&, request_context& ctx) {
        return remapped(e->reader(e->spec.uri, ctx), prefix);
      });
      return;
    }
    case mount_kind::resource_template: {
      auto e = std::static_pointer_cast<const template_entry>(entry);
      resource_template_spec spec = e->spec;
      spec.uri_template = std::move(key);
      parent.add_resource_template(
          std::move(spec),
          [e, prefix](const std::string& uri, const std::map<std::string, std::string>& vars,
                      request_context& ctx) {
            const std::string own = unmounted_uri(prefix, uri).value_or(uri);
            return remapped(e->reader(own, vars, ctx), prefix);
          });
      return;
    }
    case mount_kind::prompt: {
      auto e = std::static_pointer_cast<const prompt_entry>(entry);
      prompt_spec spec = e->spec;
      spec.name = std::move(key);
      parent.add_prompt(std::move(spec),
                        [e](const std::map<std::string, std::string>& args, request_context& ctx) {
                          return e->handler(args, ctx);
                        });
      return;
    }
  }
}

bool remove_mirror(catalog& parent, mount_kind k, const std::string& key) {
  switch (k) {
    case mount_kind::tool:
      return parent.remove_tool(key);
    case mount_kind::resource:
      return parent.remove_resource(key);
    case mount_kind::resource_template:
      return parent.remove_resource_template(key);
    case mount_kind::prompt:
      return parent.remove_prompt(key);
  }
  return false;
}

}  // namespace

std::string mount_link::problem(engine& p, mount_kind k, const std::string& key) const {
  const auto pk = parent_key(k, key);
  const std::string what(kind_word(k));
  if (!pk) {
    return what + " '" + key + "' has no \"scheme:\" before its first '{', so the prefix cannot " +
           "be inserted; give it a URI such as \"data://" + key + "\"";
  }
  if (k == mount_kind::tool && !valid_tool_name(*pk)) {
    return "tool '" + key + "' would be served as '" + pk->substr(0, 80) + "' (" +
           std::to_string(pk->size()) +
           " characters), over the 64 MCP allows for tool names; choose a shorter prefix or a "
           "shorter tool name";
  }
  if (!mirrors_key(k, key) && parent_has(p, k, *pk)) {
    return what + " '" + key + "' would be served as '" + *pk + "', which '" + name_of(p) +
           "' already serves; mount under a different prefix or rename one of them";
  }
  try {
    p.mount_table().check_up(k, *pk, nullptr);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

// Brings the parent's mirrors of kind `k` in line with the child's entries. A mirror the parent
// refuses (a collision that raced the child's registration check) is logged and left out.
void mount_link::sync(mount_kind k) {
  const auto p = parent.lock();
  if (!p) return;
  std::lock_guard g(mutex);
  auto& mirror = mirrors[static_cast<std::size_t>(k)];
  const auto current = entries_of(*child, k);
  std::map<std::string, const void*> seen;
  for (const auto& [key, entry] : current) seen.emplace(key, entry.get());
  for (auto it = mirror.begin(); it != mirror.end();) {
    const auto now = seen.find(it->first);
    if (now != seen.end() && now->second == it->second) {
      ++it;
      continue;
    }
    remove_mirror(p->registry(), k, *parent_key(k, it->first));
    it = mirror.erase(it);
  }
  for (const auto& [key, entry] : current) {
    if (mirror.count(key) != 0) continue;
    try {
      add_mirror(p->registry(), k, entry, *parent_key(k, key), prefix);
      mirror.emplace(key, entry.get());
    } catch (const std::exception& e) {
      p->core()->log().write("error", "mount_mirror_refused",
                             {{"prefix", prefix},
                              {"mounted", name_of(*child)},
                              {kind_word(k), key},
                              {"problem", e.what()}});
    }
  }
}

std::optional<std::string> mount_link::child_subject(std::string_view method,
                                                     std::string_view subject) const {
  if (method == "tools/call") {
    auto ck = child_key(mount_kind::tool, subject);
    if (ck && child->registry().find_tool(*ck)) return ck;
  } else if (method == "prompts/get") {
    auto ck = child_key(mount_kind::prompt, subject);
    if (ck && child->registry().find_prompt(*ck)) return ck;
  } else if (method == "resources/read") {
    auto ck = unmounted_uri(prefix, subject);
    std::map<std::string, std::string> vars;
    if (ck &&
        (child->registry().find_resource(*ck) || child->registry().match_template(*ck, vars))) {
      return ck;
    }
  }
  return std::nullopt;
}

namespace {

// The child's middleware as the parent runs them: only for the child's primitives, named as
// the child knows them (a grandchild's maps compose with the link's).
std::vector<scoped_middleware> mounted_middleware(const std::shared_ptr<mount_link>& link) {
  auto list = link->child->core()->middleware().effective();
  for (auto& s : list) {
    s.subject = [link, inner = std::move(s.subject)](
                    std::string_view method,
                    std::string_view subject) -> std::optional<std::string> {
      auto own = link->child_subject(method, subject);
      if (!own || !inner) return own;
      return inner(method, *own);
    };
  }
  return list;
}

}  // namespace

std::vector<std::shared_ptr<mount_link>> mounts::parents() const {
  std::lock_guard g(mutex_);
  std::vector<std::shared_ptr<mount_link>> out;
  for (const auto& w : parents_) {
    if (auto l = w.lock()) out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::shared_ptr<mount_link>> mounts::children() const {
  std::lock_guard g(mutex_);
  return children_;
}

bool mounts::reaches(const engine& target) const {
  for (const auto& l : children()) {
    if (l->child.get() == &target || l->child->mount_table().reaches(target)) return true;
  }
  return false;
}

void mounts::check_own(mount_kind kind, const std::string& key) const {
  for (const auto& l : children()) {
    const auto ck = l->child_key(kind, key);
    if (!ck || !l->mirrors_key(kind, *ck)) continue;
    throw std::invalid_argument(
        std::string(kind_word(kind)) + " '" + key + "' cannot be registered on '" + name_of(self_) +
        "': it is already served by the server '" + name_of(*l->child) + "' mounted at prefix '" +
        l->prefix + "' (its " + std::string(kind_word(kind)) + " '" + *ck +
        "'); choose another name, or rename it in '" + name_of(*l->child) + "'");
  }
}

void mounts::check_up(mount_kind kind, const std::string& key, const mount_link* except) const {
  for (const auto& l : parents()) {
    if (l.get() == except) continue;
    const auto p = l->parent.lock();
    if (!p) continue;
    const std::string problem = l->problem(*p, kind, key);
    if (problem.empty()) continue;
    std::string why = std::string(kind_word(kind)) + " '" + key + "' cannot be registered on '";
    why += name_of(self_);
    why += "', which is mounted into '";
    why += name_of(*p);
    why += "' at prefix '";
    why += l->prefix;
    why += "': ";
    why += problem;
    throw std::invalid_argument(why);
  }
}

void mounts::check_claim(mount_kind kind, const std::string& key) const {
  check_own(kind, key);
  check_up(kind, key, nullptr);
}

void mounts::changed(std::string_view family) const {
  for (const auto& l : parents()) {
    if (family == "tools") l->sync(mount_kind::tool);
    if (family == "prompts") l->sync(mount_kind::prompt);
    if (family == "resources") {
      l->sync(mount_kind::resource);
      l->sync(mount_kind::resource_template);
    }
  }
}

void mounts::resource_updated(std::string_view uri) const {
  for (const auto& l : parents()) {
    const auto p = l->parent.lock();
    const auto pu = mounted_uri(l->prefix, uri);
    if (p && pu) p->notify_resource_updated(*pu);
  }
}

void mounts::middleware_changed() const {
  for (const auto& l : parents()) {
    const auto p = l->parent.lock();
    if (!p) continue;
    p->core()->middleware().set_mounted(l.get(), mounted_middleware(l));
    p->mount_table().middleware_changed();
  }
}

namespace {

// Every reason the child's current entries cannot be served under the link's prefix.
std::vector<std::string> mount_problems(engine& parent, const mount_link& link) {
  std::vector<std::string> problems;
  for (const auto k : k_kinds) {
    for (const auto& [key, entry] : entries_of(*link.child, k)) {
      auto p = link.problem(parent, k, key);
      if (!p.empty()) problems.push_back(std::move(p));
    }
  }
  return problems;
}

[[noreturn]] void refuse_mount(const engine& parent, const mount_link& link,
                               const std::vector<std::string>& problems) {
  std::string why = "mount: cannot mount server '" + name_of(*link.child) + "' into '" +
                    name_of(parent) + "' at prefix '" + link.prefix + "':";
  const std::size_t shown = std::min<std::size_t>(problems.size(), 5);
  for (std::size_t i = 0; i < shown; ++i) why += (i == 0 ? " " : "; ") + problems[i];
  if (problems.size() > shown) {
    why += "; and " + std::to_string(problems.size() - shown) + " more";
  }
  throw std::invalid_argument(why);
}

}  // namespace

void mounts::mount(const std::shared_ptr<engine>& parent, const std::shared_ptr<engine>& child,
                   const std::string& prefix) {
  check_prefix(prefix);
  if (parent == child) {
    throw std::invalid_argument("mount: server '" + name_of(*parent) +
                                "' cannot be mounted into itself; mount another server");
  }
  if (child->mount_table().reaches(*parent)) {
    throw std::invalid_argument("mount: cannot mount server '" + name_of(*child) + "' into '" +
                                name_of(*parent) + "': '" + name_of(*parent) +
                                "' is already mounted (directly or not) into '" + name_of(*child) +
                                "', and a mount cycle cannot be served");
  }
  mounts& table = parent->mount_table();
  for (const auto& l : table.children()) {
    if (l->prefix != prefix) continue;
    throw std::invalid_argument("mount: '" + name_of(*parent) + "' already has server '" +
                                name_of(*l->child) + "' mounted at prefix '" + prefix +
                                "'; mount '" + name_of(*child) + "' under a different prefix");
  }
  auto link = std::make_shared<mount_link>(prefix, parent, child);
  if (auto problems = mount_problems(*parent, *link); !problems.empty()) {
    refuse_mount(*parent, *link, problems);
  }
  {
    std::lock_guard g(table.mutex_);
    table.children_.push_back(link);
  }
  {
    std::lock_guard g(child->mount_table().mutex_);
    child->mount_table().parents_.push_back(link);
  }
  for (const auto k : k_kinds) link->sync(k);
  parent->core()->middleware().set_mounted(link.get(), mounted_middleware(link));
  table.middleware_changed();
}

}  // namespace mcpcxx::detail
