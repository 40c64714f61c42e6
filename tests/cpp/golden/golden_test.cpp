// Runs every tests/golden/*.txtar through the stdio transport of mcpcxx_example_server, compares
// the replies as JSON, and validates each reply against the MCP schema of its revision.
// MCPCXX_UPDATE_GOLDEN=1 rewrites the server sections from the actual replies.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "mcp_schema.hpp"
#include "transcript.hpp"

namespace mcpcxx::golden {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> golden_files() {
  std::vector<std::string> files;
  const fs::path dir = fs::path(MCPCXX_SOURCE_DIR) / "tests" / "golden";
  if (fs::exists(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".txtar") files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Facts from the client side needed to pick each reply's revision and result schema.
struct client_facts {
  std::map<std::string, std::pair<std::string, bool>> requests;  // id -> (method, modern)
  bool any_modern = false;
};

client_facts read_client(const transcript& t) {
  client_facts f;
  for (const auto& line : t.client) {
    json m = json::parse(line, nullptr, false);
    if (!m.is_object() || !m.contains("id") || !m.contains("method") || !m["method"].is_string())
      continue;
    const bool modern = m.contains("params") && m["params"].is_object() &&
                        m["params"].contains("_meta") && m["params"]["_meta"].is_object() &&
                        m["params"]["_meta"].contains("io.modelcontextprotocol/protocolVersion") &&
                        m["method"] != "initialize";
    f.any_modern = f.any_modern || modern;
    f.requests[m["id"].dump()] = {m["method"].get<std::string>(), modern};
  }
  return f;
}

std::string negotiated(const std::vector<json>& replies) {
  for (const auto& r : replies) {
    if (r.is_object() && r.contains("result") && r["result"].is_object() &&
        r["result"].contains("protocolVersion") && r["result"].contains("serverInfo")) {
      return r["result"]["protocolVersion"];
    }
  }
  return "";
}

void check_schemas(const transcript& t, const std::vector<json>& replies) {
  static mcp_schema schemas(std::string(MCPCXX_SHARED_DIR) + "/data/mcp-schema");
  const client_facts f = read_client(t);
  const std::string legacy = negotiated(replies);
  for (const auto& r : replies) {
    std::string method;
    bool modern = legacy.empty() && f.any_modern;
    if (r.is_object() && r.contains("id") && !r["id"].is_null()) {
      auto it = f.requests.find(r["id"].dump());
      if (it != f.requests.end()) {
        method = it->second.first;
        modern = it->second.second;
      }
    }
    const std::string rev = modern ? "2026-07-28" : (legacy.empty() ? "2025-11-25" : legacy);
    EXPECT_EQ(schemas.check(rev, method, r), "") << t.path << ": " << r.dump();
  }
}

class golden_test : public ::testing::TestWithParam<std::string> {};

TEST_P(golden_test, replies_match_and_conform_to_the_mcp_schema) {
  const transcript t = load(GetParam());
  ASSERT_FALSE(t.client.empty()) << t.path << " has no client section";
  std::string err;
  int exit_code = 0;
  const auto lines = run(MCPCXX_EXAMPLE_SERVER, t, err, exit_code);
  // A clean EOF must end the server with status 0 (sanitizer findings make it non-zero).
  EXPECT_EQ(exit_code, 0) << t.path << "\nstderr:\n" << err.substr(0, 4000);
  std::vector<json> replies;
  for (const auto& line : lines) {
    json j = json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "stdout carried a non-JSON line: " << line;
    replies.push_back(j);
  }
  const char* update = std::getenv("MCPCXX_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    save_server_section(t, replies);
  } else {
    EXPECT_EQ(compare(t.server, replies), "") << t.path << "\nstderr:\n" << err.substr(0, 4000);
  }
  check_schemas(t, replies);
}

INSTANTIATE_TEST_SUITE_P(transcripts, golden_test, ::testing::ValuesIn(golden_files()),
                         [](const auto& info) {
                           std::string n = fs::path(info.param).stem().string();
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

// The error-model table is checked against the situation table by tests/cpp/wire/doc_test.cpp.

}  // namespace
}  // namespace mcpcxx::golden
