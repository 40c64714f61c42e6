// docs/error-model.md's tables are generated from the situation table; any drift fails here and
// prints the expected section. MCPCXX_WRITE_DOCS=1 rewrites the document in place instead.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "doc_tables.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::wire::testing {
namespace {

const std::filesystem::path k_doc =
    std::filesystem::path(MCPCXX_SOURCE_DIR) / "docs" / "error-model.md";

std::string read_doc() {
  std::ifstream in(k_doc, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ErrorModelDoc, GeneratedTablesMatchTheSituationTable) {
  const std::string doc = read_doc();
  ASSERT_FALSE(doc.empty()) << k_doc;
  const char* write = std::getenv("MCPCXX_WRITE_DOCS");
  if (write != nullptr && std::string(write) == "1") {
    std::ofstream(k_doc, std::ios::binary) << regenerate(doc);
    GTEST_SKIP() << "rewrote " << k_doc;
  }
  for (std::string_view section : k_sections) {
    const std::string begin = begin_marker(section);
    const auto b = doc.find(begin);
    const auto e = doc.find(end_marker(section));
    ASSERT_NE(b, std::string::npos) << "missing marker line:\n" << begin;
    ASSERT_NE(e, std::string::npos) << "missing marker line:\n" << end_marker(section);
    const std::string actual = doc.substr(b + begin.size(), e - b - begin.size());
    EXPECT_EQ(actual, render_section(section))
        << "docs/error-model.md's " << section << " table drifted from cpp/src/wire/table.cpp; "
        << "expected section:\n"
        << render_section(section);
  }
}

TEST(ErrorModelDoc, EveryNamedGoldenTranscriptExists) {
  for (const row& r : rows()) {
    if (r.golden.empty()) continue;
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(MCPCXX_SOURCE_DIR) / "tests" /
                                        "golden" / std::string(r.golden)))
        << r.id << " names " << r.golden;
  }
}

}  // namespace
}  // namespace mcpcxx::wire::testing
