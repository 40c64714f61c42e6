// RFC 6570 URI templates: every operator the spec's examples use, matched and expanded, and
// malformed templates refused with a message saying what to write.
#include "mcpcxx/uri_template.hpp"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mcpcxx {
namespace {

using vars = std::map<std::string, std::string>;
using ::testing::HasSubstr;

std::optional<vars> match(const char* tmpl, const char* uri) {
  return uri_template(tmpl).match(uri);
}

struct round_trip {
  const char* tmpl;
  vars values;
  const char* uri;
};

class UriTemplateRoundTrip : public ::testing::TestWithParam<round_trip> {};

TEST_P(UriTemplateRoundTrip, ExpandsAndMatchesBack) {
  const uri_template t(GetParam().tmpl);
  EXPECT_EQ(t.expand(GetParam().values), GetParam().uri);
  EXPECT_EQ(t.match(GetParam().uri), GetParam().values);
}

// Values and expansions from RFC 6570 section 3.2 (var="value", hello="Hello World!",
// path="/foo/bar", x="1024", y="768") and the MCP spec's template examples.
INSTANTIATE_TEST_SUITE_P(
    Operators, UriTemplateRoundTrip,
    ::testing::Values(
        round_trip{"file:///{path}", {{"path", "notes.txt"}}, "file:///notes.txt"},
        round_trip{"github://repos/{owner}/{repo}",
                   {{"owner", "octo"}, {"repo", "hello"}},
                   "github://repos/octo/hello"},
        round_trip{"x://{hello}", {{"hello", "Hello World!"}}, "x://Hello%20World%21"},
        round_trip{"x://{x,y}", {{"x", "1024"}, {"y", "768"}}, "x://1024,768"},
        round_trip{"file://{+path}", {{"path", "/foo/bar"}}, "file:///foo/bar"},
        round_trip{"x://{+hello}", {{"hello", "Hello World!"}}, "x://Hello%20World!"},
        round_trip{"x://a{#var}", {{"var", "value"}}, "x://a#value"},
        round_trip{"x://a{#path,x}", {{"path", "/foo/bar"}, {"x", "1024"}}, "x://a#/foo/bar,1024"},
        round_trip{"x://f{.ext}", {{"ext", "json"}}, "x://f.json"},
        round_trip{"x://h{.x,y}", {{"x", "1024"}, {"y", "768"}}, "x://h.1024.768"},
        round_trip{"x://a{/var}", {{"var", "value"}}, "x://a/value"},
        round_trip{
            "x://a{/var,x}/here", {{"var", "value"}, {"x", "1024"}}, "x://a/value/1024/here"},
        round_trip{"x://a{;x,y}", {{"x", "1024"}, {"y", "768"}}, "x://a;x=1024;y=768"},
        round_trip{"x://a{;x,empty}", {{"x", "1024"}, {"empty", ""}}, "x://a;x=1024;empty"},
        round_trip{"x://a{?x,y}", {{"x", "1024"}, {"y", "768"}}, "x://a?x=1024&y=768"},
        round_trip{"x://a{?x,empty}", {{"x", "1024"}, {"empty", ""}}, "x://a?x=1024&empty="},
        round_trip{"x://a?fixed=yes{&x}", {{"x", "1024"}}, "x://a?fixed=yes&x=1024"},
        round_trip{"users://{id}{?fields,limit}",
                   {{"id", "7"}, {"fields", "name,email"}},
                   "users://7?fields=name%2Cemail"},
        round_trip{"x://{var:3}", {{"var", "val"}}, "x://val"},
        round_trip{"x://{name}", {{"name", "caf\xc3\xa9"}}, "x://caf%C3%A9"}));

TEST(UriTemplate, OptionalExpressionsMayBeAbsent) {
  EXPECT_EQ(match("users://{id}{?fields,limit}", "users://7"), (vars{{"id", "7"}}));
  EXPECT_EQ(match("users://{id}{?fields,limit}", "users://7?limit=5"),
            (vars{{"id", "7"}, {"limit", "5"}}));
  EXPECT_EQ(match("users://{id}{?fields,limit}", "users://7?limit=5&fields=a"),
            (vars{{"id", "7"}, {"limit", "5"}, {"fields", "a"}}));
  EXPECT_EQ(match("x://a{/var,x}", "x://a"), vars{});
  EXPECT_EQ(match("x://a{/var,x}", "x://a/v"), (vars{{"var", "v"}}));
  EXPECT_EQ(match("x://f{.ext}", "x://f"), vars{});
  EXPECT_EQ(match("x://a{#frag}", "x://a"), vars{});
  EXPECT_EQ(uri_template("users://{id}{?fields,limit}").expand({{"id", "7"}}), "users://7");
}

TEST(UriTemplate, WhatDoesNotMatch) {
  EXPECT_EQ(match("test://template/{id}/data", "test://template/1/2/data"), std::nullopt);
  EXPECT_EQ(match("test://template/{id}/data", "test://template//data"), std::nullopt);
  EXPECT_EQ(match("users://{id}", "users://7?x=1"), std::nullopt);  // '?' is not in {id}
  EXPECT_EQ(match("users://{id}{?fields}", "users://7?other=1"), std::nullopt);
  EXPECT_EQ(match("users://{id}{?fields}", "users://7?fields=a&fields=b"), std::nullopt);
  EXPECT_EQ(match("x://a{/var}", "x://a/b/c"), std::nullopt);
  EXPECT_EQ(match("x://{var:3}", "x://four"), std::nullopt);
  EXPECT_EQ(match("x://{a,b}", "x://1,2,3"), std::nullopt);
  EXPECT_EQ(match("x://{+path}", "x://"), std::nullopt);  // a simple or + value is required
  EXPECT_EQ(match("x://fixed", "x://other"), std::nullopt);
}

TEST(UriTemplate, MatchingPercentDecodesAndReservedSpansSlashes) {
  EXPECT_EQ(match("file:///{+path}", "file:///a/b/c"), (vars{{"path", "a/b/c"}}));
  EXPECT_EQ(match("x://{name}", "x://Hello%20World%21"), (vars{{"name", "Hello World!"}}));
  EXPECT_EQ(match("x://{name}", "x://100%"), (vars{{"name", "100%"}}));  // not a triplet
  EXPECT_EQ(match("x://{+path}/edit", "x://a/b/edit"), (vars{{"path", "a/b"}}));
  EXPECT_EQ(match("x://{a}-{b}", "x://1-2-3"), (vars{{"a", "1-2"}, {"b", "3"}}));
}

TEST(UriTemplate, VariableNamesInOrder) {
  const uri_template t("x://{a}/{+b}{?c,a}");
  EXPECT_EQ(t.variable_names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(t.required_variable_names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(uri_template("x://{a,b}{/c}").required_variable_names(),
            (std::vector<std::string>{"a"}));
  EXPECT_TRUE(t.has_expressions());
  EXPECT_FALSE(uri_template("x://plain").has_expressions());
}

TEST(UriTemplate, HostileInputIsBounded) {
  // Many reserved expressions against a long URI with no match: answered, not hung.
  const uri_template t("x://{+a}.{+b}.{+c}.{+d}.{+e}!");
  const std::string uri = "x://" + std::string(20000, '.');
  EXPECT_EQ(t.match(uri), std::nullopt);
  // A long URI that does match is not cut short by the bound.
  const std::string path(100000, 'a');
  EXPECT_EQ(uri_template("x://{+path}/edit").match("x://" + path + "/edit"),
            (vars{{"path", path}}));
}

struct bad_template {
  const char* tmpl;
  const char* says;
};

class UriTemplateRefusal : public ::testing::TestWithParam<bad_template> {};

TEST_P(UriTemplateRefusal, SaysWhatToWrite) {
  try {
    uri_template t(GetParam().tmpl);
    ADD_FAILURE() << GetParam().tmpl << " was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr(GetParam().says));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, UriTemplateRefusal,
    ::testing::Values(bad_template{"x://{}", "empty expression '{}' at position 4; write {name}"},
                      bad_template{"x://{a", "unclosed '{' at position 4; close it with '}'"},
                      bad_template{"x://a}", "'}' without '{' at position 5"},
                      bad_template{"x://{a{b}}", "'{' inside an expression"},
                      bad_template{"x://{a}{b}", "two adjacent expressions cannot be told apart"},
                      bad_template{"x://{a}{+b}", "two adjacent expressions"},
                      bad_template{"x://{list*}",
                                   "explode modifier '*' on 'list*' is not supported"},
                      bad_template{"x://{=a}", "operator '=' is reserved by RFC 6570"},
                      bad_template{"x://{a b}", "variable name 'a b' has the character ' '"},
                      bad_template{"x://{?a,}", "empty variable name"},
                      bad_template{"x://{a:0}", "prefix modifier ':0' of 'a' is not 1-9999"},
                      bad_template{"x://{a:10000}", "is not 1-9999"},
                      bad_template{"x://{a:}", "is not 1-9999"}));

}  // namespace
}  // namespace mcpcxx
