// A ten-line MCP server built against mcpcxx as a consumer would (scripts/test-consumer.sh).
#include <mcpcxx/http.hpp>
#include <mcpcxx/mcpcxx.hpp>
#include <mcpcxx/version.hpp>

int main(int argc, char** argv) {
  mcpcxx::server s({.info = {.name = "consumer", .version = std::string(mcpcxx::version_string)}});
  s.add_tool({.name = "echo", .description = "Returns text.", .input_schema = {{"type", "object"}}},
             [](const mcpcxx::json& args, mcpcxx::request_context&) {
               return mcpcxx::tool_result::text(args.value("text", std::string()));
             });
  if (argc > 1 && std::string_view(argv[1]) == "--http") return mcpcxx::serve_http(s);
  return mcpcxx::serve_stdio(s);
}
