// The model types' JSON forms: primitives as their MCP wire objects, options by member name,
// round trips, defaults for absent keys, and errors that name the key and what it must be.
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mcpcxx/model.hpp"
#include "mcpcxx/primitives.hpp"

#include "support/refusal.hpp"

namespace mcpcxx {
namespace {

using ::testing::HasSubstr;

using ::mcpcxx::testing::refusal;

TEST(ModelJson, ToolSpecIsTheToolObject) {
  tool_spec s;
  s.name = "lookup";
  s.description = "Find an issue";
  s.output_schema = json{{"type", "object"}};
  s.annotations = {{"readOnlyHint", true}};
  const json j = s;
  EXPECT_EQ(j, (json{{"name", "lookup"},
                     {"description", "Find an issue"},
                     {"inputSchema", {{"type", "object"}}},
                     {"outputSchema", {{"type", "object"}}},
                     {"annotations", {{"readOnlyHint", true}}}}));
  const auto back = j.get<tool_spec>();
  EXPECT_EQ(json(back), j);
  EXPECT_FALSE(back.title.has_value());
  EXPECT_TRUE(back.icons.is_null());
}

TEST(ModelJson, AbsentInputSchemaKeepsTheDefault) {
  const json bare = {{"name", "x"}};
  EXPECT_EQ(bare.get<tool_spec>().input_schema, (json{{"type", "object"}}));
}

TEST(ModelJson, ToolResultRoundTripsAndOmitsDefaults) {
  tool_result r = tool_result::text("hi");
  EXPECT_EQ(json(r), (json{{"content", {{{"type", "text"}, {"text", "hi"}}}}}));
  r.is_error = true;
  r.structured_content = json{{"k", 1}};
  r.meta = {{"m", true}};
  const json j = r;
  EXPECT_EQ(j["isError"], true);
  EXPECT_EQ(json(j.get<tool_result>()), j);
  EXPECT_EQ(json::object().get<tool_result>().content, json::array());
}

TEST(ModelJson, ToolResultRefusalsNameTheKey) {
  EXPECT_EQ(refusal<tool_result>(json::array()), "CallToolResult must be a JSON object, got array");
  EXPECT_THAT(refusal<tool_result>({{"content", "text"}}),
              HasSubstr("CallToolResult: 'content' must be a list of content blocks, got string"));
  EXPECT_THAT(refusal<tool_result>({{"content", json::array()}, {"isError", 1}}),
              HasSubstr("'isError' must be a boolean, got number 1"));
}

TEST(ModelJson, ResourcesTemplatesAndContents) {
  resource_spec r{"file:///a", "a",     std::nullopt, "A file", "text/plain",
                  12,          nullptr, nullptr,      nullptr};
  const json rj = r;
  EXPECT_EQ(rj, (json{{"uri", "file:///a"},
                      {"name", "a"},
                      {"description", "A file"},
                      {"mimeType", "text/plain"},
                      {"size", 12}}));
  EXPECT_EQ(json(rj.get<resource_spec>()), rj);
  resource_template_spec t;
  t.uri_template = "issues://{key}";
  t.name = "issue";
  EXPECT_EQ(json(t), (json{{"uriTemplate", "issues://{key}"}, {"name", "issue"}}));
  EXPECT_EQ(json(json(t).get<resource_template_spec>()), json(t));
  const json blob = {{"uri", "file:///b"}, {"blob", "AAE="}};
  EXPECT_EQ(json(blob.get<resource_contents>()), blob);
  EXPECT_THAT(refusal<resource_contents>({{"uri", "u"}}),
              HasSubstr("needs exactly one of 'text' and 'blob'"));
  EXPECT_THAT(refusal<resource_contents>({{"uri", "u"}, {"text", "a"}, {"blob", "b"}}),
              HasSubstr("needs exactly one of 'text' and 'blob'"));
  EXPECT_THAT(refusal<resource_spec>({{"name", "x"}}),
              HasSubstr("Resource: 'uri' must be a string, got null"));
  EXPECT_THAT(refusal<resource_spec>({{"uri", "u"}, {"name", "x"}, {"size", 1.5}}),
              HasSubstr("'size' must be a 64-bit integer"));
}

TEST(ModelJson, PromptsAndTheirResults) {
  prompt_spec p;
  p.name = "summarize";
  p.arguments = {{"text", std::nullopt, "What to summarize", true}};
  const json j = p;
  EXPECT_EQ(j["arguments"],
            (json{{{"name", "text"}, {"description", "What to summarize"}, {"required", true}}}));
  EXPECT_EQ(json(j.get<prompt_spec>()), j);
  EXPECT_FALSE(json(prompt_spec{"bare", {}, {}, {}, nullptr, nullptr}).contains("arguments"));
  const json result = {{"description", "d"}, {"messages", json::array()}};
  EXPECT_EQ(json(result.get<prompt_result>()), result);
  EXPECT_THAT(refusal<prompt_result>(json::object()),
              HasSubstr("GetPromptResult: 'messages' must be a list of messages, got null"));
  EXPECT_THAT(refusal<prompt_spec>({{"name", "p"}, {"arguments", {{{"name", 3}}}}}),
              HasSubstr("PromptArgument: 'name' must be a string, got number 3"));
}

TEST(ModelJson, CompletionRequestIsTheCompleteRequestParams) {
  completion_request r{"ref/resource", "issues://{key}", "key", "EN", {{"project", "eng"}}};
  const json j = r;
  EXPECT_EQ(j, (json{{"ref", {{"type", "ref/resource"}, {"uri", "issues://{key}"}}},
                     {"argument", {{"name", "key"}, {"value", "EN"}}},
                     {"context", {{"arguments", {{"project", "eng"}}}}}}));
  EXPECT_EQ(json(j.get<completion_request>()), j);
  EXPECT_THAT(refusal<completion_request>(
                  {{"ref", {{"type", "ref/tool"}}}, {"argument", {{"name", "a"}, {"value", ""}}}}),
              HasSubstr("'type' must be \"ref/prompt\" or \"ref/resource\""));
}

TEST(ModelJson, CompletionResult) {
  completion_result r{{"a", "b"}, 10, true};
  const json j = r;
  EXPECT_EQ(j, (json{{"values", {"a", "b"}}, {"total", 10}, {"hasMore", true}}));
  EXPECT_EQ(json(j.get<completion_result>()), j);
  EXPECT_THAT(refusal<completion_result>({{"values", {1}}}),
              HasSubstr("Completion: 'values' must be a list of strings"));
  EXPECT_THAT(refusal<completion_result>(json::object()),
              HasSubstr("'values' must be a list of strings, got null"));
}

TEST(ModelJson, ServerOptionsReadOnlyWhatIsPresent) {
  const json j = {{"info", {{"name", "srv"}, {"websiteUrl", "https://example.com"}}},
                  {"worker_threads", 3},
                  {"max_worker_threads", 40},
                  {"long_handler_after", 2.5},
                  {"max_message_bytes", 1024},
                  {"instructions", nullptr}};
  const auto o = j.get<server_options>();
  EXPECT_EQ(o.info.name, "srv");
  EXPECT_EQ(o.info.version, server_options{}.info.version);
  EXPECT_EQ(o.info.website_url, "https://example.com");
  EXPECT_EQ(o.worker_threads, 3u);
  EXPECT_EQ(o.max_worker_threads, 40u);
  EXPECT_EQ(o.long_handler_after, std::chrono::milliseconds(2500));
  EXPECT_EQ(o.limits.max_message_bytes, 1024u);
  EXPECT_EQ(o.page_size, server_options{}.page_size);
  EXPECT_EQ(json(json(o).get<server_options>()), json(o));
  EXPECT_EQ(refusal<server_options>({{"workers", 2}}),
            "unexpected server option 'workers'; known options: info, instructions, "
            "expose_exception_details, max_message_bytes, max_depth, page_size, list_ttl_ms, "
            "cache_scope, worker_threads, max_worker_threads, max_stuck_workers, "
            "long_handler_after, max_batch_members, "
            "max_batch_reply_bytes, max_listeners, max_listen_uris, listener_queue, "
            "assert_formats, log_requests, log_threshold, logging, extra_capabilities, "
            "client_request_timeout, request_state_key, request_state_previous_keys, "
            "request_state_ttl_s, request_state_key_configured, max_tasks, task_default_ttl_ms, "
            "task_max_ttl_ms, task_poll_interval_ms, task_threads, store, store_key_prefix, "
            "store_timeout, task_lease, store_configured, at_most_once");
  const json timeout = {{"client_request_timeout", 2.5}};
  EXPECT_EQ(timeout.get<server_options>().client_request_timeout, std::chrono::milliseconds(2500));
  const auto batch = json{{"max_batch_members", 5}}.get<server_options>();
  EXPECT_EQ(batch.max_batch_members, 5u);
  EXPECT_THAT(refusal<server_options>({{"worker_threads", -1}}),
              HasSubstr("'worker_threads' must be an integer >= 0, got number -1"));
  EXPECT_THAT(refusal<server_options>({{"logging", "yes"}}),
              HasSubstr("'logging' must be a boolean"));
  const json quiet = {{"log_threshold", "warning"}};
  EXPECT_EQ(quiet.get<server_options>().log_threshold, log_level::warning);
  EXPECT_THAT(refusal<server_options>({{"log_threshold", "loud"}}), HasSubstr("'log_threshold'"));
}

TEST(ModelJson, AtMostOnceOptionsAreOneObject) {
  const auto o = json::parse(R"({"at_most_once":{"max_result_bytes":10,"max_records":5,)"
                             R"("lease":1.5,"warn_destructive":false}})")
                     .get<server_options>();
  EXPECT_EQ(o.at_most_once.max_result_bytes, 10u);
  EXPECT_EQ(o.at_most_once.max_records, 5u);
  EXPECT_EQ(o.at_most_once.lease, std::chrono::milliseconds(1500));
  EXPECT_FALSE(o.at_most_once.warn_destructive);
  EXPECT_EQ(json(o)["at_most_once"]["lease"], 1.5);
  EXPECT_EQ(json(json(o).get<server_options>()), json(o));
  EXPECT_THAT(refusal<server_options>({{"at_most_once", {{"window", 1}}}}),
              HasSubstr("unexpected at_most_once server option 'window'"));
  EXPECT_THAT(refusal<server_options>({{"at_most_once", {{"lease", 0}}}}), HasSubstr("'lease'"));
  EXPECT_THAT(refusal<server_options>({{"at_most_once", {{"max_records", 0}}}}),
              HasSubstr("'max_records'"));
  EXPECT_THAT(refusal<server_options>({{"at_most_once", 5}}), HasSubstr("at_most_once"));
}

TEST(ModelJson, RequestStateKeysAreReadButNeverWritten) {
  const json j = {{"request_state_key", "current-secret"},
                  {"request_state_previous_keys", {"old-secret"}},
                  {"request_state_ttl_s", 30}};
  const auto o = j.get<server_options>();
  EXPECT_EQ(o.request_state_key, "current-secret");
  EXPECT_EQ(o.request_state_previous_keys, std::vector<std::string>{"old-secret"});
  EXPECT_EQ(o.request_state_ttl_s, 30);
  const json out = o;
  EXPECT_EQ(out.dump().find("secret"), std::string::npos);
  EXPECT_EQ(out["request_state_key_configured"], true);
  EXPECT_EQ(out["request_state_ttl_s"], 30);
  EXPECT_EQ(json(server_options{})["request_state_key_configured"], false);
  EXPECT_THAT(refusal<server_options>({{"request_state_previous_keys", "one"}}),
              HasSubstr("request_state_previous_keys"));
}

TEST(ModelJson, TaskOptionsAreFlatKeys) {
  const auto o = json{
      {"max_tasks", 2},
      {"task_default_ttl_ms", 1000},
      {"task_max_ttl_ms", 5000},
      {"task_poll_interval_ms", 50},
      {"task_threads",
       3}}.get<server_options>();
  EXPECT_EQ(o.tasks.default_ttl_ms, 1000);
  EXPECT_EQ(o.tasks.max_ttl_ms, 5000);
  EXPECT_EQ(o.tasks.poll_interval_ms, 50);
  EXPECT_EQ(o.tasks.threads, 3u);
  ASSERT_TRUE(o.tasks.store);
  task_record r;
  r.ttl_ms = 60000;
  r.created_at = task_record::clock::now();
  for (const char* id : {"a", "b", "c"}) {
    r.task_id = id;
    o.tasks.store->create(r);
  }
  EXPECT_FALSE(o.tasks.store->get("c", "")) << "max_tasks bounds the store it makes";
  EXPECT_FALSE(json(o).contains("max_tasks")) << "a store is not a JSON value";
  EXPECT_EQ(json(o)["task_poll_interval_ms"], 50);
  EXPECT_THAT(refusal<server_options>({{"max_tasks", 0}}),
              HasSubstr("'max_tasks' must be a positive integer"));
  EXPECT_THAT(refusal<server_options>({{"task_max_ttl_ms", -5}}),
              HasSubstr("'task_max_ttl_ms' must be a positive number of milliseconds"));
  tool_spec t = json{{"name", "t"}, {"execution", {{"taskSupport", "required"}}}}.get<tool_spec>();
  EXPECT_EQ(t.task, task_support::required);
  EXPECT_FALSE(json(t).contains("execution")) << "listed per era by the engine";
  EXPECT_THAT(refusal<tool_spec>({{"name", "t"}, {"execution", {{"taskSupport", "always"}}}}),
              HasSubstr("execution.taskSupport"));
}

TEST(ModelJson, HttpOptionsDurationsAreSeconds) {
  const auto o =
      json{{"port", 8080}, {"session_idle_timeout", 1.5}, {"allowed_hosts", {"a.example"}}}
          .get<http_options>();
  EXPECT_EQ(o.port, 8080);
  EXPECT_EQ(o.session_idle_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(o.allowed_hosts, std::vector<std::string>{"a.example"});
  EXPECT_EQ(o.path, http_options{}.path);
  EXPECT_EQ(json(o)["session_idle_timeout"], 1.5);
  const auto stop = json{
      {"drain_grace", 0.25},
      {"stop_flush_timeout", 2},
      {"write_timeout", 7},
      {"accept_backoff_min", 0.01},
      {"accept_backoff_max",
       3}}.get<http_options>();
  EXPECT_EQ(stop.drain_grace, std::chrono::milliseconds(250));
  EXPECT_EQ(stop.stop_flush_timeout, std::chrono::milliseconds(2000));
  EXPECT_EQ(stop.write_timeout, std::chrono::milliseconds(7000));
  EXPECT_EQ(stop.accept_backoff_min, std::chrono::milliseconds(10));
  EXPECT_EQ(stop.accept_backoff_max, std::chrono::milliseconds(3000));
  EXPECT_EQ(json(stop)["drain_grace"], 0.25);
  EXPECT_EQ(json(json(o).get<http_options>()), json(o));
  EXPECT_THAT(refusal<http_options>({{"port", 70000}}),
              HasSubstr("'port' must be an integer <= 65535"));
  EXPECT_THAT(refusal<http_options>({{"port", "80"}}),
              HasSubstr("'port' must be an integer >= 0, got string \"80\""));
  EXPECT_THAT(refusal<http_options>({{"body_timeout", -1}}),
              HasSubstr("'body_timeout' must be a number of seconds >= 0"));
  EXPECT_THAT(refusal<http_options>({{"allowed_origins", "*"}}),
              HasSubstr("'allowed_origins' must be a list of strings"));
  EXPECT_THAT(refusal<http_options>({{"auth", json::object()}}),
              HasSubstr("unexpected HTTP option 'auth'"));
}

TEST(ModelJson, StdioOptionsAndCounters) {
  const auto o = json{{"drain_grace", 0.25}}.get<stdio_options>();
  EXPECT_EQ(o.drain_grace, std::chrono::milliseconds(250));
  EXPECT_TRUE(o.protect_stdout);
  EXPECT_EQ(json(o), (json{{"protect_stdout", true},
                           {"drain_grace", 0.25},
                           {"handle_signals", true},
                           {"inline_dispatch", false},
                           {"request_poll", 0.00005},
                           {"max_outbound_bytes", stdio_options{}.max_outbound_bytes}}));
  const auto polled = json{{"request_poll", 0.002}}.get<stdio_options>();
  EXPECT_EQ(polled.request_poll, std::chrono::microseconds(2000));
  EXPECT_THAT(refusal<stdio_options>({{"request_poll", -1}}),
              HasSubstr("'request_poll' must be a number of seconds >= 0"));
  server_metrics m;
  m.requests = 2;
  m.by_category["ok"] = 2;
  EXPECT_EQ(json(m)["by_category"], (json{{"ok", 2}}));
  EXPECT_EQ(json(http_stats{})["sessions_expired"], 0);
}

}  // namespace
}  // namespace mcpcxx
