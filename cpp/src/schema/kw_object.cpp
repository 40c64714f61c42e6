// Object keywords: properties/patternProperties/additionalProperties (one pass), required,
// dependentRequired/dependentSchemas/dependencies, propertyNames, min/maxProperties.
#include <algorithm>

#include "schema/compiler.hpp"
#include "schema/regex.hpp"
#include "schema/uri.hpp"
#include "schema/values.hpp"

namespace mcpcxx::schema::detail {
namespace {

std::string quoted_key(std::string_view key) { return concat({"'", truncate_text(key, 64), "'"}); }

struct pattern_entry {
  std::unique_ptr<ecma_regex> re;
  std::string source;
  const node* schema;
};

class props_kw final : public keyword {
 public:
  props_kw(std::vector<std::pair<std::string, const node*>> props,
           std::vector<pattern_entry> patterns, const node* additional)
      : keyword("properties", t_obj),
        props_(std::move(props)),
        patterns_(std::move(patterns)),
        additional_(additional) {
    std::sort(props_.begin(), props_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    if (patterns_.empty() && additional_ == nullptr) return named_only(c, inst, ann);
    bool ok = true;
    // Instance objects iterate in key order, as props_ is sorted: one merge walk finds the
    // matching property schema for each member.
    auto next = props_.begin();
    for (auto it = inst.begin(); it != inst.end(); ++it) {
      while (next != props_.end() && next->first < it.key()) ++next;
      const bool named = next != props_.end() && next->first == it.key();
      if (!member(c, named ? &*next : nullptr, it.key(), it.value(), ann)) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    return ok;
  }

 private:
  bool apply(eval_ctx& c, std::string_view kw, const std::string* label, const node& n,
             const std::string& key, const json& v) const {
    kw_guard g = label != nullptr ? kw_guard(c, kw, *label) : kw_guard(c, kw);
    if (n.is_bool && !n.bool_value) {
      if (c.collect)
        c.report_named(kw, (kw == "additionalProperties" ? "unexpected property " : "property ") +
                               quoted_key(key) +
                               (kw == "additionalProperties" ? "" : " is not allowed"));
      return false;
    }
    return eval_child(c, n, v, &key, 0);
  }

  bool named_only(eval_ctx& c, const json& inst, annotations* ann) const {
    bool ok = true;
    for (const auto& [name, n] : props_) {
      auto it = inst.find(name);
      if (it == inst.end()) continue;
      if (ann != nullptr) ann->props.push_back(&it.key());
      if (!apply(c, "properties", &name, *n, it.key(), it.value())) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    return ok;
  }

  bool member(eval_ctx& c, const std::pair<std::string, const node*>* found, const std::string& key,
              const json& v, annotations* ann) const {
    bool matched = false;
    bool ok = true;
    if (found != nullptr) {
      matched = true;
      ok = apply(c, "properties", &found->first, *found->second, key, v);
      if (!ok && (!c.collect || c.stop)) return false;
    }
    for (const auto& p : patterns_) {
      const auto r = p.re->search(key);
      if (r == match_result::too_long) {
        c.hit_limit(
            "validation stopped: a property name is too long to match against patternProperties");
        return false;
      }
      if (r != match_result::match) continue;
      matched = true;
      if (!apply(c, "patternProperties", &p.source, *p.schema, key, v)) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    if (!matched && additional_ != nullptr) {
      matched = true;
      ok = apply(c, "additionalProperties", nullptr, *additional_, key, v) && ok;
    }
    if (matched && ann != nullptr) ann->props.push_back(&key);
    return ok;
  }

  std::vector<std::pair<std::string, const node*>> props_;
  std::vector<pattern_entry> patterns_;
  const node* additional_;
};

class required_kw final : public keyword {
 public:
  explicit required_kw(std::vector<std::string> names)
      : keyword("required", t_obj), names_(std::move(names)) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    bool ok = true;
    for (const auto& n : names_) {
      if (inst.contains(n)) continue;
      ok = false;
      if (!c.collect) return false;
      c.report(name(), "missing required property " + quoted_key(n));
    }
    return ok;
  }

 private:
  std::vector<std::string> names_;
};

class dep_required_kw final : public keyword {
 public:
  dep_required_kw(std::string_view kw,
                  std::vector<std::pair<std::string, std::vector<std::string>>> deps)
      : keyword(kw, t_obj), deps_(std::move(deps)) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    bool ok = true;
    for (const auto& [trigger, needed] : deps_) {
      if (!inst.contains(trigger)) continue;
      for (const auto& n : needed) {
        if (inst.contains(n)) continue;
        ok = false;
        if (!c.collect) return false;
        kw_guard g(c, trigger);
        c.report("", "missing property " + quoted_key(n) + " (required when " +
                         quoted_key(trigger) + " is present)");
      }
    }
    return ok;
  }

 private:
  std::vector<std::pair<std::string, std::vector<std::string>>> deps_;
};

class dep_schemas_kw final : public keyword {
 public:
  dep_schemas_kw(std::string_view kw, std::vector<std::pair<std::string, const node*>> deps)
      : keyword(kw, t_obj), deps_(std::move(deps)) {}
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    bool ok = true;
    for (const auto& [trigger, n] : deps_) {
      if (!inst.contains(trigger)) continue;
      kw_guard g(c, name(), trigger);
      if (!eval_node(c, *n, inst, ann)) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    return ok;
  }

 private:
  std::vector<std::pair<std::string, const node*>> deps_;
};

class names_kw final : public keyword {
 public:
  explicit names_kw(const node* n) : keyword("propertyNames", t_obj), node_(n) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    bool ok = true;
    for (auto it = inst.begin(); it != inst.end(); ++it) {
      bool good = false;
      {
        quiet_guard q(c);
        good = eval_node(c, *node_, json(it.key()), nullptr);
      }
      if (c.stop) return false;
      if (good) continue;
      ok = false;
      if (!c.collect) return false;
      c.report(name(), "property name " + quoted_key(it.key()) +
                           " does not match the propertyNames schema");
    }
    return ok;
  }

 private:
  const node* node_;
};

class prop_count_kw final : public keyword {
 public:
  prop_count_kw(std::string_view name, std::size_t n, bool is_max)
      : keyword(name, t_obj), n_(n), max_(is_max) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    const bool ok = max_ ? inst.size() <= n_ : inst.size() >= n_;
    if (!ok && c.collect)
      c.report(name(), std::string("must have at ") + (max_ ? "most " : "least ") +
                           std::to_string(n_) + (n_ == 1 ? " property" : " properties") + ", got " +
                           std::to_string(inst.size()));
    return ok;
  }

 private:
  std::size_t n_;
  bool max_;
};

std::vector<std::string> string_list(build_ctx& b, std::string_view kw, const json& v) {
  if (!v.is_array()) b.fail(kw, concat({"'", kw, "' must be an array of property names"}));
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string()) b.fail(kw, concat({"'", kw, "' must contain only strings"}));
    out.push_back(e.get<std::string>());
  }
  return out;
}

void add_properties(build_ctx& b) {
  std::vector<std::pair<std::string, const node*>> props;
  std::vector<pattern_entry> patterns;
  const node* additional = nullptr;
  if (const json* v = b.get("properties")) {
    if (!v->is_object()) b.fail("properties", "'properties' must be an object of schemas");
    for (const auto& [k, s] : v->items())
      props.emplace_back(k, b.sub(s, concat({"/properties/", pointer_escape(k)})));
  }
  if (const json* v = b.get("patternProperties")) {
    if (!v->is_object())
      b.fail("patternProperties", "'patternProperties' must be an object of schemas");
    for (const auto& [k, s] : v->items()) {
      std::string error;
      auto re = ecma_regex::compile(k, error);
      if (!re)
        b.fail("patternProperties",
               "invalid regular expression " + short_dump(json(k), 80) + ": " + error);
      patterns.push_back(
          {std::move(re), k, b.sub(s, concat({"/patternProperties/", pointer_escape(k)}))});
    }
  }
  if (const json* v = b.get("additionalProperties"))
    additional = b.sub(*v, "/additionalProperties");
  if (!props.empty() || !patterns.empty() || additional != nullptr)
    b.add(std::make_unique<props_kw>(std::move(props), std::move(patterns), additional));
}

void add_dependencies(build_ctx& b, std::string_view kw, bool allow_required, bool allow_schemas) {
  const json* v = b.get(kw);
  if (v == nullptr) return;
  if (!v->is_object()) b.fail(kw, concat({"'", kw, "' must be an object"}));
  std::vector<std::pair<std::string, std::vector<std::string>>> req;
  std::vector<std::pair<std::string, const node*>> schemas;
  for (const auto& [k, d] : v->items()) {
    if (d.is_array() && allow_required) {
      req.emplace_back(k, string_list(b, kw, d));
    } else if ((d.is_object() || d.is_boolean()) && allow_schemas) {
      schemas.emplace_back(k, b.sub(d, concat({"/", kw, "/", pointer_escape(k)})));
    } else {
      b.fail(kw,
             concat({"each entry of '", kw, "' must be ",
                     allow_schemas ? (allow_required ? "an array of names or a schema" : "a schema")
                                   : "an array of names"}));
    }
  }
  if (!req.empty()) b.add(std::make_unique<dep_required_kw>(kw, std::move(req)));
  if (!schemas.empty()) b.add(std::make_unique<dep_schemas_kw>(kw, std::move(schemas)));
}

}  // namespace

void add_object_keywords(build_ctx& b) {
  const bool val = b.dia().validation;
  const bool app = b.dia().applicator;
  if (val) {
    if (const json* v = b.get("maxProperties"))
      b.add(std::make_unique<prop_count_kw>("maxProperties", b.count("maxProperties", *v), true));
    if (const json* v = b.get("minProperties"))
      b.add(std::make_unique<prop_count_kw>("minProperties", b.count("minProperties", *v), false));
    if (const json* v = b.get("required"))
      b.add(std::make_unique<required_kw>(string_list(b, "required", *v)));
  }
  if (app) add_properties(b);
  if (b.dia().version != draft::d7) {
    if (val) add_dependencies(b, "dependentRequired", true, false);
    if (app) add_dependencies(b, "dependentSchemas", false, true);
  }
  if (val || app) add_dependencies(b, "dependencies", val, app);
  if (app) {
    if (const json* v = b.get("propertyNames"))
      b.add(std::make_unique<names_kw>(b.sub(*v, "/propertyNames")));
  }
}

}  // namespace mcpcxx::schema::detail
