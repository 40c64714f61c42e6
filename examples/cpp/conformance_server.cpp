// The conformance fixture server in C++: every tool, resource, prompt and completion the official
// suite (@modelcontextprotocol/conformance) calls, served over Streamable HTTP for both eras.
// examples/conformance/server.py exposes the same fixtures through the Python API.
// Usage: mcpcxx_conformance_server [--port N] [--host H] [--io-threads N] [--modern-only]
//                                   [--inline-bench-tools]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "mcpcxx/http.hpp"
#include "mcpcxx/mcpcxx.hpp"

namespace conformance {
/// The 2026-07-28 input-required-result fixtures (conformance_input_required.cpp).
void add_input_required_fixtures(mcpcxx::server& s);
/// The tasks-extension fixtures (conformance_tasks.cpp).
void add_tasks_fixtures(mcpcxx::server& s);
}  // namespace conformance

namespace {

using mcpcxx::json;
using mcpcxx::request_context;
using mcpcxx::tool_result;

constexpr const char* k_png =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg"
    "==";
constexpr const char* k_wav = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQQAAACAgICA";

json text_block(const std::string& t) { return {{"type", "text"}, {"text", t}}; }
json image_block() { return {{"type", "image"}, {"data", k_png}, {"mimeType", "image/png"}}; }

tool_result content(json blocks) {
  tool_result r;
  r.content = std::move(blocks);
  return r;
}

void add(mcpcxx::server& s, const std::string& name, const std::string& description,
         mcpcxx::tool_handler fn, json schema = {{"type", "object"}}, bool quick_inline = false) {
  mcpcxx::tool_spec spec;
  spec.name = name;
  spec.description = description;
  spec.input_schema = std::move(schema);
  spec.inline_dispatch = quick_inline;
  s.add_tool(std::move(spec), std::move(fn));
}

void add_content_tools(mcpcxx::server& s) {
  add(s, "test_simple_text", "Returns a simple text response.", [](const json&, request_context&) {
    return tool_result::text("This is a simple text response for testing.");
  });
  add(s, "test_image_content", "Returns a 1x1 PNG image.",
      [](const json&, request_context&) { return content(json::array({image_block()})); });
  add(s, "test_audio_content", "Returns a short WAV clip.", [](const json&, request_context&) {
    return content(json::array({{{"type", "audio"}, {"data", k_wav}, {"mimeType", "audio/wav"}}}));
  });
  add(s, "test_embedded_resource", "Returns an embedded text resource.",
      [](const json&, request_context&) {
        return content(json::array({{{"type", "resource"},
                                     {"resource",
                                      {{"uri", "test://embedded-resource"},
                                       {"mimeType", "text/plain"},
                                       {"text", "This is an embedded resource content."}}}}}));
      });
  add(s, "test_multiple_content_types", "Returns text, an image and a resource.",
      [](const json&, request_context&) {
        return content(json::array({text_block("Multiple content types test:"),
                                    image_block(),
                                    {{"type", "resource"},
                                     {"resource",
                                      {{"uri", "test://mixed-content-resource"},
                                       {"mimeType", "application/json"},
                                       {"text", R"({"test":"data","value":123})"}}}}}));
      });
  add(s, "test_error_handling", "Always returns an error result.",
      [](const json&, request_context&) {
        tool_result r = tool_result::text("This tool intentionally returns an error for testing");
        r.is_error = true;
        return r;
      });
}

void add_notifying_tools(mcpcxx::server& s) {
  add(s, "test_tool_with_logging", "Sends three log messages while it runs.",
      [](const json&, request_context& ctx) {
        for (const char* m :
             {"Tool execution started", "Tool processing data", "Tool execution completed"}) {
          ctx.log(mcpcxx::log_level::info, m);
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return tool_result::text("Logging test completed");
      });
  add(s, "test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.",
      [](const json&, request_context& ctx) {
        for (double p : {0.0, 50.0, 100.0}) {
          ctx.report_progress(p, 100.0);
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return tool_result::text("Progress test completed");
      });
  add(s, "test_missing_capability", "Needs the client's sampling capability.",
      [](const json&, request_context& ctx) {
        ctx.require_client_capability("sampling");
        return tool_result::text("The client declared sampling");
      });
  add(s, "test_custom_header", "Echoes a region that clients mirror into Mcp-Param-Region.",
      [](const json& a, request_context&) {
        return tool_result::text("region=" + a.value("region", std::string()));
      },
      {{"type", "object"},
       {"properties", {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}}}},
       {"required", {"region"}}});
  add(s, "test_logging_tool", "Logs while it runs (only sent when the request sets logLevel).",
      [](const json&, request_context& ctx) {
        for (int i = 0; i < 3; ++i)
          ctx.log(mcpcxx::log_level::info, "log entry " + std::to_string(i));
        return tool_result::text("Logged three entries");
      });
  add(s, "test_streaming_elicitation", "Needs the client's elicitation capability.",
      [](const json&, request_context& ctx) {
        ctx.require_client_capability("elicitation");
        return tool_result::text("The client declared elicitation");
      });
  add(
      s, "json_schema_2020_12_tool", "Takes a JSON Schema 2020-12 input with $defs.",
      [](const json&, request_context&) { return tool_result::text("ok"); }, json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                              "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                       "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                       "phone": {"type": "string"}, "email": {"type": "string"}},
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
      })"));
}

mcpcxx::resource_contents text_contents(std::string uri, std::string mime, std::string text) {
  mcpcxx::resource_contents c;
  c.uri = std::move(uri);
  c.mime_type = std::move(mime);
  c.text = std::move(text);
  return c;
}

mcpcxx::resource_spec resource(std::string uri, std::string name, std::string mime) {
  mcpcxx::resource_spec r;
  r.uri = std::move(uri);
  r.name = std::move(name);
  r.mime_type = std::move(mime);
  return r;
}

void add_resources(mcpcxx::server& s) {
  s.add_resource(resource("test://static-text", "static-text", "text/plain"),
                 [](const std::string& uri, request_context&) {
                   return std::vector{text_contents(
                       uri, "text/plain", "This is the content of the static text resource.")};
                 });
  s.add_resource(resource("test://static-binary", "static-binary", "image/png"),
                 [](const std::string& uri, request_context&) {
                   mcpcxx::resource_contents c;
                   c.uri = uri;
                   c.mime_type = "image/png";
                   c.blob_base64 = k_png;
                   return std::vector{c};
                 });
  s.add_resource(resource("test://watched-resource", "watched-resource", "text/plain"),
                 [](const std::string& uri, request_context&) {
                   return std::vector{text_contents(uri, "text/plain", "Watched resource content")};
                 });
  mcpcxx::resource_template_spec tpl;
  tpl.uri_template = "test://template/{id}/data";
  tpl.name = "template";
  tpl.mime_type = "application/json";
  s.add_resource_template(tpl, [](const std::string& uri,
                                  const std::map<std::string, std::string>& vars,
                                  request_context&) {
    json body = {
        {"id", vars.at("id")}, {"templateTest", true}, {"data", "Data for ID: " + vars.at("id")}};
    return std::vector{text_contents(uri, "application/json", body.dump())};
  });
}

json user_text(const std::string& t) { return {{"role", "user"}, {"content", text_block(t)}}; }

mcpcxx::prompt_spec prompt(std::string name, std::string description,
                           std::vector<std::string> required_args = {}) {
  mcpcxx::prompt_spec p;
  p.name = std::move(name);
  p.description = std::move(description);
  for (auto& a : required_args) {
    mcpcxx::prompt_argument arg;
    arg.name = std::move(a);
    arg.required = true;
    p.arguments.push_back(std::move(arg));
  }
  return p;
}

void add_prompts(mcpcxx::server& s) {
  s.add_prompt(prompt("test_simple_prompt", "A prompt without arguments."),
               [](const std::map<std::string, std::string>&, request_context&) {
                 return mcpcxx::prompt_result{
                     {}, json::array({user_text("This is a simple prompt for testing.")})};
               });
  s.add_prompt(
      prompt("test_prompt_with_arguments", "A prompt with two arguments.", {"arg1", "arg2"}),
      [](const std::map<std::string, std::string>& a, request_context&) {
        return mcpcxx::prompt_result{
            {},
            json::array({user_text("Prompt with arguments: arg1='" + a.at("arg1") + "', arg2='" +
                                   a.at("arg2") + "'")})};
      });
  s.add_prompt(prompt("test_prompt_with_embedded_resource", "Embeds a resource.", {"resourceUri"}),
               [](const std::map<std::string, std::string>& a, request_context&) {
                 json res = {{"role", "user"},
                             {"content",
                              {{"type", "resource"},
                               {"resource",
                                {{"uri", a.at("resourceUri")},
                                 {"mimeType", "text/plain"},
                                 {"text", "Embedded resource content for testing."}}}}}};
                 return mcpcxx::prompt_result{
                     {},
                     json::array({res, user_text("Please process the embedded resource above.")})};
               });
  s.add_prompt(prompt("test_prompt_with_image", "Contains an image."),
               [](const std::map<std::string, std::string>&, request_context&) {
                 return mcpcxx::prompt_result{
                     {},
                     json::array({{{"role", "user"}, {"content", image_block()}},
                                  user_text("Please analyze the image above.")})};
               });
  s.set_completion_handler([](const mcpcxx::completion_request& req, request_context&) {
    mcpcxx::completion_result r;
    for (const char* v : {"paris", "park", "party"}) {
      if (std::string(v).rfind(req.argument_value, 0) == 0) r.values.emplace_back(v);
    }
    r.total = static_cast<std::int64_t>(r.values.size());
    return r;
  });
}

// The hooks server-stateless calls while a subscriptions/listen stream is open: each call adds a
// transient tool (or prompt), and the next removes it, so list_changed follows every call.
void add_list_mutation_hooks(mcpcxx::server& s) {
  static std::mutex toggling;  // two concurrent triggers must not both add
  add(s, "test_trigger_tool_change", "Adds or removes the tool test_transient_tool.",
      [&s](const json&, request_context&) {
        std::lock_guard lock(toggling);
        if (s.remove_tool("test_transient_tool")) return tool_result::text("removed");
        add(s, "test_transient_tool", "Exists between two test_trigger_tool_change calls.",
            [](const json&, request_context&) { return tool_result::text("transient"); });
        return tool_result::text("added");
      });
  add(s, "test_trigger_prompt_change", "Adds or removes the prompt test_transient_prompt.",
      [&s](const json&, request_context&) {
        std::lock_guard lock(toggling);
        if (s.remove_prompt("test_transient_prompt")) return tool_result::text("removed");
        s.add_prompt(prompt("test_transient_prompt", "Exists between two trigger calls."),
                     [](const std::map<std::string, std::string>&, request_context&) {
                       return mcpcxx::prompt_result{{}, json::array({user_text("transient")})};
                     });
        return tool_result::text("added");
      });
}

}  // namespace

// Server-to-client requests during a call (legacy sessions): sampling and elicitation.
std::string elicitation_text(const mcpcxx::elicit_result& r) {
  return "Elicitation completed: action=" + r.action + ", content=" + r.content.dump();
}

void add_client_request_tools(mcpcxx::server& s) {
  add(s, "test_sampling", "Asks the client's LLM (sampling/createMessage) about `prompt`.",
      [](const json& a, request_context& ctx) {
        json reply = ctx.sample(
            {{"messages",
              json::array({{{"role", "user"}, {"content", text_block(a.value("prompt", ""))}}})},
             {"maxTokens", 100}});
        const json& c = reply["content"];
        const std::string text = c.is_object() ? c.value("text", c.dump()) : c.dump();
        return tool_result::text("LLM response: " + text);
      },
      {{"type", "object"},
       {"properties", {{"prompt", {{"type", "string"}}}}},
       {"required", {"prompt"}}});
  add(s, "test_elicitation", "Asks the user (elicitation/create) for a username and email.",
      [](const json& a, request_context& ctx) {
        auto r = ctx.elicit(a.value("message", ""), json::parse(R"({"type": "object",
          "properties": {"username": {"type": "string", "description": "User's response"},
                         "email": {"type": "string", "description": "User's email address"}},
          "required": ["username", "email"]})"));
        return tool_result::text("User response: action=" + r.action +
                                 ", content=" + r.content.dump());
      },
      {{"type", "object"},
       {"properties", {{"message", {{"type", "string"}}}}},
       {"required", {"message"}}});
  add(s, "test_elicitation_sep1034_defaults", "Elicits with a default for every primitive type.",
      [](const json&, request_context& ctx) {
        return tool_result::text(elicitation_text(ctx.elicit(
            "Please review your details", json::parse(R"({"type": "object", "properties": {
          "name": {"type": "string", "default": "John Doe"},
          "age": {"type": "integer", "default": 30},
          "score": {"type": "number", "default": 95.5},
          "status": {"type": "string", "enum": ["active", "inactive", "pending"],
                     "default": "active"},
          "verified": {"type": "boolean", "default": true}}})"))));
      });
  add(s, "test_elicitation_sep1330_enums", "Elicits with all five enum schema forms.",
      [](const json&, request_context& ctx) {
        return tool_result::text(elicitation_text(
            ctx.elicit("Please choose", json::parse(R"({"type": "object", "properties": {
          "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
          "titledSingle": {"type": "string", "oneOf": [
            {"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"}]},
          "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                         "enumNames": ["Option One", "Option Two", "Option Three"]},
          "untitledMulti": {"type": "array",
                            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
          "titledMulti": {"type": "array", "items": {"anyOf": [
            {"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"},
            {"const": "value3", "title": "Third Choice"}]}}}})"))));
      });
}

// The bench/http_load workload: echo and its error paths (--case tool_error / unexpected). With
// --inline-bench-tools they declare tool_spec::inline_dispatch (they are quick and never block).
void add_bench_tools(mcpcxx::server& s, bool quick_inline) {
  add(
      s, "echo", "Returns its text argument (the bench/http_load workload).",
      [](const json& a, request_context&) { return tool_result::text(a.value("text", "")); },
      {{"type", "object"},
       {"properties", {{"text", {{"type", "string"}}}}},
       {"required", {"text"}}},
      quick_inline);
  add(
      s, "echo_fail", "Fails as a tool with its text argument (bench/http_load --case tool_error).",
      [](const json& a, request_context&) -> tool_result {
        throw mcpcxx::tool_error("echo_fail failed for " + a.value("text", std::string()) +
                                 ": it always fails. Do not retry.");
      },
      {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}}, quick_inline);
  add(
      s, "echo_explode", "Fails unexpectedly (bench/http_load --case unexpected).",
      [](const json&, request_context&) -> tool_result {
        throw std::runtime_error("internal detail that must not reach the client");
      },
      {{"type", "object"}}, quick_inline);
}

int main(int argc, char** argv) {
  mcpcxx::http_options opts;
  opts.port = 3000;
  bool inline_bench_tools = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--port" && i + 1 < argc) {
      opts.port = static_cast<std::uint16_t>(std::atoi(argv[++i]));
    } else if (a == "--host" && i + 1 < argc) {
      opts.host = argv[++i];
    } else if (a == "--io-threads" && i + 1 < argc) {
      opts.io_threads = static_cast<std::size_t>(std::atoi(argv[++i]));
    } else if (a == "--modern-only") {
      opts.legacy = false;
    } else if (a == "--inline-bench-tools") {
      inline_bench_tools = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--port N] [--host H] [--io-threads N] [--modern-only] "
                   "[--inline-bench-tools]\n",
                   argv[0]);
      return 2;
    }
  }
  mcpcxx::server_options so;
  so.info.name = "mcpcxx-conformance-fixture";
  so.info.version = "0.1.0";
  so.log_requests = std::getenv("MCPCXX_LOG_REQUESTS") != nullptr;
  mcpcxx::server s(so);
  add_content_tools(s);
  add_notifying_tools(s);
  add_bench_tools(s, inline_bench_tools);
  add_client_request_tools(s);
  add_resources(s);
  add_prompts(s);
  add_list_mutation_hooks(s);
  conformance::add_input_required_fixtures(s);
  conformance::add_tasks_fixtures(s);
  return mcpcxx::serve_http(s, opts);
}
