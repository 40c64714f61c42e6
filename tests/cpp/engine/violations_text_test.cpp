// violations_json_text: the T1 reply's violations written from the validator's result must be
// the bytes of violations_to_json serialized, for plain, escaped and non-ASCII texts alike.
#include "registry/violations_text.hpp"

#include <gtest/gtest.h>

#include "mcpcxx/json_schema.hpp"

#include "jsonrpc/splice.hpp"

namespace mcpcxx::detail {
namespace {

schema::validation_result result_of(std::vector<schema::violation> v) {
  schema::validation_result r;
  r.valid = v.empty();
  r.violations = std::move(v);
  return r;
}

TEST(ViolationsText, EqualsTheTreeSerialized) {
  const std::vector<schema::validation_result> cases = {
      result_of({}),
      result_of({{"/text", "/properties/text/type", "type", "must be a string, got integer"}}),
      result_of({{"", "/required", "required", "missing required property 'text'"},
                 {"/a~1b", "/properties/a~1b/maximum", "maximum", "must be <= 5"}}),
      result_of({{"/say \"hi\"\\", "/properties/x", "pattern", "line\nbreak\ttab \x01"}}),
      result_of(
          {{"/na\xC3\xAFve", "/properties/na\xC3\xAFve/enum", "enum", "caf\xC3\xA9 \xE2\x82\xAC"}}),
      result_of({{"/bad\xFF", "/properties/x", "type", "ill-formed \xC3 UTF-8"}}),
  };
  for (const auto& r : cases) {
    EXPECT_EQ(violations_json_text(r), jsonrpc::serialize_value(schema::violations_to_json(r)));
  }
}

// The details object with the violations spliced in equals the whole tree serialized.
TEST(ViolationsText, SplicedIntoDetailsEqualsTheWholeDetails) {
  const auto r = result_of({{"/k", "/properties/k/type", "type", "must be a string, got integer"}});
  json details = {{"category", "invalid_arguments"}, {"resource", "t"}, {"violations", nullptr}};
  const std::string text = violations_json_text(r);
  const jsonrpc::spliced_member m{{}, "violations", text};
  const std::string spliced = jsonrpc::serialize_object_spliced(details, std::span(&m, 1));
  details["violations"] = schema::violations_to_json(r);
  EXPECT_EQ(spliced, jsonrpc::serialize_value(details));
  EXPECT_EQ(spliced, details.dump());
}

}  // namespace
}  // namespace mcpcxx::detail
