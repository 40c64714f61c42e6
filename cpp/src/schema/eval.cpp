// Node evaluation: keyword dispatch, bounds, dynamic scope and violation recording.
#include <cmath>
#include <optional>

#include "schema/ast.hpp"
#include "schema/uri.hpp"

namespace mcpcxx::schema::detail {

const char* type_name(const json& v) noexcept {
  switch (type_bits(v)) {
    case t_null:
      return "null";
    case t_bool:
      return "boolean";
    case t_int:
      return "integer";
    case t_frac:
      return "number";
    case t_str:
      return "string";
    case t_arr:
      return "array";
    case t_obj:
      return "object";
    default:
      return "binary";
  }
}

const node* resource::find_dynamic(std::string_view name) const noexcept {
  for (const auto& [anchor, target] : dynamic_anchors) {
    if (anchor == name) return target;
  }
  return nullptr;
}

void annotations::merge(const annotations& o) {
  props.insert(props.end(), o.props.begin(), o.props.end());
  all_props = all_props || o.all_props;
  prefix = std::max(prefix, o.prefix);
  all_items = all_items || o.all_items;
  contained.insert(contained.end(), o.contained.begin(), o.contained.end());
}

std::string eval_ctx::instance_pointer() const {
  std::string p;
  for (const auto& seg : ipath) {
    if (seg.key != nullptr) {
      pointer_append(p, *seg.key);
    } else {
      p += '/';
      p += std::to_string(seg.index);
    }
  }
  return p;
}

void eval_ctx::report(std::string_view keyword, std::string message) {
  if (out == nullptr || stop) return;
  if (out->violations.size() >= bounds->max_violations) {
    stop = true;
    return;
  }
  violation v;
  v.instance_location = instance_pointer();
  for (auto seg : kpath) pointer_append(v.keyword_location, seg);
  if (!keyword.empty()) pointer_append(v.keyword_location, keyword);
  v.keyword = std::string(keyword);
  v.message = std::move(message);
  out->violations.push_back(std::move(v));
}

void eval_ctx::report_named(std::string_view keyword, std::string message) {
  const std::size_t before = out != nullptr ? out->violations.size() : 0;
  report("", std::move(message));
  if (out != nullptr && out->violations.size() > before) out->violations.back().keyword = keyword;
}

void eval_ctx::hit_limit(std::string message) {
  if (stop) return;
  if (out != nullptr) {
    out->limit_exceeded = true;
    violation v;
    v.instance_location = instance_pointer();
    for (auto seg : kpath) pointer_append(v.keyword_location, seg);
    v.keyword = "limits";
    v.message = std::move(message);
    out->violations.push_back(std::move(v));
  }
  stop = true;
}

bool eval_child(eval_ctx& c, const node& child, const json& inst, const std::string* key,
                std::size_t index) {
  inst_guard g(c, key, index);
  if (c.inst_depth > c.bounds->max_instance_depth) {
    c.hit_limit("validation stopped: the value is nested deeper than " +
                std::to_string(c.bounds->max_instance_depth) +
                " levels (limits.max_instance_depth); send a flatter value");
    return false;
  }
  return eval_node(c, child, inst, nullptr);
}

namespace {

class scope_guard {
 public:
  scope_guard(eval_ctx& c, const resource* r) : c_(c) {
    pushed_ = c.dynamic && r != nullptr && (c.scope.empty() || c.scope.back() != r);
    if (pushed_) c_.scope.push_back(r);
    ++c_.depth;
  }
  ~scope_guard() {
    if (pushed_) c_.scope.pop_back();
    --c_.depth;
  }
  scope_guard(const scope_guard&) = delete;
  scope_guard& operator=(const scope_guard&) = delete;

 private:
  eval_ctx& c_;
  bool pushed_ = false;
};

}  // namespace

bool eval_node(eval_ctx& c, const node& n, const json& inst, annotations* ann) {
  if (c.stop) return false;
  if (n.is_bool) {
    if (!n.bool_value && c.collect) c.report("", "no value is allowed here (the schema is false)");
    return n.bool_value;
  }
  scope_guard sg(c, n.res);
  if (c.depth > c.max_depth) {
    c.hit_limit("validation stopped: schema references nest deeper than " +
                std::to_string(c.max_depth) + " evaluations; the schema is likely cyclic");
    return false;
  }
  std::optional<annotations> local;
  annotations* use = ann;
  if (n.tracks) use = &local.emplace();
  const std::uint8_t tb = type_bits(inst);
  bool ok = true;
  for (const auto& kw : n.keywords) {
    if ((kw->types() & tb) == 0) continue;
    if (++c.steps > c.bounds->max_validation_steps) {
      c.hit_limit("validation stopped after " + std::to_string(c.bounds->max_validation_steps) +
                  " keyword evaluations (limits.max_validation_steps)");
      return false;
    }
    if (!kw->eval(c, inst, use)) {
      ok = false;
      if (!c.collect || c.stop) break;
    }
  }
  if (ok && n.tracks && ann != nullptr) ann->merge(*local);
  return ok && !c.stop;
}

}  // namespace mcpcxx::schema::detail
