// libFuzzer harness for the JSON Schema validator: the input is JSON text [schema, instance]
// (or a single value used as both). compile() may only fail with schema_error; validate() and
// is_valid() must agree and never throw. Sizes are bounded so one input stays fast.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mcpcxx/json_schema.hpp"

namespace {

using namespace mcpcxx;

void require(bool ok) {
  if (!ok) std::abort();
}

schema::compile_options bounded(bool assert_formats) {
  schema::compile_options opts;
  opts.assert_formats = assert_formats;
  opts.bounds.max_schema_depth = 32;
  opts.bounds.max_subschemas = 2000;
  opts.bounds.max_instance_depth = 64;
  opts.bounds.max_validation_steps = 50000;
  opts.bounds.max_violations = 20;
  return opts;
}

void validate(const schema::compiled_schema& s, const json& instance) {
  const schema::validation_result r = s.validate(instance);
  if (!r.limit_exceeded) require(s.is_valid(instance) == r.valid);
  require(r.valid || !r.violations.empty() || r.limit_exceeded);
  const std::string text = schema::format_violations(r, instance);
  const json as_json = schema::violations_to_json(r);
  (void)as_json.dump(-1, ' ', false, json::error_handler_t::replace);
  (void)text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 8192) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return 0;
  const bool pair = doc.is_array() && doc.size() == 2;
  const json& schema_doc = pair ? doc[0] : doc;
  const json& instance = pair ? doc[1] : doc;
  std::shared_ptr<const schema::compiled_schema> compiled;
  try {
    compiled = schema::compile(schema_doc, bounded((data[0] & 1) != 0));
  } catch (const schema::schema_error&) {
    return 0;  // a refused schema is a normal outcome; any other exception is a crash
  }
  require(compiled != nullptr);
  validate(*compiled, instance);
  return 0;
}
