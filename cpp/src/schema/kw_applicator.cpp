// In-place applicators: allOf, anyOf, oneOf, not, if/then/else; and unevaluatedProperties /
// unevaluatedItems, which read the annotations their sibling keywords collected.
#include <algorithm>
#include <optional>

#include "schema/compiler.hpp"
#include "schema/values.hpp"

namespace mcpcxx::schema::detail {
namespace {

enum class combine { all, any, one };

class combinator_kw final : public keyword {
 public:
  combinator_kw(std::string_view name, combine mode, std::vector<const node*> children)
      : keyword(name, t_any), mode_(mode), children_(std::move(children)) {
    for (std::size_t i = 0; i < children_.size(); ++i) labels_.push_back(std::to_string(i));
  }
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    return mode_ == combine::all ? all(c, inst, ann) : some(c, inst, ann);
  }

 private:
  bool all(eval_ctx& c, const json& inst, annotations* ann) const {
    bool ok = true;
    for (std::size_t i = 0; i < children_.size(); ++i) {
      kw_guard g(c, name(), labels_[i]);
      if (!eval_node(c, *children_[i], inst, ann)) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    return ok;
  }

  bool some(eval_ctx& c, const json& inst, annotations* ann) const {
    std::size_t matched = 0;
    std::size_t first = 0, second = 0;
    {
      quiet_guard q(c);
      for (std::size_t i = 0; i < children_.size(); ++i) {
        annotations tmp;
        if (eval_node(c, *children_[i], inst, ann != nullptr ? &tmp : nullptr)) {
          (matched == 0 ? first : second) = i;
          ++matched;
          if (ann != nullptr) ann->merge(tmp);
          // Without annotations to collect, the outcome is known early.
          if (ann == nullptr && (mode_ == combine::any || matched > 1)) break;
        }
        if (c.stop) return false;
      }
    }
    if (mode_ == combine::any) {
      if (matched > 0) return true;
      if (c.collect)
        c.report(name(), type_union_message(c, inst).value_or(
                             "must match at least one of the anyOf schemas, matched none"));
      return false;
    }
    if (matched == 1) return true;
    if (c.collect) {
      c.report(name(), matched == 0 ? "must match exactly one of the oneOf schemas, matched none"
                                    : "must match exactly one of the oneOf schemas, matched " +
                                          std::to_string(first) + " and " + std::to_string(second));
    }
    return false;
  }

  // When every branch fails only on `type` ("nullable" unions), one merged type message reads
  // better than "matched none": "must be a string or null, got integer".
  std::optional<std::string> type_union_message(eval_ctx& c, const json& inst) const {
    validation_result scratch;
    validation_result* saved = c.out;
    c.out = &scratch;
    std::string expected;
    bool mergeable = true;
    for (std::size_t i = 0; i < children_.size() && mergeable; ++i) {
      scratch.violations.clear();
      eval_node(c, *children_[i], inst, nullptr);
      mergeable =
          !c.stop && scratch.violations.size() == 1 && scratch.violations[0].keyword == "type";
      if (!mergeable) break;
      const std::string& m = scratch.violations[0].message;
      const auto got = m.rfind(", got ");
      if (m.rfind("must be ", 0) != 0 || got == std::string::npos) {
        mergeable = false;
        break;
      }
      expected += (i == 0 ? "" : i + 1 == children_.size() ? " or " : ", ") + m.substr(8, got - 8);
    }
    c.out = saved;
    if (!mergeable) return std::nullopt;
    return "must be " + expected + ", got " + type_name(inst);
  }

  combine mode_;
  std::vector<const node*> children_;
  std::vector<std::string> labels_;
};

class not_kw final : public keyword {
 public:
  explicit not_kw(const node* n) : keyword("not", t_any), node_(n) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    bool matched = false;
    {
      quiet_guard q(c);
      matched = eval_node(c, *node_, inst, nullptr);
    }
    if (c.stop) return false;
    if (!matched) return true;
    if (c.collect) c.report(name(), "must not match the schema in 'not'");
    return false;
  }

 private:
  const node* node_;
};

class if_kw final : public keyword {
 public:
  if_kw(const node* cond, const node* then_n, const node* else_n)
      : keyword("if", t_any), cond_(cond), then_(then_n), else_(else_n) {}
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    bool holds = false;
    annotations tmp;
    {
      quiet_guard q(c);
      holds = eval_node(c, *cond_, inst, ann != nullptr ? &tmp : nullptr);
    }
    if (c.stop) return false;
    if (holds && ann != nullptr) ann->merge(tmp);
    const node* branch = holds ? then_ : else_;
    if (branch == nullptr) return true;
    kw_guard g(c, holds ? "then" : "else");
    return eval_node(c, *branch, inst, ann);
  }

 private:
  const node* cond_;
  const node* then_;
  const node* else_;
};

std::string quote_key(std::string_view key) { return concat({"'", truncate_text(key, 64), "'"}); }

class unevaluated_props_kw final : public keyword {
 public:
  explicit unevaluated_props_kw(const node* n)
      : keyword("unevaluatedProperties", t_obj), node_(n) {}
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    if (ann->all_props) return true;
    auto& seen = ann->props;
    std::sort(seen.begin(), seen.end());
    bool ok = true;
    for (auto it = inst.begin(); it != inst.end(); ++it) {
      if (std::binary_search(seen.begin(), seen.end(), &it.key())) continue;
      if (node_->is_bool && !node_->bool_value) {
        ok = false;
        if (!c.collect) return false;
        c.report(name(), "unexpected property " + quote_key(it.key()));
        continue;
      }
      kw_guard g(c, name());
      if (!eval_child(c, *node_, it.value(), &it.key(), 0)) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    ann->all_props = true;
    return ok;
  }

 private:
  const node* node_;
};

class unevaluated_items_kw final : public keyword {
 public:
  explicit unevaluated_items_kw(const node* n) : keyword("unevaluatedItems", t_arr), node_(n) {}
  bool eval(eval_ctx& c, const json& inst, annotations* ann) const override {
    if (ann->all_items) return true;
    auto& hit = ann->contained;
    std::sort(hit.begin(), hit.end());
    bool ok = true;
    for (std::size_t i = ann->prefix; i < inst.size(); ++i) {
      if (std::binary_search(hit.begin(), hit.end(), i)) continue;
      if (node_->is_bool && !node_->bool_value) {
        if (c.collect) c.report(name(), "unexpected item at index " + std::to_string(i));
        return false;
      }
      kw_guard g(c, name());
      if (!eval_child(c, *node_, inst[i], nullptr, i)) {
        ok = false;
        if (!c.collect || c.stop) return false;
      }
    }
    ann->all_items = true;
    return ok;
  }

 private:
  const node* node_;
};

std::vector<const node*> schema_list(build_ctx& b, std::string_view kw, const json& v) {
  if (!v.is_array() || v.empty())
    b.fail(kw, concat({"'", kw, "' must be a non-empty array of schemas"}));
  std::vector<const node*> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(b.sub(v[i], concat({"/", kw, "/", std::to_string(i)})));
  return out;
}

}  // namespace

void add_applicator_keywords(build_ctx& b) {
  if (!b.dia().applicator) return;
  if (const json* v = b.get("allOf"))
    b.add(std::make_unique<combinator_kw>("allOf", combine::all, schema_list(b, "allOf", *v)));
  if (const json* v = b.get("anyOf"))
    b.add(std::make_unique<combinator_kw>("anyOf", combine::any, schema_list(b, "anyOf", *v)));
  if (const json* v = b.get("oneOf"))
    b.add(std::make_unique<combinator_kw>("oneOf", combine::one, schema_list(b, "oneOf", *v)));
  if (const json* v = b.get("not")) b.add(std::make_unique<not_kw>(b.sub(*v, "/not")));
  if (const json* v = b.get("if")) {
    const json* t = b.get("then");
    const json* e = b.get("else");
    b.add(std::make_unique<if_kw>(b.sub(*v, "/if"), t ? b.sub(*t, "/then") : nullptr,
                                  e ? b.sub(*e, "/else") : nullptr));
  }
}

void add_unevaluated_keywords(build_ctx& b) {
  if (!b.dia().unevaluated) return;
  const json* props = b.get("unevaluatedProperties");
  const json* items = b.get("unevaluatedItems");
  if (props != nullptr)
    b.add(std::make_unique<unevaluated_props_kw>(b.sub(*props, "/unevaluatedProperties")));
  if (items != nullptr)
    b.add(std::make_unique<unevaluated_items_kw>(b.sub(*items, "/unevaluatedItems")));
  if (props != nullptr || items != nullptr) b.out.tracks = true;
}

}  // namespace mcpcxx::schema::detail
