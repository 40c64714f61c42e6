// The lockstep runner itself: the transcript syntax it needs is checked when loading, and a run
// that cannot follow its transcript reports why instead of passing or hanging.
#include "lockstep.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace mcpcxx::golden {
namespace {

namespace fs = std::filesystem;

// Loads `text` as a transcript file (written to the temp directory, removed again).
transcript load_text(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("mcpcxx_lockstep_" + name + ".txtar");
  std::ofstream(p) << text;
  struct remover {
    fs::path p;
    ~remover() { fs::remove(p); }
  } cleanup{p};
  return load(p.string());
}

const std::string k_init =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{"sampling":{}},"clientInfo":{"name":"golden","version":"1"}}})";

TEST(golden_lockstep_load, an_answers_section_needs_lockstep) {
  EXPECT_THROW(
      load_text("no_lockstep", "p\n-- meta --\nfixtures: cpp\n-- answers --\nroots/list never\n"),
      std::runtime_error);
}

TEST(golden_lockstep_load, a_bad_answer_line_names_its_line) {
  try {
    load_text("bad_answer",
              "p\n-- meta --\nfixtures: cpp\nlockstep: yes\n-- answers --\nroots/list maybe {}\n");
    FAIL() << "an answer kind other than result, error or never was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":6:"), std::string::npos) << e.what();
  }
}

TEST(golden_lockstep_load, answers_are_read_in_order_with_their_json) {
  const transcript t = load_text(
      "good",
      "p\n-- meta --\nfixtures: cpp\nlockstep: yes\n-- answers --\n"
      "roots/list result {\"roots\":[]}\nroots/list error {\"code\":-1,\"message\":\"x\"}\n"
      "sampling/createMessage never\n-- client --\n{}\n");
  ASSERT_TRUE(t.lockstep);
  ASSERT_EQ(t.answers.size(), 3u);
  EXPECT_EQ(t.answers[0].kind, "result");
  EXPECT_EQ(t.answers[0].value, json::parse(R"({"roots":[]})"));
  EXPECT_EQ(t.answers[1].kind, "error");
  EXPECT_EQ(t.answers[2].kind, "never");
  EXPECT_TRUE(t.answers[2].value.is_null());
}

// Runs `client` lines in lockstep against the C++ fixture with the asking tools.
std::string problem_of(const std::vector<std::string>& client) {
  const fixture& f = find_fixture("cpp");
  if (!f.unavailable.empty()) return "skip: " + f.unavailable;
  transcript t;
  t.lockstep = true;
  t.env = {"MCPCXX_EXAMPLE_ASKING=1"};
  t.client = client;
  std::string err, problem;
  int exit_code = 0;
  run_lockstep(f.cmd, t, err, exit_code, problem);
  return problem;
}

TEST(golden_lockstep_run, a_server_request_without_an_answer_stops_the_run) {
  const std::string problem =
      problem_of({k_init, R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                  R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample"}})"});
  if (problem.rfind("skip: ", 0) == 0) GTEST_SKIP() << problem;
  EXPECT_NE(problem.find("no answer left"), std::string::npos) << problem;
  EXPECT_NE(problem.find("sampling/createMessage"), std::string::npos) << problem;
}

TEST(golden_lockstep_run, a_request_state_placeholder_needs_an_earlier_state) {
  const std::string problem = problem_of({R"({"jsonrpc":"2.0","id":1,"method":"ping",)"
                                          R"("params":{"requestState":"{REQUEST_STATE}"}})"});
  if (problem.rfind("skip: ", 0) == 0) GTEST_SKIP() << problem;
  EXPECT_NE(problem.find("{REQUEST_STATE} before any reply"), std::string::npos) << problem;
}

TEST(golden_lockstep_run, a_server_that_exits_early_fails_the_run_without_killing_the_runner) {
  transcript t;
  t.lockstep = true;
  t.client = {R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
              R"({"jsonrpc":"2.0","id":2,"method":"ping"})"};
  std::string err, problem;
  int exit_code = 0;
  const auto lines = run_lockstep({.argv = {"true"}, .env = {}}, t, err, exit_code, problem);
  EXPECT_TRUE(lines.empty());
  EXPECT_FALSE(problem.empty());
}

TEST(golden_lockstep_normalize, every_request_state_compares_as_the_placeholder) {
  const json a = json::parse(R"({"id":1,"result":{"requestState":"AQAAabc","x":"y"}})");
  const json b = json::parse(R"({"id":1,"result":{"requestState":"{REQUEST_STATE}","x":"y"}})");
  EXPECT_EQ(normalize(a), normalize(b));
  EXPECT_NE(normalize(a), normalize(json::parse(R"({"id":1,"result":{"x":"y"}})")));
}

}  // namespace
}  // namespace mcpcxx::golden
