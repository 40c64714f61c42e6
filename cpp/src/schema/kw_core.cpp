// Core and type keywords: $ref, $dynamicRef, type, enum, const.
#include <algorithm>

#include "schema/compiler.hpp"
#include "schema/uri.hpp"
#include "schema/values.hpp"

namespace mcpcxx::schema::detail {
namespace {

class ref_kw final : public keyword {
 public:
  ref_kw(std::string_view name, const node* target) : keyword(name, t_any), target_(target) {}
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    kw_guard g(c, name());
    return eval_node(c, *target_, inst, ann);
  }

 private:
  const node* target_;
};

class dynamic_ref_kw final : public keyword {
 public:
  dynamic_ref_kw(const node* initial, std::string anchor)
      : keyword("$dynamicRef", t_any), initial_(initial), anchor_(std::move(anchor)) {}
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    const node* target = initial_;
    if (!anchor_.empty()) {
      for (const resource* r : c.scope) {
        if (const node* n = r->find_dynamic(anchor_)) {
          target = n;
          break;
        }
      }
    }
    kw_guard g(c, name());
    return eval_node(c, *target, inst, ann);
  }

 private:
  const node* initial_;
  std::string anchor_;  ///< empty: behaves like $ref (no matching $dynamicAnchor at the target)
};

std::string_view with_article(std::string_view t) {
  if (t == "integer") return "an integer";
  if (t == "object") return "an object";
  if (t == "array") return "an array";
  if (t == "string") return "a string";
  if (t == "number") return "a number";
  if (t == "boolean") return "a boolean";
  return t;
}

class type_kw final : public keyword {
 public:
  type_kw(std::uint8_t mask, std::string expected)
      : keyword("type", t_any), mask_(mask), expected_(std::move(expected)) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    if ((type_bits(inst) & mask_) != 0) return true;
    if (c.collect) c.report(name(), "must be " + expected_ + ", got " + type_name(inst));
    return false;
  }

 private:
  std::uint8_t mask_;
  std::string expected_;
};

void add_type(build_ctx& b, const json& v) {
  std::vector<std::string> names;
  if (v.is_string()) {
    names.push_back(v.get<std::string>());
  } else if (v.is_array() && !v.empty() &&
             std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); })) {
    for (const auto& e : v) names.push_back(e.get<std::string>());
  } else {
    b.fail("type", "'type' must be a type name or a non-empty array of type names");
  }
  std::uint8_t mask = 0;
  for (const auto& n : names) {
    const std::uint8_t m = type_mask(n);
    if (m == 0)
      b.fail("type", "unknown type '" + truncate_text(n) +
                         "'; use null, boolean, integer, number, string, array or object");
    mask |= m;
  }
  std::string expected;
  if (names.size() == 1) {
    expected = with_article(names[0]);
  } else if (names.size() == 2) {
    expected = std::string(with_article(names[0])) + " or " + std::string(with_article(names[1]));
  } else {
    expected = "one of";
    for (std::size_t i = 0; i < names.size(); ++i) expected += (i ? ", " : " ") + names[i];
  }
  b.add(std::make_unique<type_kw>(mask, std::move(expected)));
}

bool value_equal(eval_ctx& c, const json& a, const json& b) {
  if (!a.is_structured() && !b.is_structured()) {
    if (a.is_number() && b.is_number()) return compare_numbers(a, b) == 0;
    return a == b;
  }
  auto r = json_equal(a, b, c.bounds->max_instance_depth);
  if (r == eq_result::too_deep)
    c.hit_limit("validation stopped: value nested too deep to compare (limits.max_instance_depth)");
  return r == eq_result::equal;
}

class const_kw final : public keyword {
 public:
  explicit const_kw(json v)
      : keyword("const", t_any),
        value_(std::move(v)),
        msg_("must be equal to " + short_dump(value_)) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    if (value_equal(c, inst, value_)) return true;
    if (c.collect) c.report(name(), msg_);
    return false;
  }

 private:
  json value_;
  std::string msg_;
};

class enum_kw final : public keyword {
 public:
  explicit enum_kw(const json& values)
      : keyword("enum", t_any), values_(values.begin(), values.end()) {
    msg_ = "must be one of [";
    std::size_t listed = 0;
    for (const auto& v : values_) {
      if (listed == 8 || msg_.size() > 100) break;
      msg_ += (listed ? ", " : "") + short_dump(v, 40);
      ++listed;
    }
    if (listed < values_.size())
      msg_ += ", ... " + std::to_string(values_.size() - listed) + " more";
    msg_ += "]";
  }
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    for (const auto& v : values_) {
      if (value_equal(c, inst, v)) return true;
      if (c.stop) return false;
    }
    if (c.collect) c.report(name(), msg_);
    return false;
  }

 private:
  std::vector<json> values_;
  std::string msg_;
};

void add_ref(build_ctx& b, std::string_view kw, const json& v) {
  if (!v.is_string()) b.fail(kw, std::string(kw) + " must be a URI-reference string");
  auto [target, loc] = b.comp.resolve(b.at, v.get<std::string>());
  b.add(std::make_unique<ref_kw>(kw, b.comp.node_for(*target, *loc, "")));
}

void add_dynamic_ref(build_ctx& b, const json& v) {
  if (!v.is_string()) b.fail("$dynamicRef", "$dynamicRef must be a URI-reference string");
  const std::string ref = v.get<std::string>();
  auto [target, loc] = b.comp.resolve(b.at, ref);
  const std::string frag = fragment_of(resolve_uri(b.at.base, ref));
  std::string anchor;
  if (!frag.empty() && frag[0] != '/' && target->is_object()) {
    auto it = target->find("$dynamicAnchor");
    if (it != target->end() && it->is_string() && it->get<std::string>() == frag) anchor = frag;
  }
  b.comp.uses_dynamic();
  b.add(std::make_unique<dynamic_ref_kw>(b.comp.node_for(*target, *loc, ""), std::move(anchor)));
}

}  // namespace

void add_core_keywords(build_ctx& b) {
  const bool d7 = b.dia().version == draft::d7;
  if (const json* v = b.get("$ref")) add_ref(b, "$ref", *v);
  if (d7 && b.get("$ref") != nullptr) return;
  if (b.dia().version == draft::d2020) {
    if (const json* v = b.get("$dynamicRef")) add_dynamic_ref(b, *v);
  }
  if (b.dia().version == draft::d2019) {
    if (const json* v = b.get("$recursiveRef")) add_ref(b, "$recursiveRef", *v);
  }
  if (!b.dia().validation) return;
  if (const json* v = b.get("type")) add_type(b, *v);
  if (const json* v = b.get("const")) {
    check_value_depth(*v, b.comp.options().bounds.max_instance_depth, b, "const");
    b.add(std::make_unique<const_kw>(*v));
  }
  if (const json* v = b.get("enum")) {
    if (!v->is_array()) b.fail("enum", "'enum' must be an array of allowed values");
    check_value_depth(*v, b.comp.options().bounds.max_instance_depth + 1, b, "enum");
    b.add(std::make_unique<enum_kw>(*v));
  }
}

}  // namespace mcpcxx::schema::detail
