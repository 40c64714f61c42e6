// Fast yes/no validation for flat object schemas, the usual shape of MCP tool input schemas:
// "properties" whose members hold only "type" and annotations, "required" and a boolean
// "additionalProperties". compile() picks it at compile time; anything else keeps the general
// evaluator, which also produces every violation list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "mcpcxx/json_schema.hpp"

namespace mcpcxx::schema::detail {

/// The bound on nested node evaluations the general evaluator derives from `b` (wraps like it).
inline std::size_t max_eval_depth(const limits& b) noexcept {
  // Each instance level may pass through a few schema levels ($ref, allOf, ...); a deeper
  // evaluation chain without instance progress means a reference cycle.
  return b.max_instance_depth * 4 + b.max_schema_depth;
}

/// The validator of `schema` built by the general evaluator alone; throws schema_error.
std::shared_ptr<const compiled_schema> compile_general(const json& schema,
                                                       const compile_options& opts);

/// A flat-object validator for `schema` that answers is_valid() exactly as `general` (compiled
/// from the same schema and options) does and leaves violation lists to it; nullptr when the
/// schema or the bounds in `opts` make it ineligible.
std::shared_ptr<const compiled_schema> make_flat_object(
    const json& schema, const compile_options& opts,
    std::shared_ptr<const compiled_schema> general);

/// Whether `s` is a validator made by make_flat_object().
bool is_flat_object(const compiled_schema& s) noexcept;

}  // namespace mcpcxx::schema::detail
