// Public entry points: compile() and the compiled validator.
#include "schema/compiler.hpp"

namespace mcpcxx::schema {
namespace {

class compiled_impl final : public compiled_schema {
 public:
  compiled_impl(detail::compiled_parts parts, const limits& bounds)
      : parts_(std::move(parts)), bounds_(bounds) {}

  validation_result validate(const json& instance) const override {
    validation_result r;
    // The quiet pass keeps the success path free of location bookkeeping and allocation.
    if (is_valid(instance)) return r;
    detail::eval_ctx c = context();
    c.collect = true;
    c.out = &r;
    const bool ok = detail::eval_node(c, *parts_.root, instance, nullptr);
    r.valid = ok && !r.limit_exceeded;
    if (!r.valid && r.violations.empty()) {
      r.violations.push_back({"", "", "", "the value does not match the schema"});
    }
    return r;
  }

  bool is_valid(const json& instance) const override {
    detail::eval_ctx c = context();
    return detail::eval_node(c, *parts_.root, instance, nullptr);
  }

 private:
  detail::eval_ctx context() const {
    detail::eval_ctx c;
    c.bounds = &bounds_;
    c.dynamic = parts_.dynamic;
    // Each instance level may pass through a few schema levels ($ref, allOf, ...); a deeper
    // evaluation chain without instance progress means a reference cycle.
    c.max_depth = bounds_.max_instance_depth * 4 + bounds_.max_schema_depth;
    return c;
  }

  detail::compiled_parts parts_;
  limits bounds_;
};

}  // namespace

std::shared_ptr<const compiled_schema> compile(const json& schema, const compile_options& opts) {
  if (!schema.is_object() && !schema.is_boolean())
    throw schema_error(
        std::string("invalid schema: the root must be an object or a boolean, got ") +
        detail::type_name(schema));
  try {
    detail::compiler comp(opts);
    return std::make_shared<compiled_impl>(comp.run(schema), opts.bounds);
  } catch (const json::exception& e) {
    throw schema_error(std::string("invalid schema: ") + e.what());
  }
}

}  // namespace mcpcxx::schema
