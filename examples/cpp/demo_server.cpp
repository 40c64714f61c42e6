// A C++ MCP server over stdio with one tool per wire shape a client sees (scripts/demo.sh drives it
// with scripts/demo_client.py):
//   echo          success: a text result
//   lookup_issue  an expected failure: throw mcpcxx::tool_error, the client reads exactly its text
//   explode       an unexpected exception: the client gets a sanitized isError result with a
//                 reference id; the exception itself goes to the server log (stderr) only
//   add           a structured result checked against the tool's outputSchema
//   broken_add    a result that breaks its outputSchema (a server bug): an isError result
//   slow_write    a deadline: past 200 ms the client gets an isError timeout saying the outcome
//                 is unknown; the handler sees ctx.cancelled() and should stop
// Arguments are validated against each inputSchema before a handler runs, so `args` here has the
// declared shape.
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "mcpcxx/mcpcxx.hpp"

namespace {

using mcpcxx::json;

const json k_add_input = {
    {"type", "object"},
    {"properties", {{"a", {{"type", "integer"}}}, {"b", {{"type", "integer"}}}}},
    {"required", {"a", "b"}}};
const json k_sum_output = {
    {"type", "object"}, {"properties", {{"sum", {{"type", "integer"}}}}}, {"required", {"sum"}}};

}  // namespace

int main() {
  mcpcxx::server s({.info = {.name = "mcpcxx-demo", .version = "1.0"},
                    .instructions = "Tools that show each error path of the MCP wire."});

  s.add_tool(
      {.name = "echo",
       .description = "Returns the given text unchanged.",
       .input_schema = {{"type", "object"},
                        {"properties", {{"text", {{"type", "string"}, {"maxLength", 1000}}}}},
                        {"required", {"text"}}},
       .annotations = {{"readOnlyHint", true}}},
      [](const json& args, mcpcxx::request_context&) {
        return mcpcxx::tool_result::text(args["text"].get<std::string>());
      });

  s.add_tool(
      {.name = "lookup_issue",
       .description = "Looks up an issue by key, e.g. ENG-1.",
       .input_schema = {{"type", "object"},
                        {"properties",
                         {{"key", {{"type", "string"}, {"pattern", "^[A-Z]+-[0-9]+$"}}}}},
                        {"required", {"key"}}},
       .annotations = {{"readOnlyHint", true}}},
      [](const json& args, mcpcxx::request_context&) -> mcpcxx::tool_result {
        const std::string key = args["key"].get<std::string>();
        if (key == "ENG-1") return mcpcxx::tool_result::text("ENG-1: Fix the login page");
        // What failed, which input, why, and what to do next: the text a model recovers from.
        throw mcpcxx::tool_error(
            mcpcxx::compose_tool_error_message({"Issue lookup", "issue " + key, "it was not found",
                                                "Verify the issue key or list recent issues first",
                                                "Do not retry unchanged"}),
            mcpcxx::error_category::not_found, /*retryable=*/false, key);
      });

  s.add_tool({.name = "explode",
              .description = "Always fails with an unexpected internal exception.",
              .input_schema = {{"type", "object"}, {"properties", json::object()}}},
             [](const json&, mcpcxx::request_context&) -> mcpcxx::tool_result {
               throw std::runtime_error("database password=hunter2 rejected at db.internal:5432");
             });

  s.add_tool({.name = "add",
              .description = "Adds two integers.",
              .input_schema = k_add_input,
              .output_schema = k_sum_output,
              .annotations = {{"readOnlyHint", true}}},
             [](const json& args, mcpcxx::request_context&) {
               return mcpcxx::tool_result::structured(
                   {{"sum", args["a"].get<long long>() + args["b"].get<long long>()}});
             });

  s.add_tool({.name = "broken_add",
              .description = "Adds two integers but returns a string (a bug).",
              .input_schema = k_add_input,
              .output_schema = k_sum_output},
             [](const json&, mcpcxx::request_context&) {
               return mcpcxx::tool_result::structured({{"sum", "three"}});
             });

  s.add_tool({.name = "slow_write",
              .description = "Writes slowly; times out after 200 ms.",
              .input_schema = {{"type", "object"},
                               {"properties", {{"ms", {{"type", "integer"}, {"default", 1000}}}}}},
              .timeout = std::chrono::milliseconds(200)},
             [](const json& args, mcpcxx::request_context& ctx) {
               const auto ms = args.value("ms", 1000);
               for (int i = 0; i < ms / 10 && !ctx.cancelled(); ++i) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(10));
               }
               return mcpcxx::tool_result::text(ctx.cancelled() ? "cancelled" : "written");
             });

  return mcpcxx::serve_stdio(s);
}
