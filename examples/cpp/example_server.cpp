// Example C++ MCP server over stdio: an echo tool, a tool failing with a tool error, a tool that
// throws an unexpected exception, a tool with an outputSchema (and one breaking it), a slow tool
// with a deadline, read-only twins of the failing tools, one reporting its own error, a
// progress/logging tool, a resource, a template, a prompt and completion; with
// MCPCXX_EXAMPLE_ASKING=1 also tools and a prompt that ask the client, with
// MCPCXX_EXAMPLE_CONTEXT=1 a declared extension and tools showing the request context, with
// MCPCXX_EXAMPLE_LISTEN=1 tools that change the server (touch, grow, shrink). The golden
// transcripts (tests/golden) and the benchmarks run against this binary, and against its Python
// twin examples/python/fixture_server.py, which must answer identically. The schemas are written as
// the Python decorators generate them (pydantic adds a "title" per property and the defaults, and
// writes "properties" even when empty), so both servers list the same tools.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <pthread.h>
#include <stdexcept>
#include <thread>

#include "mcpcxx/http.hpp"
#include "mcpcxx/mcpcxx.hpp"

namespace {

using mcpcxx::json;

}  // namespace

namespace example {
/// The task tools and their options (example_tasks.cpp; MCPCXX_EXAMPLE_TASKS=1).
void configure_tasks(mcpcxx::server_options& o);
void add_task_tools(mcpcxx::server& s);
/// A tool refusing schema-valid arguments after its own check (example_conversion.cpp;
/// MCPCXX_EXAMPLE_CONVERT=1).
void add_conversion_tools(mcpcxx::server& s);
}  // namespace example

namespace {

// The inputSchema of a tool without parameters.
const json k_no_arguments = {{"type", "object"}, {"properties", json::object()}};
// add's arguments and result (a TypedDict "Sum" in the Python twin).
const json k_add_input = {
    {"type", "object"},
    {"properties",
     {{"a", {{"type", "integer"}, {"title", "A"}}}, {"b", {{"type", "integer"}, {"title", "B"}}}}},
    {"required", {"a", "b"}}};
const json k_sum_schema = {{"type", "object"},
                           {"title", "Sum"},
                           {"properties", {{"sum", {{"type", "integer"}, {"title", "Sum"}}}}},
                           {"required", {"sum"}}};

// With `quick_inline` the three tools declare tool_spec::inline_dispatch: they are quick and never
// block, so their calls may run on the transport thread that read them.
void add_tools(mcpcxx::server& s, bool quick_inline) {
  s.add_tool(
      {.name = "echo",
       .title = "Echo",
       .description = "Returns the given text unchanged.",
       .input_schema = {{"type", "object"},
                        {"properties",
                         {{"text", {{"type", "string"}, {"maxLength", 1000}, {"title", "Text"}}}}},
                        {"required", {"text"}}},
       .annotations = {{"readOnlyHint", true}},
       .inline_dispatch = quick_inline},
      [](const json& args, mcpcxx::request_context&) {
        return mcpcxx::tool_result::text(args["text"].get<std::string>());
      });
  s.add_tool(
      {.name = "lookup_issue",
       .description = "Looks up an issue by key, e.g. ENG-1.",
       .input_schema =
           {{"type", "object"},
            {"properties",
             {{"key", {{"type", "string"}, {"pattern", "^[A-Z]+-[0-9]+$"}, {"title", "Key"}}}}},
            {"required", {"key"}}},
       .annotations = {{"readOnlyHint", true}},
       .inline_dispatch = quick_inline},
      [](const json& args, mcpcxx::request_context&) -> mcpcxx::tool_result {
        const std::string key = args["key"].get<std::string>();
        if (key == "ENG-1") return mcpcxx::tool_result::text("ENG-1: Fix the login page");
        throw mcpcxx::tool_error(
            mcpcxx::compose_tool_error_message({"Issue lookup", "issue " + key, "it was not found",
                                                "Verify the issue key or list recent issues first",
                                                "Do not retry unchanged"}),
            mcpcxx::error_category::not_found, false, key);
      });
  s.add_tool({.name = "explode",
              .description = "Always fails with an unexpected internal exception (for testing).",
              .input_schema = k_no_arguments,
              .inline_dispatch = quick_inline},
             [](const json&, mcpcxx::request_context&) -> mcpcxx::tool_result {
               throw std::runtime_error("database password=hunter2 rejected at db.internal:5432");
             });
}

void add_contract_tools(mcpcxx::server& s) {
  s.add_tool({.name = "add",
              .description = "Adds two integers.",
              .input_schema = k_add_input,
              .output_schema = k_sum_schema,
              .annotations = {{"readOnlyHint", true}}},
             [](const json& a, mcpcxx::request_context&) {
               return mcpcxx::tool_result::structured(
                   {{"sum", a["a"].get<long long>() + a["b"].get<long long>()}});
             });
  s.add_tool({.name = "broken_add",
              .description = "Adds two integers but returns a string (a bug).",
              .input_schema = k_add_input,
              .output_schema = k_sum_schema},
             [](const json&, mcpcxx::request_context&) {
               return mcpcxx::tool_result::structured({{"sum", "three"}});
             });
  s.add_tool(
      {.name = "slow_write",
       .description = "Writes slowly; times out after 200 ms.",
       .input_schema = {{"type", "object"},
                        {"properties",
                         {{"ms", {{"type", "integer"}, {"default", 1000}, {"title", "Ms"}}}}}},
       .timeout = std::chrono::milliseconds(200)},
      [](const json& a, mcpcxx::request_context& ctx) {
        const auto ms = a.value("ms", 1000);
        for (int i = 0; i < ms / 10 && !ctx.cancelled(); ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return mcpcxx::tool_result::text(ctx.cancelled() ? "cancelled" : "written");
      });
  s.add_tool({.name = "count_down",
              .description = "Reports progress and log messages, then returns.",
              .input_schema = {{"type", "object"},
                               {"properties",
                                {{"steps",
                                  {{"type", "integer"},
                                   {"minimum", 1},
                                   {"maximum", 50},
                                   {"default", 3},
                                   {"title", "Steps"}}}}}}},
             [](const json& a, mcpcxx::request_context& ctx) {
               const int steps = a.value("steps", 3);
               for (int i = 1; i <= steps && !ctx.cancelled(); ++i) {
                 ctx.report_progress(i, steps, "step " + std::to_string(i));
                 ctx.log(mcpcxx::log_level::info, "step " + std::to_string(i), "count_down");
               }
               return mcpcxx::tool_result::text("done");
             });
}

void add_lifecycle_tools(mcpcxx::server& s) {
  s.add_tool({.name = "sleep",
              .description = "Sleeps for ms milliseconds unless cancelled.",
              .input_schema = {{"type", "object"},
                               {"properties",
                                {{"ms",
                                  {{"type", "integer"},
                                   {"minimum", 0},
                                   {"maximum", 60000},
                                   {"default", 100},
                                   {"title", "Ms"}}}}}},
              .annotations = {{"readOnlyHint", true}}},
             [](const json& a, mcpcxx::request_context& ctx) {
               const int ms = a.value("ms", 100);
               // Progress 0 of ms at once (only with a progressToken): over HTTP the reply
               // becomes an SSE stream a client can resume (golden http_resume_cancelled).
               ctx.report_progress(0, ms);
               const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
               while (!ctx.cancelled() && std::chrono::steady_clock::now() < until) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(5));
               }
               return mcpcxx::tool_result::text(ctx.cancelled() ? "cancelled" : "slept");
             });
  s.add_tool({.name = "ask_user",
              .description = "Needs the client's elicitation capability.",
              .input_schema = k_no_arguments},
             [](const json&, mcpcxx::request_context& ctx) {
               ctx.require_client_capability("elicitation");
               return mcpcxx::tool_result::text("the client can elicit");
             });
  s.add_tool({.name = "quota",
              .description = "Fails with an application-defined protocol error.",
              .input_schema = k_no_arguments},
             [](const json&, mcpcxx::request_context&) -> mcpcxx::tool_result {
               throw mcpcxx::protocol_error(-31001,
                                            "Daily quota exhausted; retry after midnight UTC",
                                            {{"retryAfterSeconds", 3600}});
             });
  // A typed error raised inside a tool keeps its category: not_found, never internal (issue 8).
  s.add_tool({.name = "read_memo",
              .description = "Reads a memo by URI; only memo://readme exists.",
              .input_schema = {{"type", "object"},
                               {"properties", {{"uri", {{"type", "string"}, {"title", "Uri"}}}}},
                               {"required", {"uri"}}},
              .annotations = {{"readOnlyHint", true}}},
             [](const json& a, mcpcxx::request_context&) {
               const std::string uri = a["uri"].get<std::string>();
               if (uri != "memo://readme") throw mcpcxx::resource_not_found(uri);
               return mcpcxx::tool_result::text("Read me.");
             });
}

// Read-only twins of the failing tools (the wire words T3, T4 and T5 differently for them) and a
// tool reporting its own failure (T6).
void add_variant_tools(mcpcxx::server& s) {
  s.add_tool({.name = "explode_read_only",
              .description = "A read-only tool that fails with an unexpected exception.",
              .input_schema = k_no_arguments,
              .annotations = {{"readOnlyHint", true}}},
             [](const json&, mcpcxx::request_context&) -> mcpcxx::tool_result {
               throw std::runtime_error("cache key secret-42 missing");
             });
  s.add_tool({.name = "broken_add_read_only",
              .description = "A read-only add that returns a string (a bug).",
              .input_schema = k_add_input,
              .output_schema = k_sum_schema,
              .annotations = {{"readOnlyHint", true}}},
             [](const json&, mcpcxx::request_context&) {
               return mcpcxx::tool_result::structured({{"sum", "three"}});
             });
  s.add_tool(
      {.name = "slow_read",
       .description = "Reads slowly; times out after 200 ms.",
       .input_schema = {{"type", "object"},
                        {"properties",
                         {{"ms", {{"type", "integer"}, {"default", 1000}, {"title", "Ms"}}}}}},
       .annotations = {{"readOnlyHint", true}},
       .timeout = std::chrono::milliseconds(200)},
      [](const json& a, mcpcxx::request_context& ctx) {
        const auto ms = a.value("ms", 1000);
        for (int i = 0; i < ms / 10 && !ctx.cancelled(); ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return mcpcxx::tool_result::text(ctx.cancelled() ? "cancelled" : "read");
      });
  s.add_tool(
      {.name = "route",
       .description = "Routes by region; over HTTP the region travels as Mcp-Param-Region.",
       .input_schema = {{"type", "object"},
                        {"properties",
                         {{"region",
                           {{"type", "string"}, {"title", "Region"}, {"x-mcp-header", "Region"}}}}},
                        {"required", {"region"}}},
       .annotations = {{"readOnlyHint", true}}},
      [](const json& a, mcpcxx::request_context&) {
        return mcpcxx::tool_result::text("routed to " + a["region"].get<std::string>());
      });
  s.add_tool({.name = "own_error",
              .description = "Returns its own isError result.",
              .input_schema = k_no_arguments},
             [](const json&, mcpcxx::request_context&) {
               mcpcxx::tool_result r = mcpcxx::tool_result::text("I failed my own way");
               r.is_error = true;
               return r;
             });
}

// A tool whose one argument is the string `field` (titled `title`, as pydantic writes it).
json one_string(const char* field, const char* title) {
  return {{"type", "object"},
          {"properties", {{field, {{"type", "string"}, {"title", title}}}}},
          {"required", {field}}};
}

// Tools that change the server while it serves, so a subscriptions/listen stream has something
// to report (listen_*.txtar). Only with MCPCXX_EXAMPLE_LISTEN=1.
void add_listen_tools(mcpcxx::server& s) {
  s.add_tool({.name = "touch",
              .description = "Tells clients watching a resource URI that it changed.",
              .input_schema = one_string("uri", "Uri")},
             [&s](const json& args, mcpcxx::request_context&) {
               const auto uri = args["uri"].get<std::string>();
               s.notify_resource_updated(uri);
               return mcpcxx::tool_result::text("Notified the watchers of " + uri);
             });
  s.add_tool({.name = "grow",
              .description = "Adds a tool with the given name.",
              .input_schema = one_string("name", "Name")},
             [&s](const json& args, mcpcxx::request_context&) {
               const auto name = args["name"].get<std::string>();
               s.add_tool({.name = name, .input_schema = k_no_arguments},
                          [name](const json&, mcpcxx::request_context&) {
                            return mcpcxx::tool_result::text("I am " + name);
                          });
               return mcpcxx::tool_result::text("Added the tool " + name);
             });
  s.add_tool({.name = "shrink",
              .description = "Removes the tool with the given name.",
              .input_schema = one_string("name", "Name")},
             [&s](const json& args, mcpcxx::request_context&) {
               const auto name = args["name"].get<std::string>();
               return mcpcxx::tool_result::text(s.remove_tool(name) ? "Removed the tool " + name
                                                                    : "There is no tool " + name);
             });
}

void add_other_primitives(mcpcxx::server& s) {
  s.add_resource(
      {.uri = "memo://broken", .name = "broken", .mime_type = "text/plain"},
      [](const std::string&, mcpcxx::request_context&) -> std::vector<mcpcxx::resource_contents> {
        throw std::runtime_error("disk /var/secret unreadable");
      });
  s.add_resource(
      {.uri = "memo://locked", .name = "locked", .mime_type = "text/plain"},
      [](const std::string&, mcpcxx::request_context&) -> std::vector<mcpcxx::resource_contents> {
        throw mcpcxx::tool_error(
            "Memo read failed: memo://locked is locked by another workflow. Retry after that "
            "workflow finishes; nothing was read.",
            mcpcxx::error_category::conflict, true, "memo://locked");
      });
  s.add_resource(
      {.uri = "memo://readme", .name = "readme", .mime_type = "text/plain"},
      [](const std::string& uri, mcpcxx::request_context&) {
        return std::vector<mcpcxx::resource_contents>{{uri, "text/plain", "Read me.", {}, nullptr}};
      });
  s.add_resource_template(
      {.uri_template = "issue://{key}", .name = "issue", .mime_type = "text/plain"},
      [](const std::string& uri, const std::map<std::string, std::string>& v,
         mcpcxx::request_context&) -> std::vector<mcpcxx::resource_contents> {
        if (v.at("key") != "ENG-1") throw mcpcxx::resource_not_found(uri);
        return {{uri, "text/plain", "ENG-1: Fix the login page", {}, nullptr}};
      });
  s.add_prompt({.name = "summarize",
                .description = "Summarize a text.",
                .arguments = {{.name = "text", .required = true}}},
               [](const std::map<std::string, std::string>& a, mcpcxx::request_context&) {
                 mcpcxx::prompt_result r;
                 r.description = "Summarize a text.";
                 r.messages = json::array(
                     {{{"role", "user"},
                       {"content", {{"type", "text"}, {"text", "Summarize: " + a.at("text")}}}}});
                 return r;
               });
  s.set_completion_handler([](const mcpcxx::completion_request& req, mcpcxx::request_context&) {
    mcpcxx::completion_result r;
    for (const char* v : {"alpha", "beta", "gamma"}) {
      if (std::string_view(v).rfind(req.argument_value, 0) == 0) r.values.emplace_back(v);
    }
    r.total = static_cast<std::int64_t>(r.values.size());
    return r;
  });
}

// The form the elicit tool asks for, and the one the greet prompt asks for.
const json k_title_form = {{"type", "object"},
                           {"properties", {{"title", {{"type", "string"}, {"title", "Title"}}}}},
                           {"required", {"title"}}};
const json k_name_form = {{"type", "object"},
                          {"properties", {{"name", {{"type", "string"}, {"title", "Name"}}}}},
                          {"required", {"name"}}};
constexpr const char* k_login_url = "https://example.invalid/login";
constexpr const char* k_login_message = "Sign in to the tracker to link your account";

// The text of a CreateMessageResult's content: a text block's text, text blocks joined.
std::string sampled_text(const json& result) {
  const json& content = result.contains("content") ? result["content"] : json();
  std::string text;
  for (const json& block : content.is_array() ? content : json::array({content})) {
    if (block.is_object() && block.value("type", "") == "text") text += block.value("text", "");
  }
  return text;
}

// Tools that ask the client (elicitation, URL elicitation, sampling, roots): live requests on a
// legacy session, input_required round trips on 2026-07-28. Only with MCPCXX_EXAMPLE_ASKING=1,
// so the tool list every other transcript pins stays as it is.
void add_asking_tools(mcpcxx::server& s) {
  s.add_tool(
      {.name = "elicit",
       .description = "Asks the user for the title of a new issue (form elicitation).",
       .input_schema = k_no_arguments},
      [](const json&, mcpcxx::request_context& ctx) {
        const auto r = ctx.elicit("Title for the new issue?", k_title_form);
        if (r.action != "accept") return mcpcxx::tool_result::text("the user chose " + r.action);
        return mcpcxx::tool_result::text("created issue: " + r.content["title"].get<std::string>());
      });
  s.add_tool({.name = "elicit_url",
              .description = "Asks the user to sign in at a URL (URL elicitation).",
              .input_schema = k_no_arguments},
             [](const json&, mcpcxx::request_context& ctx) {
               const auto r = ctx.elicit_url(k_login_message, k_login_url, "login-1");
               return mcpcxx::tool_result::text("the user chose " + r.action);
             });
  s.add_tool(
      {.name = "url_elicitation_required",
       .description = "Cannot go on until the user signs in at a URL.",
       .input_schema = k_no_arguments},
      [](const json&, mcpcxx::request_context&) -> mcpcxx::tool_result {
        throw mcpcxx::url_elicitation_required(json::array({{{"mode", "url"},
                                                             {"elicitationId", "login-1"},
                                                             {"url", k_login_url},
                                                             {"message", k_login_message}}}));
      });
  s.add_tool(
      {.name = "sample",
       .description = "Asks the client's model to say hello (sampling).",
       .input_schema = k_no_arguments},
      [](const json&, mcpcxx::request_context& ctx) {
        const json r = ctx.sample(
            {{"messages", json::array({{{"role", "user"},
                                        {"content", {{"type", "text"}, {"text", "Say hello"}}}}})},
             {"maxTokens", 16}});
        return mcpcxx::tool_result::text("the model said: " + sampled_text(r));
      });
  s.add_tool({.name = "list_roots",
              .description = "Lists the client's roots.",
              .input_schema = k_no_arguments},
             [](const json&, mcpcxx::request_context& ctx) {
               std::string uris;
               for (const json& root : ctx.list_roots()) {
                 uris += (uris.empty() ? "" : ", ") + root.value("uri", "");
               }
               return mcpcxx::tool_result::text("roots: " + (uris.empty() ? "none" : uris));
             });
  s.add_prompt({.name = "greet",
                .description = "Greets someone the user names.",
                .arguments = {{.name = "greeting", .required = true}}},
               [](const std::map<std::string, std::string>& a, mcpcxx::request_context& ctx) {
                 const auto r = ctx.elicit("Whom should the greeting address?", k_name_form);
                 const std::string who =
                     r.action == "accept" ? ", " + r.content["name"].get<std::string>() : "";
                 mcpcxx::prompt_result p;
                 p.description = "Greets someone the user names.";
                 p.messages = json::array(
                     {{{"role", "user"},
                       {"content", {{"type", "text"}, {"text", a.at("greeting") + who + "!"}}}}});
                 return p;
               });
}

// What a handler reads about its request (context_probe): the request's _meta, the client's
// com.example/trace settings and, over HTTP, the X-Probe-* headers plus the two credential
// headers, which must arrive withheld.
json context_facts(mcpcxx::request_context& ctx) {
  json headers = nullptr;
  if (const json& h = ctx.http_headers(); h.is_object()) {
    headers = json::object();
    for (const auto& [name, value] : h.items()) {
      if (name.starts_with("x-probe-") || name == "authorization" || name == "cookie") {
        headers[name] = value;
      }
    }
  }
  const json* trace = ctx.client_extension("com.example/trace");
  return {{"meta", ctx.request_meta()},
          {"trace", trace != nullptr ? *trace : json(nullptr)},
          {"headers", headers}};
}

// The request-context fixtures (MCPCXX_EXAMPLE_CONTEXT=1 only): a declared extension, a probe of
// the request facts and a tool with its own cache hints.
void add_context_tools(mcpcxx::server& s) {
  s.add_extension("com.example/trace", {{"sampling", "head"}});
  s.add_tool({.name = "context_probe",
              .description = "Shows what the handler sees of its request: _meta, the client's "
                             "com.example/trace settings and the X-Probe-* HTTP headers.",
              .input_schema = k_no_arguments},
             [](const json&, mcpcxx::request_context& ctx) {
               return mcpcxx::tool_result::text(context_facts(ctx).dump());
             });
  s.add_tool(
      {.name = "cached_probe",
       .description = "A tool whose listing a client may reuse for 1.5 s, per user.",
       .input_schema = k_no_arguments,
       .cache = {.ttl_ms = 1500, .scope = "private"}},
      [](const json&, mcpcxx::request_context&) { return mcpcxx::tool_result::text("cached"); });
}

std::size_t env_number(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// A fixed token check for the HTTP transcripts: "good" and "other" pass (two principals, row
// P38), "good-refreshed" is good's user again with a later token and more scope (same identity:
// http_identity_refresh.txtar), "narrow" lacks a scope, and "crash" makes the verifier throw (a
// buggy hook: the transport answers 500 with a reference).
mcpcxx::http_auth_options golden_auth() {
  mcpcxx::http_auth_options a;
  a.authorization_servers = {"https://auth.example.invalid"};
  a.scopes_supported = {"issues:read", "issues:write"};
  a.verifier = [](std::string_view token, const mcpcxx::http_auth_request&) {
    if (token == "good") {
      return mcpcxx::http_auth_result::allow({{"sub", "golden"}, {"scopes", {"issues:read"}}});
    }
    if (token == "good-refreshed") {
      return mcpcxx::http_auth_result::allow({{"sub", "golden"},
                                              {"scopes", {"issues:read", "issues:write"}},
                                              {"claims", {{"jti", "refreshed"}}},
                                              {"exp", 4102444800}});
    }
    if (token == "writer") {
      return mcpcxx::http_auth_result::allow(
          {{"sub", "writer"}, {"scopes", {"issues:read", "issues:write"}}});
    }
    if (token == "other") return mcpcxx::http_auth_result::allow({{"sub", "other"}});
    if (token == "narrow") return mcpcxx::http_auth_result::insufficient({"issues:write"});
    if (token == "down")
      return mcpcxx::http_auth_result::unavailable("jwks auth.internal:7000 down");
    if (token == "crash") throw std::runtime_error("token store unreachable at auth.internal:7000");
    return mcpcxx::http_auth_result::invalid();
  };
  return a;
}

// With MCPCXX_HTTP_AUTH=1 or MCPCXX_EXAMPLE_SCOPED=1 only: a tool needing the issues:write scope
// (hidden from, and refused to, principals without it: http_auth_scopes.txtar, tools_scopes.txtar).
void add_scoped_tool(mcpcxx::server& s) {
  mcpcxx::tool_spec spec;
  spec.name = "close_issue";
  spec.description = "Close an issue (needs the issues:write scope).";
  spec.input_schema = {{"type", "object"},
                       {"properties", {{"key", {{"title", "Key"}, {"type", "string"}}}}},
                       {"required", {"key"}}};
  spec.scopes = {"issues:write"};
  s.add_tool(spec, [](const mcpcxx::json& args, mcpcxx::request_context& ctx) {
    return mcpcxx::tool_result::text("closed " + args["key"].get<std::string>() + " as " +
                                     ctx.principal().value("sub", std::string()));
  });
}

// HTTP settings from the environment: MCPCXX_EXAMPLE_HTTP_LEGACY=0 (modern only),
// MCPCXX_MAX_BODY_BYTES, MCPCXX_HTTP_MAX_SESSIONS, MCPCXX_HTTP_HEADER_TIMEOUT_MS and
// MCPCXX_HTTP_METRICS=1 (GET /metrics), which the Python twin maps too; MCPCXX_HTTP_AUTH=1, which
// it maps too (its auth: the same check, in Python).
mcpcxx::http_options http_options_from_env(int port) {
  mcpcxx::http_options o;
  o.port = static_cast<std::uint16_t>(port);
  const char* legacy = std::getenv("MCPCXX_EXAMPLE_HTTP_LEGACY");
  o.legacy = legacy == nullptr || std::string_view(legacy) != "0";
  o.max_body_bytes = env_number("MCPCXX_MAX_BODY_BYTES", o.max_body_bytes);
  o.max_sessions = env_number("MCPCXX_HTTP_MAX_SESSIONS", o.max_sessions);
  o.header_timeout = std::chrono::milliseconds(env_number(
      "MCPCXX_HTTP_HEADER_TIMEOUT_MS", static_cast<std::size_t>(o.header_timeout.count())));
  const char* metrics = std::getenv("MCPCXX_HTTP_METRICS");
  o.metrics = metrics != nullptr && std::string_view(metrics) == "1";
  const char* auth = std::getenv("MCPCXX_HTTP_AUTH");
  if (auth != nullptr && std::string_view(auth) == "1") o.auth = golden_auth();
  // MCPCXX_HTTP_INLINE=1: handlers on the I/O thread (http_options::inline_dispatch; as with
  // MCPCXX_STDIO_INLINE, the deliberately slow tools then hold that thread).
  const char* inline_dispatch = std::getenv("MCPCXX_HTTP_INLINE");
  o.inline_dispatch = inline_dispatch != nullptr && std::string_view(inline_dispatch) == "1";
  // MCPCXX_HTTP_REPLY_POLL_US: http_options::reply_poll in microseconds (0 turns polling off;
  // bench/http_load compares the two).
  o.reply_poll = std::chrono::microseconds(
      env_number("MCPCXX_HTTP_REPLY_POLL_US", static_cast<std::size_t>(o.reply_poll.count())));
  return o;
}

// Serves Streamable HTTP on 127.0.0.1:`port` (path /mcp) until SIGINT or SIGTERM.
// The signals were blocked before any thread started, so sigwait receives them here.
int serve_http_until_signal(mcpcxx::server& s, const sigset_t& stop_signals, int port) {
  mcpcxx::http_server http(s, http_options_from_env(port));
  http.start();
  int sig = 0;
  sigwait(&stop_signals, &sig);
  http.stop(std::chrono::milliseconds(2000));
  return 0;
}

// Server settings; MCPCXX_EXPOSE_DETAILS=1 adds exception text to internal errors and
// MCPCXX_MAX_MESSAGE_BYTES lowers the size limit so a transcript can show rows P3 and P3c without
// carrying a 4 MiB line.
mcpcxx::server_options options_from_env() {
  mcpcxx::server_options opts;
  opts.info = {.name = "mcpcxx-example",
               .version = "0.1.0",
               .title = "mcpcxx example server",
               .description = "Demonstrates both error paths",
               .website_url = "https://example.invalid/mcpcxx"};
  opts.instructions = "Use echo to test; lookup_issue fails for unknown keys.";
  if (const char* v = std::getenv("MCPCXX_EXPOSE_DETAILS");
      v != nullptr && std::string_view(v) == "1") {
    opts.expose_exception_details = true;
  }
  if (const char* v = std::getenv("MCPCXX_MAX_MESSAGE_BYTES"); v != nullptr) {
    opts.limits.max_message_bytes = std::strtoull(v, nullptr, 10);
  }
  // MCPCXX_MAX_BATCH_REPLY_BYTES lowers the batch reply limit so a transcript shows row P29.
  if (const char* v = std::getenv("MCPCXX_MAX_BATCH_REPLY_BYTES"); v != nullptr) {
    opts.max_batch_reply_bytes = std::strtoull(v, nullptr, 10);
  }
  // MCPCXX_MAX_WORKERS fixes the worker threads (base and bound), so a stop transcript can keep
  // calls queued behind running ones (row P27a).
  if (const char* v = std::getenv("MCPCXX_MAX_WORKERS"); v != nullptr) {
    opts.worker_threads = std::strtoull(v, nullptr, 10);
    opts.max_worker_threads = opts.worker_threads;
  }
  // MCPCXX_CLIENT_REQUEST_TIMEOUT_MS shortens the wait for a client's answer (rows T8, P31).
  if (const char* v = std::getenv("MCPCXX_CLIENT_REQUEST_TIMEOUT_MS"); v != nullptr) {
    opts.client_request_timeout = std::chrono::milliseconds(std::strtoll(v, nullptr, 10));
  }
  // MCPCXX_MAX_LISTENERS and MCPCXX_MAX_LISTEN_URIS lower the subscriptions/listen limits (rows
  // P43 and P42).
  if (const char* v = std::getenv("MCPCXX_MAX_LISTENERS"); v != nullptr) {
    opts.max_listeners = std::strtoull(v, nullptr, 10);
  }
  if (const char* v = std::getenv("MCPCXX_MAX_LISTEN_URIS"); v != nullptr) {
    opts.max_listen_uris = std::strtoull(v, nullptr, 10);
  }
  // MCPCXX_REQUEST_STATE_TTL_S shortens a requestState's life (row P35).
  if (const char* v = std::getenv("MCPCXX_REQUEST_STATE_TTL_S"); v != nullptr) {
    opts.request_state_ttl_s = std::strtoll(v, nullptr, 10);
  }
  return opts;
}

}  // namespace

int main() {
  // MCPCXX_EXAMPLE_HTTP_PORT=N serves Streamable HTTP on 127.0.0.1:N instead of stdio (the golden
  // transcripts of the HTTP rows). Block the stop signals before the engine starts its threads.
  const char* http_port = std::getenv("MCPCXX_EXAMPLE_HTTP_PORT");
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (http_port != nullptr) pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // MCPCXX_EXAMPLE_TASKS=1 adds the task tools (and sequential task ids) for tasks_*.txtar.
  const char* tasks = std::getenv("MCPCXX_EXAMPLE_TASKS");
  const bool with_tasks = tasks != nullptr && std::string_view(tasks) == "1";
  mcpcxx::server_options options = options_from_env();
  if (with_tasks) example::configure_tasks(options);
  mcpcxx::server s(std::move(options));
  if (with_tasks) example::add_task_tools(s);
  // MCPCXX_EXAMPLE_INLINE_TOOLS=1: echo, lookup_issue and explode run on the transport's thread
  // (tool_spec::inline_dispatch; bench/run_stdio.py measures it beside the pool).
  const char* quick = std::getenv("MCPCXX_EXAMPLE_INLINE_TOOLS");
  add_tools(s, quick != nullptr && std::string_view(quick) == "1");
  add_contract_tools(s);
  add_lifecycle_tools(s);
  add_variant_tools(s);
  // MCPCXX_EXAMPLE_MINIMAL=1 offers tools only, to show capability gating (-32601).
  if (const char* m = std::getenv("MCPCXX_EXAMPLE_MINIMAL");
      m == nullptr || std::string_view(m) != "1") {
    add_other_primitives(s);
  }
  // MCPCXX_EXAMPLE_ASKING=1 adds the tools and the prompt that ask the client.
  if (const char* a = std::getenv("MCPCXX_EXAMPLE_ASKING");
      a != nullptr && std::string_view(a) == "1") {
    add_asking_tools(s);
  }
  // MCPCXX_EXAMPLE_LISTEN=1 adds the tools that change the server (subscriptions/listen).
  if (const char* l = std::getenv("MCPCXX_EXAMPLE_LISTEN");
      l != nullptr && std::string_view(l) == "1") {
    add_listen_tools(s);
  }
  // MCPCXX_EXAMPLE_CONTEXT=1 adds the request-context fixtures (extension, probe, cache hints).
  if (const char* c = std::getenv("MCPCXX_EXAMPLE_CONTEXT");
      c != nullptr && std::string_view(c) == "1") {
    add_context_tools(s);
  }
  // MCPCXX_EXAMPLE_CONVERT=1 adds schedule, whose own check refuses valid arguments (row T1).
  if (const char* v = std::getenv("MCPCXX_EXAMPLE_CONVERT");
      v != nullptr && std::string_view(v) == "1") {
    example::add_conversion_tools(s);
  }
  const char* auth = std::getenv("MCPCXX_HTTP_AUTH");
  const char* scoped = std::getenv("MCPCXX_EXAMPLE_SCOPED");
  if ((auth != nullptr && std::string_view(auth) == "1") ||
      (scoped != nullptr && std::string_view(scoped) == "1")) {
    add_scoped_tool(s);
  }
  if (http_port != nullptr) return serve_http_until_signal(s, stop_signals, std::atoi(http_port));
  mcpcxx::stdio_options stdio;
  // MCPCXX_DRAIN_GRACE_MS: how long SIGTERM/SIGINT or EOF lets in-flight calls finish (tests).
  if (const char* g = std::getenv("MCPCXX_DRAIN_GRACE_MS"); g != nullptr) {
    stdio.drain_grace = std::chrono::milliseconds(std::strtoll(g, nullptr, 10));
  }
  // MCPCXX_STDIO_INLINE=1: handlers on the reading thread (stdio_options::inline_dispatch; the
  // tools here are quick, except the deliberately slow ones, which then delay later requests).
  if (const char* i = std::getenv("MCPCXX_STDIO_INLINE");
      i != nullptr && std::string_view(i) == "1") {
    stdio.inline_dispatch = true;
  }
  // MCPCXX_STDIO_REQUEST_POLL_US: stdio_options::request_poll in microseconds (0 turns it off).
  stdio.request_poll = std::chrono::microseconds(env_number(
      "MCPCXX_STDIO_REQUEST_POLL_US", static_cast<std::size_t>(stdio.request_poll.count())));
  return mcpcxx::serve_stdio(s, stdio);
}
