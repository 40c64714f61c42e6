// Numeric, string, format and content keywords.
#include <cmath>

#include "schema/compiler.hpp"
#include "schema/formats.hpp"
#include "schema/regex.hpp"
#include "schema/values.hpp"

namespace mcpcxx::schema::detail {
namespace {

enum class bound_op { le, lt, ge, gt };

class bound_kw final : public keyword {
 public:
  bound_kw(std::string_view name, bound_op op, json limit)
      : keyword(name, t_number), op_(op), limit_(std::move(limit)) {
    static constexpr const char* ops[] = {"<=", "<", ">=", ">"};
    msg_ = std::string("must be ") + ops[static_cast<int>(op)] + " " + short_dump(limit_);
  }
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    const int cmp = compare_numbers(inst, limit_);
    bool ok = false;
    switch (op_) {
      case bound_op::le:
        ok = cmp <= 0;
        break;
      case bound_op::lt:
        ok = cmp < 0;
        break;
      case bound_op::ge:
        ok = cmp >= 0;
        break;
      case bound_op::gt:
        ok = cmp > 0;
        break;
    }
    if (!ok && c.collect) c.report(name(), msg_);
    return ok;
  }

 private:
  bound_op op_;
  json limit_;
  std::string msg_;
};

class multiple_of_kw final : public keyword {
 public:
  explicit multiple_of_kw(json d) : keyword("multipleOf", t_number), divisor_(std::move(d)) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    if (is_multiple_of(inst, divisor_)) return true;
    if (c.collect) c.report(name(), "must be a multiple of " + short_dump(divisor_));
    return false;
  }

 private:
  json divisor_;
};

class length_kw final : public keyword {
 public:
  length_kw(std::string_view name, std::size_t n, bool is_max)
      : keyword(name, t_str), n_(n), max_(is_max) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    const std::size_t len = code_points(inst.get_ref<const std::string&>());
    const bool ok = max_ ? len <= n_ : len >= n_;
    if (!ok && c.collect) {
      c.report(name(), std::string("must be at ") + (max_ ? "most " : "least ") +
                           std::to_string(n_) + " character" + (n_ == 1 ? "" : "s") +
                           " long, got " + std::to_string(len));
    }
    return ok;
  }

 private:
  std::size_t n_;
  bool max_;
};

class pattern_kw final : public keyword {
 public:
  pattern_kw(std::unique_ptr<ecma_regex> re, const std::string& source)
      : keyword("pattern", t_str),
        re_(std::move(re)),
        msg_("must match the pattern " + short_dump(json(source), 80)) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    const auto r = re_->search(inst.get_ref<const std::string&>());
    if (r == match_result::too_long) {
      c.hit_limit("validation stopped: the string is too long to match against a pattern (over " +
                  std::to_string(ecma_regex::max_input) + " characters)");
      return false;
    }
    if (r == match_result::match) return true;
    if (c.collect) c.report(name(), msg_);
    return false;
  }

 private:
  std::unique_ptr<ecma_regex> re_;
  std::string msg_;
};

class format_kw final : public keyword {
 public:
  format_kw(format_check fn, std::string fmt)
      : keyword("format", t_str), fn_(fn), msg_("must be a valid " + std::move(fmt)) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    if (fn_(inst.get_ref<const std::string&>())) return true;
    if (c.collect) c.report(name(), msg_);
    return false;
  }

 private:
  format_check fn_;
  std::string msg_;
};

class content_kw final : public keyword {
 public:
  content_kw(bool base64, bool json_media)
      : keyword("contentMediaType", t_str), base64_(base64), json_(json_media) {}
  bool eval(eval_ctx& c, const json& inst, annotations*) const override {
    const std::string& s = inst.get_ref<const std::string&>();
    std::string decoded;
    if (base64_ && !base64_decode(s, decoded)) {
      if (c.collect) c.report("contentEncoding", "must be base64-encoded");
      return false;
    }
    if (json_ && !json::accept(base64_ ? decoded : s)) {
      if (c.collect) c.report("contentMediaType", "must be a JSON document");
      return false;
    }
    return true;
  }

 private:
  bool base64_;
  bool json_;
};

void add_numeric(build_ctx& b) {
  struct spec {
    const char* kw;
    bound_op op;
  };
  static constexpr spec specs[] = {{"maximum", bound_op::le},
                                   {"exclusiveMaximum", bound_op::lt},
                                   {"minimum", bound_op::ge},
                                   {"exclusiveMinimum", bound_op::gt}};
  for (const auto& s : specs) {
    const json* v = b.get(s.kw);
    if (v == nullptr) continue;
    if (!v->is_number()) b.fail(s.kw, std::string("'") + s.kw + "' must be a number");
    b.add(std::make_unique<bound_kw>(s.kw, s.op, *v));
  }
  if (const json* v = b.get("multipleOf")) {
    if (!v->is_number() || compare_numbers(*v, json(0)) <= 0)
      b.fail("multipleOf", "'multipleOf' must be a number greater than 0");
    b.add(std::make_unique<multiple_of_kw>(*v));
  }
}

void add_strings(build_ctx& b) {
  if (const json* v = b.get("maxLength"))
    b.add(std::make_unique<length_kw>("maxLength", b.count("maxLength", *v), true));
  if (const json* v = b.get("minLength"))
    b.add(std::make_unique<length_kw>("minLength", b.count("minLength", *v), false));
  if (const json* v = b.get("pattern")) {
    if (!v->is_string()) b.fail("pattern", "'pattern' must be a regular expression string");
    std::string error;
    auto re = ecma_regex::compile(v->get<std::string>(), error);
    if (!re) b.fail("pattern", "invalid regular expression " + short_dump(*v, 80) + ": " + error);
    b.add(std::make_unique<pattern_kw>(std::move(re), v->get<std::string>()));
  }
}

void add_format(build_ctx& b) {
  const json* v = b.get("format");
  if (v == nullptr || !b.dia().format_assert) return;
  if (!v->is_string()) b.fail("format", "'format' must be a string");
  // Unknown formats are annotations only, as the specification requires.
  if (format_check fn = find_format(v->get<std::string>()))
    b.add(std::make_unique<format_kw>(fn, v->get<std::string>()));
}

void add_content(build_ctx& b) {
  if (!b.dia().content_assert) return;
  const json* enc = b.get("contentEncoding");
  const json* media = b.get("contentMediaType");
  const bool base64 = enc != nullptr && enc->is_string() && enc->get<std::string>() == "base64";
  const bool json_media =
      media != nullptr && media->is_string() && media->get<std::string>() == "application/json";
  if (base64 || json_media) b.add(std::make_unique<content_kw>(base64, json_media));
}

}  // namespace

void add_scalar_keywords(build_ctx& b) {
  if (b.dia().validation) {
    add_numeric(b);
    add_strings(b);
  }
  add_format(b);
  add_content(b);
}

}  // namespace mcpcxx::schema::detail
