#include "mcpcxx/mcpcxx.hpp"
int main() {
  mcpcxx::server s({.info = {.name = "demo", .version = "1.0"}});
  s.add_tool({.name = "echo",
              .description = "Echo text",
              .input_schema = {{"type", "object"},
                               {"properties", {{"text", {{"type", "string"}}}}},
                               {"required", {"text"}}}},
             [](const mcpcxx::json& args, mcpcxx::request_context&) {
               return mcpcxx::tool_result::text(args["text"].get<std::string>());
             });
  return mcpcxx::serve_stdio(s);
}
