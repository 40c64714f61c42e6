// The Skills extension's state and its catalog registrations (skills_service.hpp).
#include "skills/skills_service.hpp"

#include <stdexcept>
#include <utility>

#include "mcpcxx/errors.hpp"

#include "core/notification_bus.hpp"
#include "registry/cache_hints.hpp"
#include "state/codec.hpp"

namespace mcpcxx::detail {

namespace {

std::string base64_standard(std::string_view bytes) {
  std::string out = state::base64url_encode(bytes);
  for (auto& c : out) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  out.append((4 - out.size() % 4) % 4, '=');
  return out;
}

void check_options(const skills_options& o) {
  const auto positive = [](std::size_t v, const char* name) {
    if (v == 0) {
      throw std::invalid_argument(std::string("skills_options::") + name + " must be positive");
    }
  };
  positive(o.max_file_bytes, "max_file_bytes");
  positive(o.max_skill_bytes, "max_skill_bytes");
  positive(o.max_skill_files, "max_skill_files");
  positive(o.max_total_bytes, "max_total_bytes");
  positive(o.max_depth, "max_depth");
  check_cache_hint(cache_hint{o.ttl_ms, o.cache_scope}, "skills");
}

// resources/read of the skill file `uri` from `t` (the tree served now; null before add()).
std::vector<resource_contents> skill_file_contents(
    const std::shared_ptr<const skills::skill_tree>& t, const std::string& uri) {
  if (!t) throw resource_not_found(uri);
  const auto it = t->files.find(uri);
  if (it == t->files.end()) throw resource_not_found(uri);
  const skills::skill_file& f = *it->second;
  resource_contents c;
  c.uri = f.uri;
  c.mime_type = f.mime_type;
  if (f.text) {
    c.text = f.bytes;
  } else {
    c.blob_base64 = base64_standard(f.bytes);
  }
  return std::vector<resource_contents>{std::move(c)};
}

}  // namespace

std::shared_ptr<const skills::skill_tree> skills_service::tree() const {
  std::lock_guard g(mutex_);
  return tree_;
}

bool skills_service::directory_read() const {
  std::lock_guard g(mutex_);
  return options_.directory_read;
}

void skills_service::put_cache_hints(json& result) const {
  std::lock_guard g(mutex_);
  result["ttlMs"] = options_.ttl_ms.value_or(core_.options().list_ttl_ms);
  result["cacheScope"] = options_.cache_scope.value_or(core_.options().cache_scope);
}

resource_spec skills_service::spec_for(const skills::skill_file& f,
                                       const skills::skill_tree& tree) const {
  resource_spec s;
  s.uri = f.uri;
  s.name = f.name;
  s.mime_type = f.mime_type;
  s.size = static_cast<std::int64_t>(f.bytes.size());
  s.cache = cache_hint{options_.ttl_ms, options_.cache_scope};
  if (f.name == "SKILL.md") {
    for (const auto& skill : tree.skills) {
      if (skill.uri != f.uri) continue;
      s.name = skill.frontmatter["name"].get<std::string>();
      s.description = skill.frontmatter["description"].get<std::string>();
    }
  }
  return s;
}

void skills_service::add(const std::string& root, skills_options options) {
  std::lock_guard load(load_mutex_);
  if (!root_.empty()) {
    throw std::invalid_argument("skills are already served from " + root_ +
                                "; call reload_skills() to re-read that tree");
  }
  check_options(options);
  auto tree = skills::load_skill_tree(root, options);
  if (tree->skills.empty()) {
    throw std::invalid_argument("skills: " + root +
                                ": no skill found (a skill is a directory holding a SKILL.md); "
                                "name the directory that contains the skill directories");
  }
  json settings = json::object();
  if (options.directory_read) settings["directoryRead"] = true;
  core_.registry().add_extension(std::string(k_skills_extension_id), std::move(settings));
  {
    std::lock_guard g(mutex_);
    root_ = root;
    options_ = std::move(options);
    tree_ = tree;
  }
  skills_changes changes;
  try {
    register_files(*tree, nullptr, changes);
  } catch (...) {
    for (const auto& uri : changes.added) core_.registry().remove_resource(uri);
    core_.registry().remove_extension(k_skills_extension_id);
    std::lock_guard g(mutex_);
    root_.clear();
    tree_.reset();
    throw;
  }
  core_.log().write("info", "skills_loaded",
                    {{"root", root},
                     {"skills", tree->skills.size()},
                     {"files", tree->files.size()},
                     {"bytes", tree->total_bytes}});
}

skills_changes skills_service::reload() {
  std::lock_guard load(load_mutex_);
  std::string root;
  skills_options options;
  std::shared_ptr<const skills::skill_tree> old;
  {
    std::lock_guard g(mutex_);
    root = root_;
    options = options_;
    old = tree_;
  }
  if (root.empty()) {
    throw std::invalid_argument("reload_skills: no skills are served; call add_skills first");
  }
  auto next = skills::load_skill_tree(root, options);
  {
    std::lock_guard g(mutex_);
    tree_ = next;
  }
  skills_changes changes;
  register_files(*next, old.get(), changes);
  changes.skills = next->skills.size();
  for (const auto& uri : changes.changed) {
    core_.bus().publish({change_kind::resource_updated, uri, nullptr});
  }
  core_.log().write("info", "skills_reloaded",
                    {{"root", root},
                     {"skills", next->skills.size()},
                     {"added", changes.added.size()},
                     {"removed", changes.removed.size()},
                     {"changed", changes.changed.size()}});
  return changes;
}

// Brings the catalog from `old` (null: nothing registered) to `tree`, recording what changed.
void skills_service::register_files(const skills::skill_tree& tree, const skills::skill_tree* old,
                                    skills_changes& changes) {
  catalog& reg = core_.registry();
  const auto reader = [this](const std::string& uri, request_context&) {
    return skill_file_contents(this->tree(), uri);
  };
  if (old != nullptr) {
    for (const auto& [uri, f] : old->files) {
      if (tree.files.contains(uri)) continue;
      reg.remove_resource(uri);
      changes.removed.push_back(uri);
    }
  }
  for (const auto& [uri, f] : tree.files) {
    resource_spec spec = spec_for(*f, tree);
    if (old != nullptr) {
      if (const auto was = old->files.find(uri); was != old->files.end()) {
        if (was->second->digest != f->digest) changes.changed.push_back(uri);
        if (json(spec_for(*was->second, *old)) == json(spec)) continue;
        reg.remove_resource(uri);
        reg.add_resource(std::move(spec), reader);
        continue;
      }
    }
    reg.add_resource(std::move(spec), reader);
    changes.added.push_back(uri);
  }
}

}  // namespace mcpcxx::detail
