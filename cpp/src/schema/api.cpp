// Public entry points: compile() and the compiled validator.
#include "schema/compiler.hpp"
#include "schema/flat_object.hpp"

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
    c.max_depth = detail::max_eval_depth(bounds_);
    return c;
  }

  detail::compiled_parts parts_;
  limits bounds_;
};

}  // namespace

std::shared_ptr<const compiled_schema> detail::compile_general(const json& schema,
                                                               const compile_options& opts) {
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

std::shared_ptr<const compiled_schema> compile(const json& schema, const compile_options& opts) {
  auto general = detail::compile_general(schema, opts);
  // Decided once here: flat object schemas (most tool inputs) get a dispatch-free is_valid().
  if (auto flat = detail::make_flat_object(schema, opts, general)) return flat;
  return general;
}

}  // namespace mcpcxx::schema
