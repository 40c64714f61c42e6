// The 2026-07-28 multi-round-trip fixtures of the conformance suite (input-required-result-*):
// tools and a prompt that ask the client through request_context and are re-run on each retry.
// Each question carries the inputRequests key the suite expects.
#include <string>
#include <vector>

#include "mcpcxx/mcpcxx.hpp"

namespace conformance {

namespace {

using mcpcxx::client_request;
using mcpcxx::json;
using mcpcxx::request_context;
using mcpcxx::tool_result;

json string_schema(const char* field) {
  return {{"type", "object"},
          {"properties", {{field, {{"type", "string"}}}}},
          {"required", json::array({field})}};
}

client_request elicitation(std::string key, const std::string& message, json schema) {
  return {"elicitation/create",
          {{"message", message}, {"requestedSchema", std::move(schema)}},
          std::move(key)};
}

client_request sampling(std::string key, const std::string& text, int max_tokens) {
  json message = {{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}};
  return {"sampling/createMessage",
          {{"messages", json::array({message})}, {"maxTokens", max_tokens}},
          std::move(key)};
}

client_request roots(std::string key) { return {"roots/list", json::object(), std::move(key)}; }

// The accepted content's `field`, or the action when the user did not accept.
std::string field_of(const json& answer, const char* field) {
  if (answer.value("action", "") != "accept") return "(" + answer.value("action", "?") + ")";
  const json content = answer.value("content", json::object());
  const auto it = content.find(field);
  return it == content.end() ? "(none)" : (it->is_string() ? it->get<std::string>() : it->dump());
}

std::string sampled_text(const json& answer) {
  const json content = answer.value("content", json::object());
  return content.is_object() ? content.value("text", "") : "";
}

void add_input_tool(mcpcxx::server& s, const std::string& name, const std::string& description,
                    mcpcxx::tool_handler fn) {
  mcpcxx::tool_spec spec;
  spec.name = name;
  spec.description = description;
  spec.input_schema = {{"type", "object"}};
  s.add_tool(std::move(spec), std::move(fn));
}

void add_single_question_tools(mcpcxx::server& s) {
  add_input_tool(s, "test_input_required_result_elicitation", "Asks the user's name (elicitation).",
                 [](const json&, request_context& ctx) {
                   const json a = ctx.ask_all(
                       {elicitation("user_name", "What is your name?", string_schema("name"))})[0];
                   return tool_result::text("Hello, " + field_of(a, "name") + "!");
                 });
  add_input_tool(
      s, "test_input_required_result_sampling", "Asks the client's model a question (sampling).",
      [](const json&, request_context& ctx) {
        const json a =
            ctx.ask_all({sampling("capital_question", "What is the capital of France?", 100)})[0];
        return tool_result::text("The model said: " + sampled_text(a));
      });
  add_input_tool(
      s, "test_input_required_result_list_roots", "Asks the client's roots (roots/list).",
      [](const json&, request_context& ctx) {
        const json a = ctx.ask_all({roots("client_roots")})[0];
        return tool_result::text("Client roots: " + a.value("roots", json::array()).dump());
      });
  add_input_tool(
      s, "test_input_required_result_request_state",
      "Asks a confirmation; the answer comes back with the sealed requestState.",
      [](const json&, request_context& ctx) {
        json schema = {{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}};
        const json a = ctx.ask_all({elicitation("confirm", "Confirm to continue", schema)})[0];
        return tool_result::text("state-ok: requestState verified, answer " + field_of(a, "ok"));
      });
  add_input_tool(
      s, "test_input_required_result_tampered_state",
      "Asks a confirmation; a tampered requestState on the retry is refused.",
      [](const json&, request_context& ctx) {
        json schema = {{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}};
        const json a = ctx.ask_all({elicitation("confirm", "Confirm to continue", schema)})[0];
        return tool_result::text("confirmed: " + field_of(a, "ok"));
      });
}

void add_multi_question_tools(mcpcxx::server& s) {
  add_input_tool(
      s, "test_input_required_result_multiple_inputs",
      "Asks elicitation, sampling and roots in one round.", [](const json&, request_context& ctx) {
        const auto a =
            ctx.ask_all({elicitation("user_name", "What is your name?", string_schema("name")),
                         sampling("greeting", "Generate a greeting", 50), roots("client_roots")});
        return tool_result::text("name " + field_of(a[0], "name") + ", greeting " +
                                 sampled_text(a[1]) + ", roots " +
                                 a[2].value("roots", json()).dump());
      });
  add_input_tool(
      s, "test_input_required_result_multi_round", "Asks two questions in two rounds.",
      [](const json&, request_context& ctx) {
        const json name = ctx.ask_all(
            {elicitation("step1", "Step 1: What is your name?", string_schema("name"))})[0];
        const json color = ctx.ask_all({elicitation("step2", "Step 2: What is your favorite color?",
                                                    string_schema("color"))})[0];
        return tool_result::text(field_of(name, "name") + " likes " + field_of(color, "color"));
      });
  add_input_tool(
      s, "test_input_required_result_capabilities",
      "Asks only what the request's client capabilities declare.",
      [](const json&, request_context& ctx) {
        std::vector<client_request> questions;
        const json& caps = ctx.client_capabilities();
        if (caps.contains("elicitation")) {
          questions.push_back(
              elicitation("user_name", "What is your name?", string_schema("name")));
        }
        if (caps.contains("sampling")) questions.push_back(sampling("greeting", "Say hello", 50));
        if (questions.empty()) return tool_result::text("the client declared nothing to ask");
        const auto answers = ctx.ask_all(questions);
        return tool_result::text("answered " + std::to_string(answers.size()) + " question(s)");
      });
}

void add_prompt(mcpcxx::server& s) {
  mcpcxx::prompt_spec p;
  p.name = "test_input_required_result_prompt";
  p.description = "A prompt that asks the user for context first.";
  s.add_prompt(p, [](const std::map<std::string, std::string>&, request_context& ctx) {
    const json a = ctx.ask_all({elicitation("user_context", "What context should the prompt use?",
                                            string_schema("context"))})[0];
    json message = {
        {"role", "user"},
        {"content", {{"type", "text"}, {"text", "Use this context: " + field_of(a, "context")}}}};
    return mcpcxx::prompt_result{{}, json::array({message})};
  });
}

}  // namespace

void add_input_required_fixtures(mcpcxx::server& s) {
  add_single_question_tools(s);
  add_multi_question_tools(s);
  add_prompt(s);
}

}  // namespace conformance
