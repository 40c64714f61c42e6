// The SKILL.md frontmatter reader: what it renders as JSON, and the line and message of every
// construct it refuses.
#include "skills/frontmatter.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace {

using mcpcxx::json;
using mcpcxx::skills::parse_frontmatter;

json fm(const std::string& body) { return parse_frontmatter("---\n" + body + "---\n# Body\n"); }

// The message of the refusal of `body`, "" when it was accepted.
std::string fm_refusal(const std::string& body) {
  try {
    fm(body);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Frontmatter, ScalarsResolveByTheCoreSchema) {
  const json j =
      fm("name: pdf\n"
         "count: 42\nneg: -7\nhex: 0x1F\noct: 0o17\nratio: 1.5\nexp: 2e3\n"
         "yes: true\nno: False\nnothing: ~\nempty:\nversion: \"1.0\"\nword: 1.0.2\n"
         "url: https://example.com/a#frag\ncomment: kept # dropped\n");
  EXPECT_EQ(j["name"], "pdf");
  EXPECT_EQ(j["count"], 42);
  EXPECT_EQ(j["neg"], -7);
  EXPECT_EQ(j["hex"], 31);
  EXPECT_EQ(j["oct"], 15);
  EXPECT_DOUBLE_EQ(j["ratio"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["exp"].get<double>(), 2000.0);
  EXPECT_EQ(j["yes"], true);
  EXPECT_EQ(j["no"], false);
  EXPECT_TRUE(j["nothing"].is_null());
  EXPECT_TRUE(j["empty"].is_null());
  EXPECT_EQ(j["version"], "1.0");
  EXPECT_EQ(j["word"], "1.0.2");
  EXPECT_EQ(j["url"], "https://example.com/a#frag");
  EXPECT_EQ(j["comment"], "kept");
}

TEST(Frontmatter, QuotedScalarsDecodeEscapesAndFold) {
  const json j =
      fm("a: \"tab\\there \\\"q\\\" \\u00e9 \\x41 \\U0001F600\"\n"
         "b: 'it''s # not a comment'\n"
         "c: \"first\n  second\n\n  third\"\n"
         "d: \"joined\\\n  here\"  # comment\n");
  EXPECT_EQ(j["a"], "tab\there \"q\" \xC3\xA9 A \xF0\x9F\x98\x80");
  EXPECT_EQ(j["b"], "it's # not a comment");
  EXPECT_EQ(j["c"], "first second\nthird");
  EXPECT_EQ(j["d"], "joinedhere");
}

TEST(Frontmatter, BlockScalarsKeepOrFoldLinesWithChomping) {
  const json j =
      fm("lit: |\n  line one\n    indented\n  line three\n\n"
         "folded: >\n  a\n  b\n\n  c\n"
         "strip: |-\n  x\n\n"
         "keep: |+\n  y\n\n"
         "after: done\n");
  EXPECT_EQ(j["lit"], "line one\n  indented\nline three\n");
  EXPECT_EQ(j["folded"], "a b\nc\n");
  EXPECT_EQ(j["strip"], "x");
  EXPECT_EQ(j["keep"], "y\n\n");
  EXPECT_EQ(j["after"], "done");
}

TEST(Frontmatter, PlainScalarsContinueOnMoreIndentedLines) {
  const json j = fm("description: Extract text\n  and tables from PDFs\nname: pdf\n");
  EXPECT_EQ(j["description"], "Extract text and tables from PDFs");
  EXPECT_EQ(j["name"], "pdf");
}

TEST(Frontmatter, NestedMappingsAndListsKeepTheirShape) {
  const json j =
      fm("metadata:\n  author: ann\n  tags:\n    - a\n    - b: 1\n      c: 2\n  list:\n  - x\n"
         "flow: [1, \"two\", {k: v, empty}, [ ]]\n"
         "map: {a: 1, b: [x, y]}\n"
         "multi: [one,\n  two]\n");
  EXPECT_EQ(j["metadata"],
            json::parse(R"({"author":"ann","tags":["a",{"b":1,"c":2}],"list":["x"]})"));
  EXPECT_EQ(j["flow"], json::parse(R"([1,"two",{"k":"v","empty":null},[]])"));
  EXPECT_EQ(j["map"], json::parse(R"({"a":1,"b":["x","y"]})"));
  EXPECT_EQ(j["multi"], json::parse(R"(["one","two"])"));
}

TEST(Frontmatter, CrlfLinesByteOrderMarkAndDotsEndAreAccepted) {
  const json j = parse_frontmatter("\xEF\xBB\xBF---\r\nname: a\r\ndescription: b\r\n...\r\nbody");
  EXPECT_EQ(j, json::parse(R"({"name":"a","description":"b"})"));
  EXPECT_EQ(parse_frontmatter("---\n---\n"), json::object());
}

TEST(Frontmatter, MissingOrUnclosedFrontmatterIsRefused) {
  EXPECT_THROW(
      {
        try {
          parse_frontmatter("# no frontmatter\n");
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(),
                       "line 1: SKILL.md must begin with a '---' line opening its YAML "
                       "frontmatter");
          throw;
        }
      },
      std::invalid_argument);
  EXPECT_THROW(parse_frontmatter("---\nname: a\n"), std::invalid_argument);
  try {
    parse_frontmatter("---\nname: a\n");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("never closed"), std::string::npos);
  }
}

struct refused_case {
  const char* body;
  const char* message;  // the start of the expected message
};

class FrontmatterRefusal : public ::testing::TestWithParam<refused_case> {};

TEST_P(FrontmatterRefusal, NamesTheLineAndTheFix) {
  const std::string got = fm_refusal(GetParam().body);
  ASSERT_FALSE(got.empty()) << GetParam().body;
  EXPECT_EQ(got.rfind(GetParam().message, 0), 0u) << got;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, FrontmatterRefusal,
    ::testing::Values(
        refused_case{"name: a\n\tdescription: b\n", "line 3: a tab in the indentation"},
        refused_case{"name: a\nname: b\n", "line 3: duplicate key 'name'"},
        refused_case{"base: &x 1\n", "line 2: anchors, aliases and tags"},
        refused_case{"copy: *x\n", "line 2: anchors, aliases and tags"},
        refused_case{"t: !!str 1\n", "line 2: anchors, aliases and tags"},
        refused_case{"description: Use when: asked\n", "line 2: a plain value contains ': '"},
        refused_case{"a: \"open\nb: c\n", "line 2: a quoted value is never closed"},
        refused_case{"a: \"bad \\q\"\n", "line 2: unknown escape \\q"},
        refused_case{"a: \"\\ud800\"\n", "line 2: the escape \\ud800 is not a Unicode scalar"},
        refused_case{"a: .inf\n", "line 2: the value .inf is not a JSON number"},
        refused_case{"a: [1, 2\n", "line 2: a [ ] or { } value is not closed"},
        refused_case{"a: [1 2] x\n", "line 2: unexpected text after the closing bracket"},
        refused_case{"a: 'x' y\n", "line 2: only a comment may follow a closing quote"},
        refused_case{"%YAML 1.2\n", "line 2: YAML directives are not supported"},
        refused_case{"? complex\n", "line 2: the frontmatter must be a mapping"},
        refused_case{"- item\n", "line 2: the frontmatter must be a mapping"},
        refused_case{"a: 1\n  b: 2\n", "line 3: a plain value contains ': '"},
        refused_case{"a:\n  b: 1\n c: 2\n", "line 4: unexpected indentation"},
        refused_case{"a: |x\n  y\n", "line 2: after | write the value on the lines below"},
        refused_case{"a: @at\n", "line 2: a value may not start with '@'"},
        refused_case{"a: 99999999999999999999\n", "line 2: the integer 99999999999999999999"},
        refused_case{"just text\n", "line 2: the frontmatter must be a mapping"}));

TEST(Frontmatter, FencesAreCheckedBeforeDirectivesAndIndentation) {
  EXPECT_EQ(parse_frontmatter("--- \t\r\n...  \r\n"), json::object());
  EXPECT_EQ(parse_frontmatter("---\na: 1\n--- \nb: 2\n"), json::parse(R"({"a":1})"));
  const auto refusal = [](const std::string& text) -> std::string {
    try {
      parse_frontmatter(text);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refusal(""),
            "line 1: SKILL.md must begin with a '---' line opening its YAML frontmatter");
  EXPECT_EQ(refusal("\xEF\xBB\xBF\xEF\xBB\xBF---\n---\n"),
            "line 1: SKILL.md must begin with a '---' line opening its YAML frontmatter");
  EXPECT_EQ(refusal("---"),
            "line 1: the frontmatter opened on line 1 is never closed; end it with a '---' line");
  EXPECT_EQ(refusal("---\n%YAML 1.2\n---\n"), "line 2: YAML directives are not supported");
  EXPECT_EQ(refusal("---\r\n%\r\n...\r\n"), "line 2: YAML directives are not supported");
  EXPECT_EQ(refusal("---\na: 1\n%b: 2\n---\n"), "line 3: a key may not start with '%'; quote it");
  EXPECT_EQ(refusal("---\n\t---\n---\n"), "line 2: a tab in the indentation; indent with spaces");
  EXPECT_EQ(refusal("---\na: 1\n\tb\n"), "line 3: a tab in the indentation; indent with spaces");
}

TEST(Frontmatter, NestingDeeperThan32LevelsIsRefused) {
  std::string deep = "a: ";
  for (int i = 0; i < 40; ++i) deep += "[";
  for (int i = 0; i < 40; ++i) deep += "]";
  EXPECT_EQ(fm_refusal(deep + "\n").rfind("line 2: nesting deeper than 32 levels", 0), 0u);
  std::string block;
  for (int i = 0; i < 40; ++i) block += std::string(static_cast<std::size_t>(i) * 2, ' ') + "k:\n";
  EXPECT_NE(fm_refusal(block).find("nesting deeper than 32 levels"), std::string::npos);
}

}  // namespace

namespace {

// Mutations of a frontmatter using every construct: each must give an object or a refusal
// (std::invalid_argument), never another exception or a read out of bounds (ASan in CI).
TEST(Frontmatter, MutatedInputIsReadOrRefusedNeverMisread) {
  const std::string seed =
      "---\nname: a\ndescription: >-\n  folded\n  text\nlist:\n  - x\n  - k: v\n    q: 'w'\n"
      "flow: [1, {a: \"b\\u00e9\"}, [c]]\nlit: |+\n  keep\n\nplain: more\n  lines # c\n---\n";
  const std::string alphabet = "-:#'\"[]{},|>&*!?% \n\t\\ax0";
  std::uint32_t state = 12345;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  int accepted = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string text = seed;
    for (int edits = 1 + static_cast<int>(next() % 4); edits > 0; --edits) {
      const std::size_t at = 4 + next() % (text.size() - 8);
      const char c = alphabet[next() % alphabet.size()];
      switch (next() % 3) {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(at, 1, c);
          break;
        default:
          text.erase(at, 1);
          break;
      }
    }
    try {
      const json j = parse_frontmatter(text);
      EXPECT_TRUE(j.is_object());
      (void)j.dump();  // valid UTF-8 throughout
      ++accepted;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("line ", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(accepted, 100);  // the mutations do not all break the document
}

}  // namespace
