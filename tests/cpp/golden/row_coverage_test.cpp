// Every row of the situation table (as documented in docs/error-model.md, which the wire layer's
// own test keeps equal to the table) must be named by a golden transcript ("rows:" in its meta
// section) whose expected replies contain that row's error: the row's JSON-RPC code and a message
// matching its template, or for T rows an isError result with the row's category and text.
// The golden tests themselves prove the expected replies equal what both fixtures send.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "transcript.hpp"

namespace mcpcxx::golden {
namespace {

namespace fs = std::filesystem;

// One documented row: its id and the cells the check needs.
struct doc_row {
  std::string id;
  std::string code;      ///< "-32600", or text such as "handler's" (any code)
  std::string category;  ///< T rows: "invalid_arguments", or text such as "the error's" (any)
  std::string message;   ///< the template cell, with `code spans` holding the template text
  std::string http;      ///< the HTTP status when it does not depend on the era ("413")
};

void PrintTo(const doc_row& r, std::ostream* os) { *os << r.id; }

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool in_code = false;
  for (std::size_t i = 1; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '`') in_code = !in_code;
    if (c == '|' && !in_code) {
      const auto b = cell.find_first_not_of(' ');
      const auto e = cell.find_last_not_of(' ');
      out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += c;
    }
  }
  return out;
}

int column(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    for (const char* n : names) {
      if (header[i] == n) return static_cast<int>(i);
    }
  }
  return -1;
}

// "413", or "413 / 413" when both eras agree; "" when the status depends on the era.
std::string http_status(const std::string& cell) {
  const auto slash = cell.find(" / ");
  if (slash == std::string::npos) return cell;
  const std::string legacy = cell.substr(0, slash);
  return legacy == cell.substr(slash + 3) ? legacy : "";
}

std::vector<doc_row> documented_rows() {
  std::ifstream doc(fs::path(MCPCXX_SOURCE_DIR) / "docs" / "error-model.md");
  static const std::regex id_re("^[PTH][0-9]+[a-z]*$");
  std::vector<doc_row> rows;
  std::vector<std::string> header;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    const auto c = cells(line);
    if (c.empty()) continue;
    if (c[0] == "#" || c[0] == "Id" || c[0] == "Row") {
      header = c;
      continue;
    }
    if (!std::regex_match(c[0], id_re)) continue;
    auto at = [&](int i) { return i >= 0 && i < static_cast<int>(c.size()) ? c[i] : ""; };
    rows.push_back({c[0], at(column(header, {"Code", "JSON-RPC code"})),
                    at(column(header, {"category", "Category"})),
                    at(column(header, {"Message template", "Text template", "Body message template",
                                       "Message", "Text"})),
                    http_status(at(column(header, {"HTTP", "HTTP legacy / modern"})))});
  }
  return rows;
}

std::string escape(const std::string& s) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(s, special, R"(\$&)");
}

// One template (a code span of the generated table) as a regex: "{arg}", "{arg:fmt}", "<what>"
// and "…" match any text, "[optional]" segments may be absent, and the two characters "\n" stand
// for a line break.
std::regex template_regex(std::string tmpl) {
  for (std::size_t at; (at = tmpl.find("\\n")) != std::string::npos;) tmpl.replace(at, 2, "\n");
  static const std::regex placeholder(R"(\\\{[^}]*\\\}|<[^>]*>|…)");
  const std::string re = std::regex_replace(escape(tmpl), placeholder, "\x01");
  std::string out;
  for (char ch : re) out += ch == '\x01' ? std::string("[\\s\\S]*?") : std::string(1, ch);
  const std::string optional = std::regex_replace(
      std::regex_replace(out, std::regex(R"(\\\[)"), "(?:"), std::regex(R"(\\\])"), ")?");
  try {
    return std::regex(optional);
  } catch (const std::regex_error&) {
    return std::regex(out);  // unbalanced brackets in the template: take them literally
  }
}

std::vector<std::regex> templates(const std::string& cell) {
  std::vector<std::regex> out;
  std::size_t pos = 0;
  while ((pos = cell.find('`', pos)) != std::string::npos) {
    const auto end = cell.find('`', pos + 1);
    if (end == std::string::npos) break;
    out.push_back(template_regex(cell.substr(pos + 1, end - pos - 1)));
    pos = end + 1;
  }
  return out;
}

bool matches_any(const std::string& text, const std::vector<std::regex>& res) {
  if (res.empty()) return true;  // the row's text is the handler's own
  return std::any_of(res.begin(), res.end(),
                     [&](const std::regex& r) { return std::regex_search(text, r); });
}

bool is_number(const std::string& s) { return std::regex_match(s, std::regex("-?[0-9]+")); }

bool reply_shows_row(const json& m, const doc_row& row) {
  const auto res = templates(row.message);
  if (row.id[0] == 'T') {
    if (!m.contains("result") || !m["result"].is_object()) return false;
    const json& r = m["result"];
    if (!r.value("isError", false)) return false;
    const std::string cat = r.value("/_meta/mcpcxx~1error/category"_json_pointer, std::string());
    const bool one_category = std::regex_match(row.category, std::regex("[a-z_]+"));
    if (one_category && cat != row.category) return false;
    std::string text;
    for (const auto& c : r.value("content", json::array())) text += c.value("text", "") + "\n";
    return matches_any(text, res);
  }
  if (!m.contains("error") || !m["error"].is_object()) return false;
  const json& e = m["error"];
  if (is_number(row.code) && e.value("code", 0) != std::stoi(row.code)) return false;
  return matches_any(e.value("message", ""), res);
}

std::vector<transcript> transcripts() {
  std::vector<transcript> out;
  for (const auto& e : fs::directory_iterator(fs::path(MCPCXX_SOURCE_DIR) / "tests" / "golden")) {
    if (e.path().extension() == ".txtar") out.push_back(load(e.path().string()));
  }
  return out;
}

class row_coverage : public ::testing::TestWithParam<doc_row> {};

// A stdio reply, a batch of them, or an HTTP exchange {"status", "body"} whose status must be the
// row's (when the row has one status for both eras) and whose body holds the reply.
bool entry_shows_row(const json& entry, const doc_row& row) {
  json body = entry;
  if (entry.is_object() && entry.contains("status")) {
    if (is_number(row.http) && entry["status"] != std::stoi(row.http)) return false;
    body = entry.value("body", json());
  }
  const json members = body.is_array() ? body : json::array({body});
  return std::any_of(members.begin(), members.end(),
                     [&](const json& m) { return m.is_object() && reply_shows_row(m, row); });
}

bool transcript_shows_row(const transcript& t, const doc_row& row) {
  return std::any_of(t.server.begin(), t.server.end(),
                     [&](const json& e) { return entry_shows_row(e, row); });
}

// Rows no transcript can show, and why (tests/golden/README.md). A listed row that a transcript
// names fails the test, so the list cannot go stale; an id that is no documented row fails too.
// Each exemption says why no transcript can show the row and names the test that asserts it.
// (The lockstep runner answers server-to-client requests and carries a requestState from one
// reply to a later request (stdio), and the HTTP runner carries one between requests.)
const std::map<std::string, std::string>& rows_without_transcript() {
  static const std::map<std::string, std::string> m = {
      {"P53",
       "a task fails this way only when the replica running it stops while another replica "
       "shares its Redis store; tests/cpp/store/task_store_redis_test.cpp "
       "(RedisTaskReplicas.ATaskWhoseReplicaDiedFailsWithTheOutcomeUnknown) asserts its code and "
       "text"},
      {"P57",
       "the shared store must be down while the server runs; tests/cpp/replicas/replicas_test.cpp "
       "(replicas.with_redis_down_plain_calls_go_on_and_task_calls_get_the_documented_rows) "
       "kills a real redis-server and asserts its code and text"},
      {"P63",
       "only the mcpcxx dev proxy (python/mcpcxx/cli) answers with it, when the server process "
       "it forwards to exits before answering; tests/python/test_cli_dev.py "
       "(test_a_crashed_server_answers_its_call_and_starts_again_on_the_next_edit) asserts its "
       "code, text and data"},
      {"H51",
       "a legacy session held by another replica while the shared store is down; "
       "tests/cpp/http/redis_revival_test.cpp asserts its status and text with a real "
       "redis-server that it stops"},
  };
  return m;
}

// Every transcript that names the row must show it, and at least one must name it.
TEST_P(row_coverage, a_transcript_names_the_row_and_asserts_its_code_and_message) {
  const doc_row& row = GetParam();
  const auto exempt = rows_without_transcript().find(row.id);
  int naming = 0;
  for (const auto& t : transcripts()) {
    if (!t.pending.empty() || std::find(t.rows.begin(), t.rows.end(), row.id) == t.rows.end())
      continue;
    ++naming;
    EXPECT_TRUE(transcript_shows_row(t, row))
        << fs::path(t.path).filename().string() << " names row " << row.id
        << " but none of its expected replies has code " << row.code << " / category "
        << row.category << " with a message matching " << row.message;
  }
  if (exempt != rows_without_transcript().end()) {
    ASSERT_EQ(naming, 0) << row.id << " now has a transcript: drop it from rows_without_transcript";
    GTEST_SKIP() << row.id << " has no transcript: " << exempt->second;
  }
  EXPECT_GT(naming, 0) << "no transcript names row " << row.id << " in its rows: line";
}

INSTANTIATE_TEST_SUITE_P(documented, row_coverage, ::testing::ValuesIn(documented_rows()),
                         [](const auto& info) { return info.param.id; });

TEST(row_coverage_doc, every_exemption_names_a_documented_row) {
  const auto rows = documented_rows();
  for (const auto& [id, why] : rows_without_transcript()) {
    // A named copy: clang before 16 cannot capture a structured binding in a lambda.
    const auto& exempt = id;
    EXPECT_TRUE(
        std::any_of(rows.begin(), rows.end(), [&](const doc_row& r) { return r.id == exempt; }))
        << id << " is exempt (" << why << ") but is no row of docs/error-model.md";
  }
}

TEST(row_coverage_doc, the_table_is_found_and_parsed) {
  const auto rows = documented_rows();
  EXPECT_GE(rows.size(), 30u);
  for (const auto& r : rows) {
    if (r.id[0] == 'T') {
      EXPECT_FALSE(r.category.empty()) << r.id;
    } else {
      EXPECT_FALSE(r.code.empty()) << r.id;
    }
  }
}

TEST(row_coverage_doc, templates_match_their_renderings_and_nothing_else) {
  const doc_row p8{"P8", "-32601", "", "`Method not found: {method}. Check the method name`"};
  const json hit = {{"error",
                     {{"code", -32601},
                      {"message",
                       "Method not found: x/y. Check the "
                       "method name against V"}}}};
  EXPECT_TRUE(reply_shows_row(hit, p8));
  json wrong_code = hit;
  wrong_code["error"]["code"] = -32600;
  EXPECT_FALSE(reply_shows_row(wrong_code, p8));
  json wrong_text = hit;
  wrong_text["error"]["message"] = "Unknown method x/y";
  EXPECT_FALSE(reply_shows_row(wrong_text, p8));
  const doc_row t2{"T2", "", "the error's", "`{message}`"};
  const json tool_error = {{"result",
                            {{"isError", true},
                             {"content", {{{"type", "text"}, {"text", "Lookup failed: x."}}}},
                             {"_meta", {{"mcpcxx/error", {{"category", "not_found"}}}}}}}};
  EXPECT_TRUE(reply_shows_row(tool_error, t2));
  const doc_row t5{"T5", "", "timeout", "`{name} timed out after {seconds:g} s.`"};
  EXPECT_FALSE(reply_shows_row(tool_error, t5));
}

}  // namespace
}  // namespace mcpcxx::golden
