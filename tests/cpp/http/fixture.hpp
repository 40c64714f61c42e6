// Shared setup of the HTTP transport tests: an engine with a few tools behind an http_server on an
// ephemeral loopback port, plus builders for modern and legacy requests.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mcpcxx/http.hpp"
#include "mcpcxx/mcpcxx.hpp"

#include "http/client.hpp"

namespace mcpcxx::http_test {

inline const std::vector<std::string> k_accept = {"Content-Type: application/json",
                                                  "Accept: application/json, text/event-stream"};

/// Waits (polling) until `pred` holds or 20 s pass; returns the final value. Not a timing check:
/// the deadline only stops a broken build from hanging the suite.
inline bool eventually(const std::function<bool()>& pred) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/// Shared state the fixture tools report into.
struct tool_probe {
  std::atomic<int> slow_started{0};
  std::atomic<int> slow_cancelled{0};
  std::mutex lock;
  std::vector<json> principals;
  std::vector<std::string> log_lines;
  std::optional<cancellation_token> slow_token;  ///< token of the latest slow call
};

inline void add_test_tools(server& s, const std::shared_ptr<tool_probe>& probe) {
  auto add = [&](const std::string& name, tool_handler fn, json schema = {{"type", "object"}}) {
    tool_spec spec;
    spec.name = name;
    spec.description = "test tool " + name;
    spec.input_schema = std::move(schema);
    s.add_tool(std::move(spec), std::move(fn));
  };
  add("echo",
      [](const json& a, request_context&) {
        return tool_result::text(a.value("text", std::string()));
      },
      {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}});
  add("progress", [](const json&, request_context& ctx) {
    for (double p : {1.0, 2.0, 3.0}) ctx.report_progress(p, 3.0);
    return tool_result::text("done");
  });
  add("slow", [probe](const json&, request_context& ctx) {
    {
      std::lock_guard g(probe->lock);
      probe->slow_token = ctx.token();
    }
    ++probe->slow_started;
    for (int i = 0; i < 4000 && !ctx.cancelled(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (ctx.cancelled()) ++probe->slow_cancelled;
    return tool_result::text("finished");
  });
  add("big", [](const json& a, request_context&) {
    return tool_result::text(std::string(a.value("bytes", std::size_t{0}), 'x'));
  });
  add("notify_slow", [](const json&, request_context& ctx) {  // streams, then waits for cancel
    ctx.report_progress(1.0, 2.0);
    for (int i = 0; i < 1000 && !ctx.cancelled(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return tool_result::text("finished");
  });
  add("stubborn", [](const json&, request_context&) {  // ignores cancellation (a blocking tool)
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    return tool_result::text("late");
  });
  add("slow_short", [](const json&, request_context&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return tool_result::text("finished");
  });
  add("whoami", [probe](const json&, request_context& ctx) {
    std::lock_guard g(probe->lock);
    probe->principals.push_back(ctx.principal());
    return tool_result::text(ctx.principal().dump());
  });
  add("region",
      [](const json& a, request_context&) {
        return tool_result::text(a.value("region", std::string()) + "/" +
                                 std::to_string(a.value("count", 0)));
      },
      {{"type", "object"},
       {"properties",
        {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
         {"count", {{"type", "integer"}, {"x-mcp-header", "Count"}}}}}});
}

/// An engine plus a started http_server.
class http_fixture {
 public:
  explicit http_fixture(http_options opts = {}, server_options so = {})
      : probe(std::make_shared<tool_probe>()) {
    so.log_requests = false;
    auto p = probe;
    so.log_writer = [p](std::string_view line) {
      std::lock_guard g(p->lock);
      p->log_lines.emplace_back(line);
    };
    srv = std::make_unique<server>(std::move(so));
    add_test_tools(*srv, probe);
    http = std::make_unique<http_server>(*srv, std::move(opts));
    http->start();
  }
  ~http_fixture() {
    http->stop(std::chrono::milliseconds(2000));
    http.reset();
  }
  std::uint16_t port() const { return http->port(); }

  std::shared_ptr<tool_probe> probe;
  std::unique_ptr<server> srv;
  std::unique_ptr<http_server> http;
};

inline json modern_meta() {
  return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
          {"io.modelcontextprotocol/clientCapabilities", json::object()}};
}

/// A modern request body and the headers SEP-2243 requires for it.
struct modern_request {
  std::string body;
  std::vector<std::string> headers;
};

inline modern_request modern(int id, const std::string& method, json params = json::object()) {
  if (!params.contains("_meta")) params["_meta"] = modern_meta();
  json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
  modern_request r{msg.dump(), k_accept};
  r.headers.push_back("MCP-Protocol-Version: 2026-07-28");
  r.headers.push_back("Mcp-Method: " + method);
  if (params.contains("name") && params["name"].is_string()) {
    r.headers.push_back("Mcp-Name: " + params["name"].get<std::string>());
  }
  if (params.contains("uri") && params["uri"].is_string()) {
    r.headers.push_back("Mcp-Name: " + params["uri"].get<std::string>());
  }
  return r;
}

inline modern_request modern_call(int id, const std::string& tool, json args = json::object()) {
  return modern(id, "tools/call", {{"name", tool}, {"arguments", std::move(args)}});
}

/// Legacy initialize body for `version`.
inline std::string initialize_body(const std::string& version = "2025-11-25", int id = 1) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "initialize"},
              {"params",
               {{"protocolVersion", version},
                {"capabilities", json::object()},
                {"clientInfo", {{"name", "http-test"}, {"version", "1"}}}}}}
      .dump();
}

/// Runs initialize + notifications/initialized; returns the session id.
inline std::string open_legacy_session(client& c, const std::string& version = "2025-11-25",
                                       std::vector<std::string> extra = {}) {
  auto h = k_accept;
  h.insert(h.end(), extra.begin(), extra.end());
  reply init = c.post(initialize_body(version), h);
  EXPECT_EQ(init.status, 200) << init.body;
  std::string sid = init.header("mcp-session-id");
  h.push_back("Mcp-Session-Id: " + sid);
  h.push_back("MCP-Protocol-Version: " + version);
  reply note = c.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", h);
  EXPECT_EQ(note.status, 202);
  return sid;
}

/// Headers for a request on a legacy session.
inline std::vector<std::string> legacy_headers(const std::string& sid,
                                               const std::string& version = "2025-11-25") {
  auto h = k_accept;
  h.push_back("Mcp-Session-Id: " + sid);
  h.push_back("MCP-Protocol-Version: " + version);
  return h;
}

inline std::string legacy_call(int id, const std::string& tool, json args = json::object(),
                               json meta = nullptr) {
  json params = {{"name", tool}, {"arguments", std::move(args)}};
  if (!meta.is_null()) params["_meta"] = std::move(meta);
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}}.dump();
}

}  // namespace mcpcxx::http_test
