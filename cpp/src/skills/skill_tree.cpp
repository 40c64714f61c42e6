// Building the served tree from the walk (skill_tree.hpp): frontmatter checks, URIs, digests,
// MIME types, per-skill limits and the directory listing.
#include "skills/skill_tree.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "skills/frontmatter.hpp"
#include "skills/tree_walk.hpp"
#include "skills/yaml_scalars.hpp"
#include "state/codec.hpp"

namespace mcpcxx::skills {

namespace {

constexpr std::size_t k_max_description = 1024;
constexpr std::size_t k_max_name = 64;

std::string hex_digest(std::string_view bytes) {
  return "sha256:" + state::hex_encode(state::sha256(bytes));
}

// The continuation bytes a UTF-8 lead byte announces (1-3), its payload bits in `cp`; 0 for a
// byte that cannot lead a sequence (a continuation byte, C0, C1 (overlong), F5-FF).
std::size_t utf8_lead(unsigned char c, std::uint32_t& cp) {
  if (c >= 0xC2 && c <= 0xDF) {
    cp = c & 0x1Fu;
    return 1;
  }
  if (c >= 0xE0 && c <= 0xEF) {
    cp = c & 0x0Fu;
    return 2;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    cp = c & 0x07u;
    return 3;
  }
  return 0;
}

// Whether `cp`, decoded from a lead byte and `n` continuation bytes, is in its shortest form, at
// most U+10FFFF and not a surrogate (two bytes are never overlong after a C2-DF lead).
bool shortest_scalar(std::uint32_t cp, std::size_t n) {
  static constexpr std::array<std::uint32_t, 4> k_lowest{0, 0x80, 0x800, 0x10000};
  return cp >= k_lowest[n] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
}

// The length of the well-formed multi-byte sequence starting at s[i], or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  std::uint32_t cp = 0;
  const std::size_t n = utf8_lead(static_cast<unsigned char>(s[i]), cp);
  if (n == 0 || i + n >= s.size()) return 0;
  for (std::size_t k = 1; k <= n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  return shortest_scalar(cp, n) ? n + 1 : 0;
}

// Well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = utf8_sequence(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// A character a skill name may hold: a lowercase ASCII letter, a digit or a hyphen.
bool skill_name_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string mime_for(std::string_view name, bool text) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 24> k_types{{
      {".md", "text/markdown"},      {".markdown", "text/markdown"}, {".txt", "text/plain"},
      {".py", "text/x-python"},      {".sh", "text/x-shellscript"},  {".js", "text/javascript"},
      {".mjs", "text/javascript"},   {".ts", "text/x-typescript"},   {".json", "application/json"},
      {".yaml", "application/yaml"}, {".yml", "application/yaml"},   {".toml", "application/toml"},
      {".html", "text/html"},        {".htm", "text/html"},          {".css", "text/css"},
      {".csv", "text/csv"},          {".xml", "application/xml"},    {".pdf", "application/pdf"},
      {".png", "image/png"},         {".jpg", "image/jpeg"},         {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},         {".svg", "image/svg+xml"},      {".webp", "image/webp"},
  }};
  const std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot > 0) {
    std::string ext(name.substr(dot));
    for (auto& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (const auto& [e, type] : k_types) {
      if (e == ext) return std::string(type);
    }
  }
  return text ? "text/plain" : "application/octet-stream";
}

std::string uri_of(std::string_view rel) {
  std::string out = "skill://";
  for (std::size_t start = 0;;) {
    const std::size_t slash = rel.find('/', start);
    out += encode_segment(rel.substr(start, slash - start));
    if (slash == std::string_view::npos) return out;
    out += '/';
    start = slash + 1;
  }
}

std::string last_segment(std::string_view rel) {
  const std::size_t slash = rel.rfind('/');
  return std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

std::shared_ptr<const skill_file> make_file(const std::string& rel, std::string bytes) {
  auto f = std::make_shared<skill_file>();
  f->uri = uri_of(rel);
  f->path = rel;
  f->name = last_segment(rel);
  f->text = valid_utf8(bytes);
  f->mime_type = mime_for(f->name, f->text);
  f->digest = hex_digest(bytes);
  f->bytes = std::move(bytes);
  return f;
}

// The frontmatter of `dir`'s SKILL.md, checked against the Agent Skills rules.
json checked_frontmatter(const std::string& shown, const std::string& dir,
                         const std::string& bytes) {
  json fm;
  try {
    fm = parse_frontmatter(bytes);
  } catch (const std::invalid_argument& e) {
    refuse(shown, e.what());
  }
  const std::string want = last_segment(dir);
  const auto name = fm.find("name");
  if (name == fm.end() || !name->is_string()) {
    refuse(shown, "the frontmatter needs 'name: " + want + "' (the skill's directory name)");
  }
  const auto& n = name->get_ref<const std::string&>();
  if (!valid_skill_name(n)) {
    refuse(shown, "name '" + n + "' is not a skill name: use 1-" + std::to_string(k_max_name) +
                      " lowercase letters, digits and single hyphens, not at either end");
  }
  if (n != want) {
    refuse(shown, "name '" + n + "' differs from its directory '" + want +
                      "'; the name must equal the directory name (rename one of them)");
  }
  const auto desc = fm.find("description");
  if (desc == fm.end() || !desc->is_string() || trim(desc->get_ref<const std::string&>()).empty()) {
    refuse(shown,
           "the frontmatter needs a non-empty 'description' string saying what the skill "
           "does and when to use it");
  }
  if (code_points(desc->get_ref<const std::string&>()) > k_max_description) {
    refuse(shown, "the description is over " + std::to_string(k_max_description) +
                      " characters; shorten it");
  }
  return fm;
}

// Builds one skill's entry from the walked files below `dir`, checking the per-skill limits.
skill_entry make_skill(const walked_tree& walked, const std::string& dir,
                       const std::map<std::string, std::shared_ptr<const skill_file>>& by_path,
                       const skills_options& o) {
  const std::string shown = walked.root + "/" + dir;
  const std::string manifest = dir + "/SKILL.md";
  const auto md = by_path.find(manifest);
  if (md == by_path.end()) refuse(shown + "/SKILL.md", "is not a regular file");
  skill_entry e;
  e.path = dir;
  e.uri = uri_of(manifest);
  e.frontmatter = checked_frontmatter(shown + "/SKILL.md", dir, md->second->bytes);
  std::size_t bytes = 0;
  const std::string prefix = dir + "/";
  for (auto it = by_path.lower_bound(prefix); it != by_path.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    e.files.push_back(it->second);
    bytes += it->second->bytes.size();
  }
  if (e.files.size() > o.max_skill_files) {
    refuse(shown, "the skill has " + std::to_string(e.files.size()) +
                      " files, over max_skill_files (" + std::to_string(o.max_skill_files) +
                      "; hosts need accept only 512); split the skill");
  }
  if (bytes > o.max_skill_bytes) {
    refuse(shown, "the skill's files total " + std::to_string(bytes) +
                      " bytes, over max_skill_bytes (" + std::to_string(o.max_skill_bytes) +
                      "; hosts need accept only 16 MiB); split the skill");
  }
  std::sort(e.files.begin(), e.files.end(),
            [](const auto& a, const auto& b) { return a->uri < b->uri; });
  return e;
}

// Every directory from the first segment down to each file's parent, with its children.
void add_directories(skill_tree& t) {
  std::map<std::string, std::map<std::string, directory_child>> dirs;
  for (const auto& [uri, f] : t.files) {
    std::string rel = f->path;
    directory_child child{f->uri, f->name, f->mime_type, f->bytes.size()};
    for (std::size_t slash = rel.rfind('/'); slash != std::string::npos; slash = rel.rfind('/')) {
      rel.resize(slash);
      const std::string dir_uri = uri_of(rel);
      dirs[dir_uri].emplace(child.uri, child);
      child = directory_child{dir_uri, last_segment(rel), "inode/directory", std::nullopt};
    }
  }
  for (auto& [uri, children] : dirs) {
    auto& list = t.directories[uri];
    for (auto& [child_uri, c] : children) list.push_back(std::move(c));
  }
}

}  // namespace

bool valid_skill_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > k_max_name || name.front() == '-' || name.back() == '-') {
    return false;
  }
  char prev = 0;
  for (char c : name) {
    if (!skill_name_char(c) || (c == '-' && prev == '-')) return false;
    prev = c;
  }
  return true;
}

std::string encode_segment(std::string_view segment) {
  static constexpr std::string_view k_kept = "-._~!$&'()*+,;=:@";
  std::string out;
  for (char ch : segment) {
    const auto c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum || k_kept.find(ch) != std::string_view::npos) {
      out += ch;
    } else {
      out += '%';
      out += state::hex_encode({&ch, 1}, state::hex_case::upper);
    }
  }
  return out;
}

std::shared_ptr<const skill_tree> load_skill_tree(const std::string& root,
                                                  const skills_options& options) {
  walked_tree walked = walk_skill_tree(root, options);
  std::map<std::string, std::shared_ptr<const skill_file>> by_path;
  for (auto& [rel, bytes] : walked.files) by_path.emplace(rel, make_file(rel, std::move(bytes)));
  walked.files.clear();
  auto tree = std::make_shared<skill_tree>();
  for (const auto& dir : walked.skill_dirs) {
    tree->skills.push_back(make_skill(walked, dir, by_path, options));
  }
  std::sort(tree->skills.begin(), tree->skills.end(),
            [](const skill_entry& a, const skill_entry& b) { return a.uri < b.uri; });
  for (const auto& [rel, f] : by_path) {
    tree->total_bytes += f->bytes.size();
    tree->files.emplace(f->uri, f);
  }
  add_directories(*tree);
  return tree;
}

json skill_json(const skill_entry& skill) {
  json resources = json::array();
  for (const auto& f : skill.files) {
    resources.push_back({{"uri", f->uri}, {"digest", f->digest}, {"size", f->bytes.size()}});
  }
  return {
      {"uri", skill.uri}, {"frontmatter", skill.frontmatter}, {"resources", std::move(resources)}};
}

}  // namespace mcpcxx::skills
