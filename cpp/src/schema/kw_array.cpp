// Array keywords: prefixItems/items (and draft-07 items/additionalItems), contains with
// minContains/maxContains, minItems/maxItems, uniqueItems.
#include "schema/compiler.hpp"
#include "schema/values.hpp"

namespace mcpcxx::schema::detail {
namespace {

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

class items_kw final : public keyword {
 public:
  items_kw(std::string_view prefix_kw, std::vector<const node*> prefix, std::string_view rest_kw,
           const node* rest)
      : keyword(prefix.empty() ? rest_kw : prefix_kw, t_arr),
        prefix_kw_(prefix_kw),
        rest_kw_(rest_kw),
        prefix_(std::move(prefix)),
        rest_(rest) {
    for (std::size_t i = 0; i < prefix_.size(); ++i) labels_.push_back(std::to_string(i));
  }
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    const std::size_t n = inst.size();
    bool ok = true;
    for (std::size_t i = 0; i < n && i < prefix_.size(); ++i) {
      kw_guard g(c, prefix_kw_, labels_[i]);
      if (!eval_child(c, *prefix_[i], inst[i], nullptr, i)) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    if (ann != nullptr) ann->prefix = std::max(ann->prefix, std::min(n, prefix_.size()));
    if (rest_ == nullptr || n <= prefix_.size()) return ok;
    if (rest_->is_bool) {
      if (rest_->bool_value) {
        if (ann != nullptr) ann->all_items = true;
        return ok;
      }
      if (c.collect) {
        kw_guard g(c, rest_kw_);
        c.report("", "must have at most " + plural(prefix_.size(), "item") + ", got " +
                         std::to_string(n));
      }
      return false;
    }
    kw_guard g(c, rest_kw_);
    for (std::size_t i = prefix_.size(); i < n; ++i) {
      if (!eval_child(c, *rest_, inst[i], nullptr, i)) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    if (ann != nullptr) ann->all_items = true;
    return ok;
  }

 private:
  std::string_view prefix_kw_, rest_kw_;
  std::vector<const node*> prefix_;
  const node* rest_;
  std::vector<std::string> labels_;
};

class contains_kw final : public keyword {
 public:
  contains_kw(const node* child, std::size_t min, std::size_t max, bool explicit_min)
      : keyword("contains", t_arr),
        child_(child),
        min_(min),
        max_(max),
        explicit_min_(explicit_min) {}
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    std::size_t count = 0;
    const bool bounded_above = max_ != static_cast<std::size_t>(-1);
    {
      quiet_guard q(c);
      for (std::size_t i = 0; i < inst.size(); ++i) {
        if (eval_child(c, *child_, inst[i], nullptr, i)) {
          ++count;
          if (ann != nullptr) ann->contained.push_back(i);
          if (ann == nullptr && !bounded_above && count >= min_) return true;
        }
        if (c.stop) return false;
      }
    }
    if (count < min_) {
      if (c.collect)
        c.report(explicit_min_ ? "minContains" : "contains",
                 "must contain at least " + plural(min_, "item") +
                     " matching the contains schema, got " + std::to_string(count));
      return false;
    }
    if (count > max_) {
      if (c.collect)
        c.report("maxContains", "must contain at most " + plural(max_, "item") +
                                    " matching the contains schema, got " + std::to_string(count));
      return false;
    }
    return true;
  }

 private:
  const node* child_;
  std::size_t min_, max_;
  bool explicit_min_;
};

class count_kw final : public keyword {
 public:
  count_kw(std::string_view name, std::size_t n, bool is_max)
      : keyword(name, t_arr), n_(n), max_(is_max) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    const bool ok = max_ ? inst.size() <= n_ : inst.size() >= n_;
    if (!ok && c.collect)
      c.report(name(), std::string("must have at ") + (max_ ? "most " : "least ") +
                           plural(n_, "item") + ", got " + std::to_string(inst.size()));
    return ok;
  }

 private:
  std::size_t n_;
  bool max_;
};

class unique_kw final : public keyword {
 public:
  unique_kw() : keyword("uniqueItems", t_arr) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    const std::size_t n = inst.size();
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (++c.steps > c.bounds->max_validation_steps) {
          c.hit_limit("validation stopped: uniqueItems on " + std::to_string(n) +
                      " items exceeds limits.max_validation_steps");
          return false;
        }
        const auto r = json_equal(inst[i], inst[j], c.bounds->max_instance_depth);
        if (r == eq_result::too_deep) {
          c.hit_limit(
              "validation stopped: items nested too deep to compare (limits.max_instance_depth)");
          return false;
        }
        if (r == eq_result::equal) {
          if (c.collect)
            c.report(name(), "must not contain duplicate items (items " + std::to_string(i) +
                                 " and " + std::to_string(j) + " are equal)");
          return false;
        }
      }
    }
    return true;
  }
};

std::vector<const node*> item_schema_list(build_ctx& b, std::string_view kw, const json& v) {
  if (!v.is_array()) b.fail(kw, concat({"'", kw, "' must be an array of schemas"}));
  std::vector<const node*> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(b.sub(v[i], concat({"/", kw, "/", std::to_string(i)})));
  return out;
}

void add_items(build_ctx& b) {
  const json* items = b.get("items");
  if (b.dia().version == draft::d2020) {
    const json* prefix = b.get("prefixItems");
    if (items != nullptr && items->is_array())
      b.fail("items", "in 2020-12 'items' must be a schema; use prefixItems for tuples");
    std::vector<const node*> pre =
        prefix ? item_schema_list(b, "prefixItems", *prefix) : std::vector<const node*>{};
    const node* rest = items ? b.sub(*items, "/items") : nullptr;
    if (prefix || items)
      b.add(std::make_unique<items_kw>("prefixItems", std::move(pre), "items", rest));
    return;
  }
  if (items == nullptr) return;
  if (!items->is_array()) {
    b.add(std::make_unique<items_kw>("items", std::vector<const node*>{}, "items",
                                     b.sub(*items, "/items")));
    return;
  }
  const json* additional = b.get("additionalItems");
  const node* rest = additional ? b.sub(*additional, "/additionalItems") : nullptr;
  b.add(std::make_unique<items_kw>("items", item_schema_list(b, "items", *items), "additionalItems",
                                   rest));
}

void add_contains(build_ctx& b) {
  const json* contains = b.get("contains");
  if (contains == nullptr) return;
  std::size_t min = 1, max = static_cast<std::size_t>(-1);
  bool explicit_min = false;
  if (b.dia().version != draft::d7 && b.dia().validation) {
    if (const json* v = b.get("minContains")) {
      min = b.count("minContains", *v);
      explicit_min = true;
    }
    if (const json* v = b.get("maxContains")) max = b.count("maxContains", *v);
  }
  b.add(std::make_unique<contains_kw>(b.sub(*contains, "/contains"), min, max, explicit_min));
}

}  // namespace

void add_array_keywords(build_ctx& b) {
  if (b.dia().validation) {
    if (const json* v = b.get("maxItems"))
      b.add(std::make_unique<count_kw>("maxItems", b.count("maxItems", *v), true));
    if (const json* v = b.get("minItems"))
      b.add(std::make_unique<count_kw>("minItems", b.count("minItems", *v), false));
    if (const json* v = b.get("uniqueItems")) {
      if (!v->is_boolean()) b.fail("uniqueItems", "'uniqueItems' must be true or false");
      if (v->get<bool>()) b.add(std::make_unique<unique_kw>());
    }
  }
  if (!b.dia().applicator) return;
  add_items(b);
  add_contains(b);
}

}  // namespace mcpcxx::schema::detail
