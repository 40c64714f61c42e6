// The flat-object fast path: eligibility at compile time and one compact is_valid(), so a valid
// tool call runs no keyword dispatch. It must agree with the general evaluator (eval.cpp,
// kw_core.cpp, kw_object.cpp) on every instance, bounds included; tests/cpp/schema compares both.
#include "schema/flat_object.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schema/ast.hpp"
#include "schema/compiler.hpp"

namespace mcpcxx::schema::detail {
namespace {

// Dialect URIs (after the compiler's normalization) in which type, properties, required and
// additionalProperties are always asserted; a custom meta-schema may turn vocabularies off.
constexpr std::array<std::string_view, 3> kFlatDialects = {
    "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema"};

// Keywords no dialect evaluates: they never change validity.
constexpr std::array<std::string_view, 8> kFlatAnnotations = {
    "title",      "description", "default",   "examples",
    "deprecated", "readOnly",    "writeOnly", "$comment"};

struct flat_property {
  std::string name;
  std::uint8_t mask = 0;  ///< allowed type bits; 0 when the member has no "type"
  bool required = false;
};

struct flat_plan {
  std::uint8_t root_mask = 0;         ///< allowed type bits of the instance; 0 when no "type"
  std::vector<flat_property> props;   ///< sorted by name, as object members iterate
  std::vector<std::string> required;  ///< as written (duplicates included)
  std::size_t required_props = 0;     ///< distinct required names found in props
  std::vector<std::string> required_elsewhere;  ///< required names props does not declare
  bool has_required = false;
  bool has_additional = false;
  bool closed = false;  ///< additionalProperties: false
  std::size_t typed_members = 0;
};

bool flat_known_dialect(std::string uri) {
  uri = normalize_dialect_uri(std::move(uri));
  return std::find(kFlatDialects.begin(), kFlatDialects.end(), uri) != kFlatDialects.end();
}

bool flat_is_annotation(std::string_view key) {
  return std::find(kFlatAnnotations.begin(), kFlatAnnotations.end(), key) != kFlatAnnotations.end();
}

// The mask of a "type" value, or 0 when it is not a well-formed one.
std::uint8_t flat_type_value(const json& v) {
  if (v.is_string()) return type_mask(v.get_ref<const std::string&>());
  if (!v.is_array() || v.empty()) return 0;
  std::uint8_t mask = 0;
  for (const auto& e : v) {
    const std::uint8_t m = e.is_string() ? type_mask(e.get_ref<const std::string&>()) : 0;
    if (m == 0) return 0;
    mask |= m;
  }
  return mask;
}

bool flat_member(const std::string& name, const json& s, flat_plan& plan) {
  if (!s.is_object()) return false;
  flat_property p{name, 0};
  for (const auto& [k, v] : s.items()) {
    if (k == "type") {
      p.mask = flat_type_value(v);
      if (p.mask == 0) return false;
    } else if (!flat_is_annotation(k)) {
      return false;
    }
  }
  if (p.mask != 0) ++plan.typed_members;
  plan.props.push_back(std::move(p));
  return true;
}

bool flat_properties(const json& v, flat_plan& plan) {
  if (!v.is_object()) return false;
  for (const auto& [k, s] : v.items()) {
    if (!flat_member(k, s, plan)) return false;
  }
  return true;
}

bool flat_required(const json& v, flat_plan& plan) {
  if (!v.is_array()) return false;
  for (const auto& e : v) {
    if (!e.is_string()) return false;
    plan.required.push_back(e.get<std::string>());
  }
  plan.has_required = true;
  return true;
}

// Reads one root keyword into `plan`; false when it makes the schema ineligible.
bool flat_root_keyword(std::string_view k, const json& v, flat_plan& plan) {
  if (k == "type") {
    plan.root_mask = flat_type_value(v);
    return plan.root_mask != 0;
  }
  if (k == "properties") return flat_properties(v, plan);
  if (k == "required") return flat_required(v, plan);
  if (k == "additionalProperties") {
    plan.has_additional = true;
    plan.closed = v.is_boolean() && !v.get<bool>();
    return v.is_boolean();
  }
  if (k == "$schema") return v.is_string() && flat_known_dialect(v.get<std::string>());
  return k == "$id" || flat_is_annotation(k);
}

// Whether the general evaluator's bounds can never stop it on this schema: then its answer is
// the plain keyword semantics the fast path computes.
bool flat_bounds_fit(const flat_plan& plan, const limits& b) {
  const bool props_kw = !plan.props.empty() || plan.has_additional;
  const std::size_t steps = (plan.root_mask != 0 ? 1 : 0) + (plan.has_required ? 1 : 0) +
                            (props_kw ? 1 : 0) + plan.typed_members;
  // Root node at evaluation depth 1, member nodes at depth 2 and instance depth 1.
  return steps <= b.max_validation_steps && max_eval_depth(b) >= 2 && b.max_instance_depth >= 1;
}

// Marks required properties in the sorted props so one walk over the instance checks them.
void flat_index_required(flat_plan& plan) {
  std::sort(plan.props.begin(), plan.props.end(),
            [](const flat_property& a, const flat_property& b) { return a.name < b.name; });
  for (const auto& name : plan.required) {
    auto it =
        std::lower_bound(plan.props.begin(), plan.props.end(), name,
                         [](const flat_property& p, const std::string& n) { return p.name < n; });
    if (it == plan.props.end() || it->name != name) {
      plan.required_elsewhere.push_back(name);
    } else if (!it->required) {
      it->required = true;
      ++plan.required_props;
    }
  }
}

bool flat_plan_for(const json& schema, const compile_options& opts, flat_plan& plan) {
  if (!schema.is_object()) return false;
  if (!schema.contains("$schema") && !flat_known_dialect(opts.default_dialect)) return false;
  for (const auto& [k, v] : schema.items()) {
    if (!flat_root_keyword(k, v, plan)) return false;
  }
  flat_index_required(plan);
  return flat_bounds_fit(plan, opts.bounds);
}

bool flat_type_ok(std::uint8_t mask, const json& v) noexcept {
  return mask == 0 || (type_bits(v) & mask) != 0;
}

class flat_object_validator final : public compiled_schema {
 public:
  flat_object_validator(flat_plan plan, std::shared_ptr<const compiled_schema> general)
      : plan_(std::move(plan)), general_(std::move(general)) {}

  validation_result validate(const json& instance) const override {
    // Same answer as the general validator, whose validate() also starts with a quiet pass.
    if (is_valid(instance)) return {};
    return general_->validate(instance);
  }

  bool is_valid(const json& instance) const override {
    const std::uint8_t tb = type_bits(instance);
    if (plan_.root_mask != 0 && (tb & plan_.root_mask) == 0) return false;
    if (tb != t_obj) return true;
    for (const auto& name : plan_.required_elsewhere) {
      if (!instance.contains(name)) return false;
    }
    return members_ok(instance);
  }

 private:
  // Object members and props are both sorted by name: one merge walk checks the types, the
  // unknown names and counts the required properties present.
  bool members_ok(const json& instance) const {
    std::size_t required_seen = 0;
    auto p = plan_.props.begin();
    const auto end = plan_.props.end();
    for (auto it = instance.begin(); it != instance.end(); ++it) {
      int cmp = 1;
      while (p != end && (cmp = p->name.compare(it.key())) < 0) ++p;
      if (p == end || cmp != 0) {
        if (plan_.closed) return false;
        continue;
      }
      if (!flat_type_ok(p->mask, it.value())) return false;
      if (p->required) ++required_seen;
      ++p;
    }
    return required_seen == plan_.required_props;
  }

  flat_plan plan_;
  std::shared_ptr<const compiled_schema> general_;
};

}  // namespace

std::shared_ptr<const compiled_schema> make_flat_object(
    const json& schema, const compile_options& opts,
    std::shared_ptr<const compiled_schema> general) {
  flat_plan plan;
  if (general == nullptr || !flat_plan_for(schema, opts, plan)) return nullptr;
  return std::make_shared<flat_object_validator>(std::move(plan), std::move(general));
}

bool is_flat_object(const compiled_schema& s) noexcept {
  return dynamic_cast<const flat_object_validator*>(&s) != nullptr;
}

}  // namespace mcpcxx::schema::detail
