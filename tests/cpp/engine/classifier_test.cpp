// The one exception classifier: every handler kind (tool, resource reader, prompt, completion)
// times every exception kind, observed on the wire and in the server log.
#include <functional>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

// The exceptions a handler can raise; `raise(kind)` throws one of them.
enum class raised {
  tool_error_not_found,
  tool_error_unavailable,
  protocol_error,
  missing_capability,
  resource_missing,
  unexpected_foreign,
  std_exception,
  non_standard
};

const raised k_all[] = {raised::tool_error_not_found, raised::tool_error_unavailable,
                        raised::protocol_error,       raised::missing_capability,
                        raised::resource_missing,     raised::unexpected_foreign,
                        raised::std_exception,        raised::non_standard};

[[noreturn]] void raise(raised r) {
  switch (r) {
    case raised::tool_error_not_found:
      throw tool_error("Ticket lookup failed: ticket T-9 does not exist. List tickets first.",
                       error_category::not_found, false, "T-9");
    case raised::tool_error_unavailable:
      throw tool_error("Ticket service is down. Retry in a minute.", error_category::unavailable,
                       true);
    case raised::protocol_error:
      throw protocol_error(-31000, "Quota exhausted", {{"quota", "daily"}});
    case raised::missing_capability:
      throw missing_client_capability(json{{"elicitation", json::object()}});
    case raised::resource_missing:
      throw resource_not_found("file:///gone.txt");
    case raised::unexpected_foreign:
      throw unexpected_error("ValueError: boom",
                             "Traceback (most recent call last):\n  boom-frame");
    case raised::std_exception:
      throw std::runtime_error("secret-detail-42");
    case raised::non_standard:
      throw 42;
  }
  throw 0;
}

std::string name_of(raised r) { return std::to_string(static_cast<int>(r)); }

class classifier_test : public ::testing::Test {
 protected:
  captured_log log;
  std::unique_ptr<server> srv;

  void SetUp() override {
    srv = std::make_unique<server>(log.options());
    for (raised r : k_all) {
      const std::string n = name_of(r);
      srv->add_tool({.name = "t" + n},
                    [r](const json&, request_context&) -> tool_result { raise(r); });
      srv->add_resource({.uri = "mem://r" + n, .name = "r" + n},
                        [r](const std::string&,
                            request_context&) -> std::vector<resource_contents> { raise(r); });
      srv->add_prompt({.name = "p" + n},
                      [r](const std::map<std::string, std::string>&,
                          request_context&) -> prompt_result { raise(r); });
    }
    srv->set_completion_handler(
        [](const completion_request& req, request_context&) -> completion_result {
          raise(static_cast<raised>(std::stoi(req.argument_value)));
        });
  }

  // One request per handler kind, raising `r`, in the given era.
  json call(harness& h, const std::string& kind, raised r, bool modern) {
    const std::string n = name_of(r);
    std::string method;
    json params;
    if (kind == "tool") {
      method = "tools/call";
      params = {{"name", "t" + n}};
    } else if (kind == "resource") {
      method = "resources/read";
      params = {{"uri", "mem://r" + n}};
    } else if (kind == "prompt") {
      method = "prompts/get";
      params = {{"name", "p" + n}};
    } else {
      method = "completion/complete";
      params = {{"ref", {{"type", "ref/prompt"}, {"name", "p0"}}},
                {"argument", {{"name", "a"}, {"value", n}}}};
    }
    return h.roundtrip(modern ? modern_request(1, method, params) : request(1, method, params));
  }

  bool logged(const std::string& reference, const std::string& needle) const {
    for (const auto& line : log.snapshot()) {
      if (line.find(reference) != std::string::npos && line.find(needle) != std::string::npos) {
        return true;
      }
    }
    return false;
  }
};

const char* const k_non_tool_kinds[] = {"resource", "prompt", "completion"};

TEST_F(classifier_test, tool_errors_keep_their_category_in_every_handler_kind) {
  harness h(*srv);
  json t = call(h, "tool", raised::tool_error_not_found, true);
  ASSERT_TRUE(t.contains("result")) << t.dump();
  EXPECT_EQ(t["result"]["isError"], true);
  EXPECT_EQ(t["result"]["_meta"]["mcpcxx/error"]["category"], "not_found");
  for (const char* kind : k_non_tool_kinds) {
    json r = call(h, kind, raised::tool_error_not_found, true);
    ASSERT_TRUE(r.contains("error")) << kind << r.dump();
    EXPECT_EQ(r["error"]["code"], -32602) << kind;  // client-side category
    EXPECT_EQ(r["error"]["message"],
              "Ticket lookup failed: ticket T-9 does not exist. List tickets first.");
    EXPECT_EQ(r["error"]["data"]["category"], "not_found") << kind;
    json u = call(h, kind, raised::tool_error_unavailable, true);
    EXPECT_EQ(u["error"]["code"], -32603) << kind;  // server-side category
    EXPECT_EQ(u["error"]["data"]["category"], "unavailable") << kind;
    EXPECT_EQ(u["error"]["data"]["retryable"], true) << kind;
  }
}

TEST_F(classifier_test, protocol_errors_pass_through_from_every_handler_kind) {
  harness h(*srv);
  for (const char* kind : {"tool", "resource", "prompt", "completion"}) {
    json r = call(h, kind, raised::protocol_error, true);
    EXPECT_EQ(r["error"]["code"], -31000) << kind << r.dump();
    EXPECT_EQ(r["error"]["message"], "Quota exhausted") << kind;
    EXPECT_EQ(r["error"]["data"]["quota"], "daily") << kind;
  }
}

TEST_F(classifier_test, resource_not_found_is_not_found_wherever_raised) {
  harness h(*srv);
  json t = call(h, "tool", raised::resource_missing, true);
  ASSERT_TRUE(t.contains("result")) << t.dump();
  EXPECT_EQ(t["result"]["isError"], true);
  const json& d = t["result"]["_meta"]["mcpcxx/error"];
  EXPECT_EQ(d["category"], "not_found");
  EXPECT_EQ(d["resource"], "file:///gone.txt");
  const std::string text = t["result"]["content"][0]["text"];
  EXPECT_NE(text.find("List resources"), std::string::npos) << text;
  EXPECT_EQ(text.find("internal error"), std::string::npos) << text;
  for (const char* kind : k_non_tool_kinds) {
    json modern = call(h, kind, raised::resource_missing, true);
    EXPECT_EQ(modern["error"]["code"], -32602) << kind << modern.dump();
    EXPECT_EQ(modern["error"]["data"]["uri"], "file:///gone.txt") << kind;
  }
  harness legacy(*srv);
  legacy.initialize();
  for (const char* kind : k_non_tool_kinds) {
    EXPECT_EQ(call(legacy, kind, raised::resource_missing, false)["error"]["code"], -32002) << kind;
  }
}

TEST_F(classifier_test, missing_client_capability_is_the_eras_row_in_every_handler_kind) {
  harness modern(*srv);
  harness legacy(*srv);
  legacy.initialize();
  for (const char* kind : {"tool", "resource", "prompt", "completion"}) {
    json m = call(modern, kind, raised::missing_capability, true);
    EXPECT_EQ(m["error"]["code"], -32021) << kind << m.dump();
    EXPECT_EQ(m["error"]["data"]["requiredCapabilities"], json({{"elicitation", json::object()}}));
    json l = call(legacy, kind, raised::missing_capability, false);
    EXPECT_EQ(l["error"]["code"], -32600) << kind << l.dump();
    EXPECT_EQ(l["error"]["data"]["requiredCapabilities"], json({{"elicitation", json::object()}}));
  }
}

TEST_F(classifier_test, unexpected_failures_get_a_reference_and_their_detail_is_logged) {
  harness h(*srv);
  for (raised r : {raised::unexpected_foreign, raised::std_exception, raised::non_standard}) {
    json t = call(h, "tool", r, true);
    ASSERT_TRUE(t.contains("result")) << t.dump();
    EXPECT_EQ(t["result"]["isError"], true);
    const std::string ref = t["result"]["_meta"]["mcpcxx/error"]["reference"];
    EXPECT_EQ(t.dump().find("secret-detail-42"), std::string::npos);
    EXPECT_EQ(t.dump().find("boom-frame"), std::string::npos);
    EXPECT_TRUE(logged(ref, "tool_exception")) << ref;
    for (const char* kind : k_non_tool_kinds) {
      json e = call(h, kind, r, true);
      ASSERT_EQ(e["error"]["code"], -32603) << kind << e.dump();
      const std::string eref = e["error"]["data"]["reference"];
      EXPECT_EQ(e.dump().find("secret-detail-42"), std::string::npos) << kind;
      EXPECT_EQ(e.dump().find("boom-frame"), std::string::npos) << kind;
      EXPECT_TRUE(logged(eref, "handler_exception")) << kind;
    }
  }
  // The full detail (a Python traceback, a what()) is in the log under the reference.
  json e = call(h, "resource", raised::unexpected_foreign, true);
  EXPECT_TRUE(logged(e["error"]["data"]["reference"], "boom-frame"));
  json s = call(h, "prompt", raised::std_exception, true);
  EXPECT_TRUE(logged(s["error"]["data"]["reference"], "secret-detail-42"));
}

}  // namespace
}  // namespace mcpcxx::testing
