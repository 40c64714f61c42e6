// Runs every tests/golden/*.txtar through the stdio transport of each fixture server it names
// (the C++ example server and its Python twin, see fixtures.hpp), compares the replies as JSON,
// and validates each reply against the MCP schema of its revision.
// MCPCXX_UPDATE_GOLDEN=1 rewrites the server sections from the C++ fixture's actual replies.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "http_runner.hpp"
#include "lockstep.hpp"
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

// One transcript against one fixture server.
struct golden_case {
  std::string path;
  std::string fixture;
};

void PrintTo(const golden_case& c, std::ostream* os) { *os << c.path << " (" << c.fixture << ")"; }

// Every (transcript, fixture) pair the transcripts name. A transcript that does not parse still
// gets a case, so the parse error fails a test instead of vanishing.
std::vector<golden_case> golden_cases() {
  std::vector<golden_case> cases;
  for (const auto& path : golden_files()) {
    std::vector<std::string> fixtures = {"cpp"};
    try {
      fixtures = load(path).fixtures;
    } catch (const std::exception&) {
    }
    for (const auto& f : fixtures) cases.push_back({path, f});
  }
  return cases;
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
    // A server-to-client request carries the server's own id: no client request to look up.
    if (r.is_object() && r.contains("id") && !r["id"].is_null() && !r.contains("method")) {
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

// HTTP transcripts: responses in request order, each body checked against the schema of the
// revision its request named.
void check_http(const golden_case& c, const transcript& t, const fixture& f) {
  std::string err;
  int exit_code = 0;
  const std::vector<json> actual = run_http(f.cmd, t, err, exit_code);
  EXPECT_EQ(exit_code, 0) << t.path << "\nstderr:\n" << err.substr(0, 4000);
  const char* update = std::getenv("MCPCXX_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1" && c.fixture == "cpp") {
    save_server_section(t, actual);
    return;
  }
  ASSERT_EQ(actual.size(), t.server.size()) << t.path << " (" << c.fixture << ")\nstderr:\n"
                                            << err.substr(0, 4000);
  static mcp_schema schemas(std::string(MCPCXX_SHARED_DIR) + "/data/mcp-schema");
  const auto requests = http_requests(t);
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(normalize(apply_mask(actual[i], t.mask)).dump(),
              normalize(apply_mask(t.server[i], t.mask)).dump())
        << t.path << " (" << c.fixture << "), request #" << i + 1;
    if (!actual[i].contains("body") || actual[i]["body"].is_string()) continue;
    const auto [rev, method] = http_request_facts(requests[i]);
    EXPECT_EQ(schemas.check(rev, method, actual[i]["body"]), "") << t.path << " #" << i + 1;
  }
}

class golden_test : public ::testing::TestWithParam<golden_case> {};

std::vector<json> parse_lines(const std::vector<std::string>& lines) {
  std::vector<json> replies;
  for (const auto& line : lines) {
    json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stdout carried a non-JSON line: " << line;
    if (!j.is_discarded()) replies.push_back(j);
  }
  return replies;
}

TEST_P(golden_test, replies_match_and_conform_to_the_mcp_schema) {
  const golden_case& c = GetParam();
  const transcript t = load(c.path);
  ASSERT_FALSE(t.client.empty()) << t.path << " has no client section";
  if (!t.pending.empty() && std::getenv("MCPCXX_GOLDEN_PENDING") == nullptr) {
    GTEST_SKIP() << "pending (MCPCXX_GOLDEN_PENDING=1 runs it): " << t.pending;
  }
  if (!selected(c.fixture)) GTEST_SKIP() << "MCPCXX_GOLDEN_FIXTURES leaves out " << c.fixture;
  const fixture& f = find_fixture(c.fixture);
  if (!f.unavailable.empty()) {
    if (in_ci()) FAIL() << "the " << c.fixture << " fixture is missing under CI: " << f.unavailable;
    GTEST_SKIP() << "the " << c.fixture << " fixture is missing: " << f.unavailable;
  }
  if (t.transport == "http") return check_http(c, t, f);
  std::string err;
  int exit_code = 0;
  std::string problem;
  const auto replies = parse_lines(t.lockstep ? run_lockstep(f.cmd, t, err, exit_code, problem)
                                              : run(f.cmd, t, err, exit_code));
  EXPECT_EQ(problem, "") << t.path << " (" << c.fixture << "): the lockstep run stopped";
  // A clean EOF must end the server with status 0 (sanitizer findings make it non-zero).
  EXPECT_EQ(exit_code, 0) << t.path << "\nstderr:\n" << err.substr(0, 4000);
  const char* update = std::getenv("MCPCXX_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1" && c.fixture == "cpp") {
    save_server_section(t, replies);
  } else {
    std::vector<json> expected;
    std::vector<json> masked;
    expected.reserve(t.server.size());
    masked.reserve(replies.size());
    for (const auto& e : t.server) expected.push_back(apply_mask(e, t.mask));
    for (const auto& r : replies) masked.push_back(apply_mask(r, t.mask));
    EXPECT_EQ(compare(expected, masked), "") << t.path << " (" << c.fixture << ")\nstderr:\n"
                                             << err.substr(0, 4000);
  }
  check_schemas(t, replies);
}

INSTANTIATE_TEST_SUITE_P(transcripts, golden_test, ::testing::ValuesIn(golden_cases()),
                         [](const auto& info) {
                           std::string n = fs::path(info.param.path).stem().string();
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n + "_" + info.param.fixture;
                         });

}  // namespace
}  // namespace mcpcxx::golden
