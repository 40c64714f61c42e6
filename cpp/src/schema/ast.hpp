// The compiled keyword tree and the evaluation context shared by all keyword validators.
// A node is immutable after compilation; all per-validation state lives in eval_ctx.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mcpcxx/json_schema.hpp"

namespace mcpcxx::schema::detail {

/// JSON type bits; an integral number (1, 1.0) is t_int, any other number t_frac.
enum type_bit : std::uint8_t {
  t_null = 1,
  t_bool = 2,
  t_int = 4,
  t_frac = 8,
  t_str = 16,
  t_arr = 32,
  t_obj = 64,
};
inline constexpr std::uint8_t t_number = t_int | t_frac;
inline constexpr std::uint8_t t_any = 127;

/// The type bits a JSON Schema type name stands for ("number" is t_int | t_frac); 0 for an
/// unknown name.
inline std::uint8_t type_mask(std::string_view name) noexcept {
  if (name == "null") return t_null;
  if (name == "boolean") return t_bool;
  if (name == "integer") return t_int;
  if (name == "number") return t_number;
  if (name == "string") return t_str;
  if (name == "array") return t_arr;
  if (name == "object") return t_obj;
  return 0;
}

/// The type bit of `v`. Inline: every type check of the evaluator and of the flat-object path
/// (flat_object.hpp) asks it.
inline std::uint8_t type_bits(const json& v) noexcept {
  switch (v.type()) {
    case json::value_t::null:
      return t_null;
    case json::value_t::boolean:
      return t_bool;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return t_int;
    case json::value_t::number_float: {
      const double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d ? t_int : t_frac;
    }
    case json::value_t::string:
      return t_str;
    case json::value_t::array:
      return t_arr;
    case json::value_t::object:
      return t_obj;
    default:
      return 0;
  }
}

/// "integer", "number", "string", ... as JSON Schema names the type of `v`.
const char* type_name(const json& v) noexcept;

struct node;

/// One schema resource (a document root or a subschema with $id), used for $dynamicRef scope.
struct resource {
  std::string uri;
  std::vector<std::pair<std::string, const node*>> dynamic_anchors;
  /// The node carrying `$dynamicAnchor: name` in this resource, or nullptr.
  const node* find_dynamic(std::string_view name) const noexcept;
};

/// Evaluated locations collected for unevaluatedProperties / unevaluatedItems.
struct annotations {
  std::vector<const std::string*> props;  ///< keys of the instance object evaluated
  bool all_props = false;
  std::size_t prefix = 0;  ///< items [0, prefix) evaluated
  bool all_items = false;
  std::vector<std::size_t> contained;  ///< indices matched by contains
  /// Adds everything `o` evaluated.
  void merge(const annotations& o);
};

/// One step of the instance location.
struct inst_seg {
  const std::string* key;  ///< nullptr for an array index
  std::size_t index;
};

/// Per-call evaluation state.
struct eval_ctx {
  const limits* bounds = nullptr;
  bool collect = false;  ///< validate(): record violations and maintain locations
  validation_result* out = nullptr;
  bool stop = false;     ///< a bound or the violation cap was hit; unwind
  bool dynamic = false;  ///< the schema uses $dynamicRef: maintain the dynamic scope
  std::size_t steps = 0;
  std::size_t depth = 0;       ///< nesting of node evaluations
  std::size_t max_depth = 0;   ///< bound on `depth`
  std::size_t inst_depth = 0;  ///< nesting of the instance location
  std::vector<inst_seg> ipath;
  std::vector<std::string_view> kpath;
  std::vector<const resource*> scope;

  /// Records a violation of `keyword` at the current locations (collect mode only).
  void report(std::string_view keyword, std::string message);
  /// Like report(""), for a location that already ends at the keyword: names it `keyword`.
  void report_named(std::string_view keyword, std::string message);
  /// Marks a bound as exceeded; the instance is then invalid.
  void hit_limit(std::string message);
  /// The current instance location as a JSON pointer.
  std::string instance_pointer() const;
};

/// A compiled keyword; eval() returns whether the instance satisfies it.
class keyword {
 public:
  keyword(std::string_view name, std::uint8_t types) : name_(name), types_(types) {}
  virtual ~keyword() = default;
  keyword(const keyword&) = delete;
  keyword& operator=(const keyword&) = delete;
  /// Checks `inst`; records evaluated locations into `ann` when it is not null.
  virtual bool eval(eval_ctx& c, const json& inst, annotations* ann) const = 0;
  /// The keyword's name, e.g. "maximum".
  std::string_view name() const noexcept { return name_; }
  /// Instance types this keyword applies to; others pass without evaluation.
  std::uint8_t types() const noexcept { return types_; }

 private:
  std::string_view name_;
  std::uint8_t types_;
};

/// A compiled (sub)schema.
struct node {
  bool is_bool = false;
  bool bool_value = true;
  bool tracks = false;  ///< has unevaluated*: collects annotations from its keywords
  const resource* res = nullptr;
  std::vector<std::unique_ptr<keyword>> keywords;
};

/// Evaluates `n` against `inst`; see keyword::eval for `ann`.
bool eval_node(eval_ctx& c, const node& n, const json& inst, annotations* ann);

/// Pushes keyword-location segments for the lifetime of the guard (collect mode only).
class kw_guard {
 public:
  kw_guard(eval_ctx& c, std::string_view a) : c_(c), n_(c.collect ? 1 : 0) {
    if (n_) c_.kpath.push_back(a);
  }
  kw_guard(eval_ctx& c, std::string_view a, std::string_view b) : c_(c), n_(c.collect ? 2 : 0) {
    if (n_) {
      c_.kpath.push_back(a);
      c_.kpath.push_back(b);
    }
  }
  ~kw_guard() {
    if (n_ != 0) c_.kpath.resize(c_.kpath.size() - n_);
  }
  kw_guard(const kw_guard&) = delete;
  kw_guard& operator=(const kw_guard&) = delete;

 private:
  eval_ctx& c_;
  std::size_t n_;
};

/// Descends into a child of the instance for the lifetime of the guard.
class inst_guard {
 public:
  inst_guard(eval_ctx& c, const std::string* key, std::size_t index) : c_(c), pushed_(c.collect) {
    ++c_.inst_depth;
    if (pushed_) c_.ipath.push_back({key, index});
  }
  ~inst_guard() {
    --c_.inst_depth;
    if (pushed_) c_.ipath.pop_back();
  }
  inst_guard(const inst_guard&) = delete;
  inst_guard& operator=(const inst_guard&) = delete;

 private:
  eval_ctx& c_;
  bool pushed_;
};

/// Turns off violation collection for the lifetime of the guard (for anyOf branches, not, ...).
class quiet_guard {
 public:
  explicit quiet_guard(eval_ctx& c) : c_(c), saved_(c.collect) { c_.collect = false; }
  ~quiet_guard() { c_.collect = saved_; }
  quiet_guard(const quiet_guard&) = delete;
  quiet_guard& operator=(const quiet_guard&) = delete;

 private:
  eval_ctx& c_;
  bool saved_;
};

/// Evaluates `child` at instance child `key`/`index`, checking the instance depth bound.
bool eval_child(eval_ctx& c, const node& child, const json& inst, const std::string* key,
                std::size_t index);

}  // namespace mcpcxx::schema::detail
