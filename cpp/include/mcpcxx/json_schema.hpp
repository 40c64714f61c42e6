// JSON Schema (2020-12 and draft-07) compiled once into an immutable validator.
// Thread-safety: a compiled_schema is immutable after compile(); validate() may run concurrently
// from any number of threads. compile() itself is not shared-state and may also run concurrently.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx::schema {

/// One violation of a schema by an instance.
struct violation {
  std::string instance_location;  ///< JSON pointer into the instance, "" for the root
  std::string keyword_location;   ///< JSON pointer into the schema, e.g. "/properties/n/maximum"
  std::string keyword;            ///< "maximum", "required", "type", ...
  std::string message;  ///< short human text: "must be <= 50", "missing required property 'key'"
};

/// Outcome of one validation; violations are in a stable, deterministic order.
struct validation_result {
  bool valid = true;
  std::vector<violation> violations;
  /// Set when a validation-work bound was hit; the instance is then treated as invalid.
  bool limit_exceeded = false;
};

/// Bounds that keep compilation and validation from hanging or overflowing the stack.
struct limits {
  std::size_t max_schema_depth = 128;          ///< nesting of subschemas in the schema document
  std::size_t max_subschemas = 100000;         ///< total subschemas compiled per document set
  std::size_t max_instance_depth = 256;        ///< nesting of the instance validated
  std::size_t max_validation_steps = 1000000;  ///< keyword evaluations per validate() call
  std::size_t max_violations = 100;            ///< violations collected before stopping
};

/// Compile-time options.
struct compile_options {
  bool assert_formats = false;  ///< opt-in: `format` asserts instead of annotating
  /// Documents resolvable by absolute URI (tests preload the suite's remotes/ here). Network URIs
  /// are never fetched; a $ref to anything not here or in the schema fails compilation.
  std::map<std::string, json> registry;
  /// Dialect used when the schema has no $schema: "https://json-schema.org/draft/2020-12/schema".
  std::string default_dialect = "https://json-schema.org/draft/2020-12/schema";
  limits bounds;
};

/// Thrown by compile(): unknown $schema, invalid keyword value, unresolvable or remote $ref,
/// a bad regex, or a bound exceeded. what() names the schema location and the fix.
class schema_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class compiled_schema;

/// Compiles `schema` (a JSON object or boolean); throws schema_error on any problem.
std::shared_ptr<const compiled_schema> compile(const json& schema,
                                               const compile_options& opts = {});

/// An immutable compiled validator.
class compiled_schema {
 public:
  virtual ~compiled_schema() = default;
  /// Validates `instance`, collecting every violation (up to limits::max_violations).
  virtual validation_result validate(const json& instance) const = 0;
  /// Fast yes/no validation; no allocation on the success path for typical tool arguments.
  virtual bool is_valid(const json& instance) const = 0;
};

/// Options for the model-facing text.
struct format_options {
  std::size_t max_violations_listed = 10;  ///< further ones are summarized as "and N more"
};

/// Model-facing text for violations of `instance`: one line per violation naming the JSON pointer,
/// the constraint and the JSON type received, e.g. "/count: must be <= 50 (got integer)". Never
/// echoes instance values longer than a few characters, and never string values at all.
std::string format_violations(const validation_result& result, const json& instance,
                              const format_options& opts = {});

/// Machine-readable form: [{"instanceLocation","keywordLocation","keyword","message"}...].
json violations_to_json(const validation_result& result);

}  // namespace mcpcxx::schema
