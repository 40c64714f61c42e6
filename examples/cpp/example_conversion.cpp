// The example server's conversion tool (MCPCXX_EXAMPLE_CONVERT=1, golden transcript
// tools_converted_arguments.txtar): `schedule` takes a window its schema accepts, then checks
// what the schema cannot say (the end not before the start) the way the Python fixture's pydantic
// model validator does, answering with invalid_arguments_error: row T1, like a schema failure.
#include <string>

#include "mcpcxx/mcpcxx.hpp"

namespace example {

/// Registers `schedule`.
void add_conversion_tools(mcpcxx::server& s) {
  using mcpcxx::json;
  const json window = {{"type", "object"},
                       {"properties",
                        {{"start", {{"type", "integer"}, {"title", "Start"}}},
                         {"end", {{"type", "integer"}, {"title", "End"}}}}},
                       {"required", {"start", "end"}},
                       {"title", "Window"}};
  s.add_tool({.name = "schedule",
              .description = "Schedules a window of hours.",
              .input_schema = {{"type", "object"},
                               {"$defs", {{"Window", window}}},
                               {"properties", {{"window", {{"$ref", "#/$defs/Window"}}}}},
                               {"required", {"window"}}}},
             [](const json& a, mcpcxx::request_context&) {
               const int start = a["window"]["start"].get<int>();
               const int end = a["window"]["end"].get<int>();
               if (end < start) {
                 throw mcpcxx::invalid_arguments_error(
                     json::array({{{"instanceLocation", "/window"},
                                   {"keyword", "value_error"},
                                   {"message", "Value error, end must not be before start"}}}));
               }
               return mcpcxx::tool_result::text("scheduled " + std::to_string(start) + "-" +
                                                std::to_string(end));
             });
}

}  // namespace example
