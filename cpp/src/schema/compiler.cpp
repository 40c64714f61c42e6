// Compilation driver: dialect detection, resource indexing ($id, $anchor, $dynamicAnchor),
// $ref resolution against the document set and the registry, and the node work list.
#include "schema/compiler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "schema/uri.hpp"

namespace mcpcxx::schema::detail {
namespace {

constexpr std::string_view k2020 = "https://json-schema.org/draft/2020-12/schema";
constexpr std::string_view k2019 = "https://json-schema.org/draft/2019-09/schema";
constexpr std::string_view k7 = "http://json-schema.org/draft-07/schema";

std::string anchor_key(const std::string& base, std::string_view name) {
  return strip_fragment(base) + "#" + std::string(name);
}

constexpr std::array<const char*, 11> kSingle = {"additionalProperties",
                                                 "propertyNames",
                                                 "not",
                                                 "if",
                                                 "then",
                                                 "else",
                                                 "contains",
                                                 "additionalItems",
                                                 "unevaluatedItems",
                                                 "unevaluatedProperties",
                                                 "contentSchema"};
constexpr std::array<const char*, 6> kMaps = {"properties",  "patternProperties", "$defs",
                                              "definitions", "dependentSchemas",  "dependencies"};
constexpr std::array<const char*, 4> kArrays = {"allOf", "anyOf", "oneOf", "prefixItems"};

bool ends_with_name(const std::string& uri, std::string_view name) {
  return uri.size() > name.size() &&
         uri.compare(uri.size() - name.size(), name.size(), name) == 0 &&
         uri[uri.size() - name.size() - 1] == '/';
}

// Sets the vocabulary flags of `d` from a meta-schema's $vocabulary; returns the first required
// vocabulary this validator does not know, or "".
std::string apply_vocabulary(dialect& d, const json& vocab, bool assert_formats) {
  static constexpr std::array<std::string_view, 9> known = {
      "core",   "applicator",        "unevaluated",      "validation", "meta-data",
      "format", "format-annotation", "format-assertion", "content"};
  std::string unsupported;
  auto has = [&](std::string_view name) {
    for (const auto& [k, v] : vocab.items()) {
      if (ends_with_name(k, name)) return true;
    }
    return false;
  };
  for (const auto& [k, v] : vocab.items()) {
    const std::string& key = k;  // clang < 16 cannot capture a structured binding in a lambda
    const bool ok = k.rfind("https://json-schema.org/draft/", 0) == 0 &&
                    std::any_of(known.begin(), known.end(),
                                [&](std::string_view n) { return ends_with_name(key, n); });
    if (!ok && v.is_boolean() && v.get<bool>() && unsupported.empty()) unsupported = k;
  }
  d.applicator = has("applicator");
  d.validation = has("validation");
  d.unevaluated = has("unevaluated") || (d.version == draft::d2019 && d.applicator);
  d.format_assert = has("format-assertion") || assert_formats;
  return unsupported;
}

}  // namespace

std::string normalize_dialect_uri(std::string uri) {
  if (!uri.empty() && uri.back() == '#') uri.pop_back();
  if (uri.rfind("https://json-schema.org/draft-07/", 0) == 0) uri.erase(4, 1);
  return uri;
}

compiler::compiler(const compile_options& opts) : opts_(opts) {}

void compiler::fail(const location& at, std::string_view kw, std::string_view problem) const {
  std::string where = at.pointer;
  if (!kw.empty()) pointer_append(where, kw);
  throw schema_error("invalid schema at '" + where + "': " + std::string(problem));
}

const dialect* compiler::dialect_for(const std::string& raw, const location* at) {
  const std::string uri = normalize_dialect_uri(raw);
  if (auto it = dialect_cache_.find(uri); it != dialect_cache_.end()) {
    if (it->second == nullptr && at != nullptr)
      fail(*at, "$schema", "meta-schema '" + raw + "' refers to itself");
    return it->second;
  }
  dialect d;
  d.format_assert = opts_.assert_formats;
  if (uri == k2020 || uri == k2019 || uri == k7) {
    d.version = uri == k2020 ? draft::d2020 : uri == k2019 ? draft::d2019 : draft::d7;
    d.content_assert = d.version == draft::d7;
    d.unevaluated = d.version != draft::d7;
  } else {
    auto doc = opts_.registry.find(uri);
    if (doc == opts_.registry.end()) doc = opts_.registry.find(uri + "#");
    std::string problem = "unknown $schema '" + raw +
                          "'; use \"https://json-schema.org/draft/2020-12/schema\" or "
                          "\"http://json-schema.org/draft-07/schema#\", or preload the meta-schema "
                          "into compile_options.registry";
    if (doc == opts_.registry.end() || !doc->second.is_object()) {
      if (at == nullptr) throw schema_error("compile_options.default_dialect: " + problem);
      fail(*at, "$schema", problem);
    }
    dialect_cache_[uri] = nullptr;  // cycle guard while the meta-schema's own $schema resolves
    const dialect* base = &parts_.dialects.emplace_back();
    auto own = doc->second.find("$schema");
    if (own != doc->second.end() && own->is_string())
      base = dialect_for(own->get<std::string>(), at);
    d = *base;
    auto vocab = doc->second.find("$vocabulary");
    if (vocab != doc->second.end() && vocab->is_object()) {
      const std::string unsupported = apply_vocabulary(d, *vocab, opts_.assert_formats);
      if (!unsupported.empty() && at != nullptr)
        fail(*at, "$schema",
             "meta-schema '" + raw + "' requires unsupported vocabulary '" + unsupported + "'");
    }
  }
  const dialect* out = &parts_.dialects.emplace_back(d);
  dialect_cache_[uri] = out;
  return out;
}

const dialect* compiler::root_dialect(const json& doc, const dialect* fallback,
                                      const location* at) {
  if (!doc.is_object()) return fallback;
  auto it = doc.find("$schema");
  if (it == doc.end()) return fallback;
  if (!it->is_string()) {
    if (at != nullptr) fail(*at, "$schema", "$schema must be a URI string");
    throw schema_error("invalid schema at '#/$schema': $schema must be a URI string");
  }
  return dialect_for(it->get<std::string>(), at);
}

void compiler::index(const json& s, const location& parent, std::size_t depth) {
  if (depth > opts_.bounds.max_schema_depth)
    fail(parent, "",
         "subschemas nest deeper than " + std::to_string(opts_.bounds.max_schema_depth) +
             " levels (limits.max_schema_depth); flatten the schema using $defs");
  if (locs_.count(&s) != 0) return;
  location here = parent;
  if (!s.is_object()) {
    locs_.emplace(&s, here);
    return;
  }
  auto id = s.find("$id");
  const bool has_id = id != s.end() && id->is_string();
  if (has_id || depth == 0) here.dia = root_dialect(s, here.dia, &here);
  const bool d7 = here.dia->version == draft::d7;
  const bool ref_overrides = d7 && s.contains("$ref");
  bool new_resource = depth == 0;
  if (has_id && !ref_overrides) {
    const std::string idv = id->get<std::string>();
    if (d7 && !idv.empty() && idv[0] == '#') {
      by_uri_.emplace(anchor_key(here.base, idv.substr(1)), &s);
    } else {
      const std::string abs = resolve_uri(here.base, idv);
      const std::string frag = fragment_of(abs);
      here.base = strip_fragment(abs);
      new_resource = true;
      if (d7 && !frag.empty() && frag[0] != '/') by_uri_.emplace(anchor_key(here.base, frag), &s);
    }
  }
  if (new_resource) {
    auto& r = parts_.resources.emplace_back(std::make_unique<resource>());
    r->uri = here.base;
    here.res = r.get();
    by_uri_.emplace(here.base, &s);
  }
  if (!d7) {
    auto anchor = s.find("$anchor");
    if (anchor != s.end() && anchor->is_string())
      by_uri_.emplace(anchor_key(here.base, anchor->get<std::string>()), &s);
    auto dyn = s.find("$dynamicAnchor");
    if (dyn != s.end() && dyn->is_string() && here.dia->version == draft::d2020) {
      by_uri_.emplace(anchor_key(here.base, dyn->get<std::string>()), &s);
      dyn_anchors_.push_back({here.res, {dyn->get<std::string>(), &s}});
    }
  }
  locs_.emplace(&s, here);
  index_children(s, here, depth);
}

void compiler::index_children(const json& s, const location& here, std::size_t depth) {
  auto child = [&](const json& c, std::string_view kw, std::string_view key, bool keyed) {
    location l = here;
    pointer_append(l.pointer, kw);
    if (keyed) pointer_append(l.pointer, key);
    index(c, l, depth + 1);
  };
  for (const char* kw : kSingle) {
    if (auto it = s.find(kw); it != s.end()) child(*it, kw, {}, false);
  }
  for (const char* kw : kMaps) {
    auto it = s.find(kw);
    if (it == s.end() || !it->is_object()) continue;
    for (const auto& [k, v] : it->items()) {
      if (v.is_object() || v.is_boolean()) child(v, kw, k, true);
    }
  }
  auto items = s.find("items");
  if (items != s.end() && !items->is_array()) child(*items, "items", {}, false);
  for (const char* kw : kArrays) {
    auto it = s.find(kw);
    if (it == s.end() || !it->is_array()) continue;
    for (std::size_t i = 0; i < it->size(); ++i) child((*it)[i], kw, std::to_string(i), true);
  }
  if (items != s.end() && items->is_array()) {
    for (std::size_t i = 0; i < items->size(); ++i)
      child((*items)[i], "items", std::to_string(i), true);
  }
}

const json* compiler::load_document(const std::string& uri, const location& at) {
  if (auto it = by_uri_.find(uri); it != by_uri_.end()) return it->second;
  auto doc = opts_.registry.find(uri);
  if (doc == opts_.registry.end()) doc = opts_.registry.find(uri + "#");
  if (doc == opts_.registry.end()) return nullptr;
  location l{uri, root_dialect(doc->second, at.dia, &at), nullptr, uri + "#"};
  index(doc->second, l, 0);
  by_uri_.emplace(uri, &doc->second);
  return &doc->second;
}

std::pair<const json*, const location*> compiler::resolve(const location& at,
                                                          std::string_view ref) {
  const std::string abs = resolve_uri(at.base, ref);
  const std::string doc_uri = strip_fragment(abs);
  const std::string frag = fragment_of(abs);
  const json* root = load_document(doc_uri, at);
  if (root == nullptr) {
    fail(
        at, "$ref",
        "cannot resolve '" + std::string(ref) + "': '" + doc_uri +
            "' is neither in this schema nor in compile_options.registry (remote schemas are never "
            "fetched; inline it under $defs or preload it into the registry)");
  }
  if (!frag.empty() && frag[0] != '/') {
    auto it = by_uri_.find(anchor_key(doc_uri, frag));
    if (it == by_uri_.end())
      fail(at, "$ref",
           "cannot resolve '" + std::string(ref) + "': no $anchor or $id named '" + frag + "'");
    return {it->second, &locs_.at(it->second)};
  }
  std::vector<std::string> tokens;
  if (!pointer_split(frag, tokens))
    fail(at, "$ref", "'" + std::string(ref) + "' has a malformed JSON pointer fragment");
  const json* cur = root;
  const location* cur_loc = &locs_.at(root);
  for (const auto& tok : tokens) {
    const json* next = nullptr;
    if (cur->is_object()) {
      auto it = cur->find(tok);
      if (it != cur->end()) next = &*it;
    } else if (cur->is_array() && !tok.empty() &&
               std::all_of(tok.begin(), tok.end(),
                           [](char ch) { return ch >= '0' && ch <= '9'; }) &&
               tok.size() < 10 && std::stoul(tok) < cur->size()) {
      next = &(*cur)[std::stoul(tok)];
    }
    if (next == nullptr)
      fail(at, "$ref", "cannot resolve '" + std::string(ref) + "': '" + frag + "' does not exist");
    cur = next;
    if (auto it = locs_.find(cur); it != locs_.end()) cur_loc = &it->second;
  }
  auto [it, inserted] = locs_.emplace(cur, *cur_loc);
  if (inserted) it->second.pointer = doc_uri + "#" + frag;
  return {cur, &it->second};
}

const node* compiler::node_for(const json& j, const location& parent, std::string_view path) {
  if (auto it = nodes_.find(&j); it != nodes_.end()) return it->second;
  if (parts_.nodes.size() >= opts_.bounds.max_subschemas)
    fail(parent, "",
         "more than " + std::to_string(opts_.bounds.max_subschemas) +
             " subschemas (limits.max_subschemas); simplify the schema");
  node* raw = parts_.nodes.emplace_back(std::make_unique<node>()).get();
  nodes_.emplace(&j, raw);
  if (locs_.count(&j) == 0) {
    location l = parent;
    l.pointer += path;
    locs_.emplace(&j, l);
  }
  pending_.emplace_back(raw, &j);
  return raw;
}

void compiler::compile_one(node& n, const json& j, const location& at) {
  if (j.is_boolean()) {
    n.is_bool = true;
    n.bool_value = j.get<bool>();
    return;
  }
  if (!j.is_object())
    fail(at, "", std::string("a schema must be an object or a boolean, got ") + type_name(j));
  n.res = at.res;
  build_ctx b{*this, j, at, n};
  add_core_keywords(b);
  if (at.dia->version == draft::d7 && j.contains("$ref")) return;
  add_scalar_keywords(b);
  add_array_keywords(b);
  add_object_keywords(b);
  add_applicator_keywords(b);
  add_unevaluated_keywords(b);
}

void compiler::compile_pending() {
  while (!pending_.empty()) {
    auto [n, j] = pending_.front();
    pending_.pop_front();
    compile_one(*n, *j, locs_.at(j));
  }
}

compiled_parts compiler::run(const json& schema) {
  const dialect* fallback = dialect_for(opts_.default_dialect, nullptr);
  location root{"", fallback, nullptr, "#"};
  index(schema, root, 0);
  parts_.root = node_for(schema, locs_.at(&schema), "");
  compile_pending();
  for (std::size_t i = 0; i < dyn_anchors_.size(); ++i) {
    auto [res, anchor] = dyn_anchors_[i];
    const node* target = node_for(*anchor.second, locs_.at(anchor.second), "");
    if (res != nullptr && res->find_dynamic(anchor.first) == nullptr)
      res->dynamic_anchors.emplace_back(anchor.first, target);
    compile_pending();
  }
  return std::move(parts_);
}

const json* build_ctx::get(std::string_view kw) const {
  auto it = obj.find(kw);
  return it == obj.end() ? nullptr : &*it;
}

const node* build_ctx::sub(const json& child, std::string_view path) {
  return comp.node_for(child, at, path);
}

void build_ctx::fail(std::string_view kw, std::string_view problem) const {
  comp.fail(at, kw, problem);
}

std::size_t build_ctx::count(std::string_view kw, const json& v) const {
  if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0))
    return v.get<std::size_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^64: converting a double at or past it to std::size_t is undefined behaviour.
    constexpr double k_past_size_t = 18446744073709551616.0;
    if (d >= 0 && std::floor(d) == d) {
      return d >= k_past_size_t ? std::numeric_limits<std::size_t>::max()
                                : static_cast<std::size_t>(d);
    }
  }
  fail(kw, "'" + std::string(kw) + "' must be a non-negative integer");
}

void check_value_depth(const json& v, std::size_t limit, const build_ctx& b, std::string_view kw) {
  std::vector<std::pair<const json*, std::size_t>> stack{{&v, 0}};
  while (!stack.empty()) {
    auto [cur, d] = stack.back();
    stack.pop_back();
    if (d > limit)
      b.fail(kw, "value nests deeper than " + std::to_string(limit) +
                     " levels (limits.max_instance_depth)");
    if (cur->is_structured()) {
      for (const auto& child : *cur) stack.emplace_back(&child, d + 1);
    }
  }
}

}  // namespace mcpcxx::schema::detail
