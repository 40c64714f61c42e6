// Icons on tools, resources, templates, prompts and Implementation: the spec's Icon shape is
// read, anything else is refused naming the object, the icon and the field.
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mcpcxx/model.hpp"
#include "mcpcxx/primitives.hpp"
#include "mcpcxx/server_json.hpp"

namespace mcpcxx {
namespace {

using ::testing::HasSubstr;

template <class T>
std::string refusal(const json& j) {
  try {
    (void)j.get<T>();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const json k_good_icons = json::parse(R"([
  {"src": "https://example.com/a.png", "mimeType": "image/png", "sizes": ["48x48", "any"],
   "theme": "dark"},
  {"src": "data:image/svg+xml;base64,PHN2Zy8+"},
  {"src": "HTTP://example.com/b.png", "theme": "light"}
])");

TEST(Icons, EveryPrimitiveReadsTheSpecShape) {
  const json tool = {{"name", "t"}, {"icons", k_good_icons}};
  const json resource = {{"uri", "a://b"}, {"name", "b"}, {"icons", k_good_icons}};
  const json templ = {{"uriTemplate", "a://{x}"}, {"name", "x"}, {"icons", k_good_icons}};
  const json prompt = {{"name", "p"}, {"icons", k_good_icons}};
  const json info = {{"name", "s"}, {"version", "1"}, {"icons", k_good_icons}};
  EXPECT_EQ(tool.get<tool_spec>().icons, k_good_icons);
  EXPECT_EQ(resource.get<resource_spec>().icons, k_good_icons);
  EXPECT_EQ(templ.get<resource_template_spec>().icons, k_good_icons);
  EXPECT_EQ(prompt.get<prompt_spec>().icons, k_good_icons);
  EXPECT_EQ(info.get<server_info>().icons, k_good_icons);
  EXPECT_EQ(json(tool.get<tool_spec>())["icons"], k_good_icons);
}

TEST(Icons, AbsentOrNullIsNoIcons) {
  EXPECT_TRUE((json{{"name", "p"}}.get<prompt_spec>().icons.is_null()));
  EXPECT_TRUE((json{{"name", "p"}, {"icons", nullptr}}.get<prompt_spec>().icons.is_null()));
}

struct bad_icons {
  json icons;
  const char* says;
};

class BadIcons : public ::testing::TestWithParam<bad_icons> {};

TEST_P(BadIcons, AreRefusedNamingTheIconAndField) {
  const json prompt = {{"name", "p"}, {"icons", GetParam().icons}};
  const json resource = {{"uri", "a://b"}, {"name", "b"}, {"icons", GetParam().icons}};
  EXPECT_THAT(refusal<prompt_spec>(prompt), HasSubstr(GetParam().says));
  EXPECT_THAT(refusal<prompt_spec>(prompt), HasSubstr("Prompt"));
  EXPECT_THAT(refusal<resource_spec>(resource), HasSubstr(GetParam().says));
  EXPECT_THAT(refusal<tool_spec>(json{{"name", "t"}, {"icons", GetParam().icons}}),
              HasSubstr("Tool"));
  EXPECT_THAT(refusal<server_info>(json{{"name", "s"}, {"icons", GetParam().icons}}),
              HasSubstr("Implementation"));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, BadIcons,
    ::testing::Values(
        bad_icons{json("https://x/a.png"), "'icons' must be a list of Icon objects"},
        bad_icons{json::array({"https://x/a.png"}), "icons[0] must be a JSON object"},
        bad_icons{json::array({json::object()}), "icons[0]: 'src' must be a string"},
        bad_icons{json::array({{{"src", 3}}}), "icons[0]: 'src' must be a string"},
        bad_icons{json::array({{{"src", "ftp://x/a.png"}}}),
                  "'src' must be an https:, http: or data: URI"},
        bad_icons{json::array({{{"src", "https://x"}}, {{"src", "https://x"}, {"theme", "blue"}}}),
                  "icons[1]: 'theme' must be \"light\" or \"dark\""},
        bad_icons{json::array({{{"src", "https://x"}, {"sizes", "48x48"}}}),
                  "'sizes' must be a list of strings"},
        bad_icons{json::array({{{"src", "https://x"}, {"mimeType", 1}}}),
                  "'mimeType' must be a string"},
        bad_icons{json::array({{{"src", "https://x"}, {"size", "48x48"}}}),
                  "icons[0] key 'size'; known options: src, mimeType, sizes, theme"}));

}  // namespace
}  // namespace mcpcxx
