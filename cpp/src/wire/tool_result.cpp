// Tool execution errors: the CallToolResult with isError: true for the T rows, and the era list.
#include "wire/era.hpp"
#include "wire/fill.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::wire {

json supported_versions_json() {
  json v = json::array();
  for (std::string_view s : k_versions) v.push_back(s);
  return v;
}

namespace {

// {category, retryable, effect, resource} from the row, then the row's data keys.
json details_of(const row& r, const json& args) {
  if (r.data_keys == "=details") {
    const auto it = args.find("details");
    return it != args.end() && it->is_object() ? *it : json::object();
  }
  json d = {
      {"category", r.category},
      {"retryable", r.retryable == 1},
      {"effect", r.effect},
      {"resource", args.contains("resource") ? args["resource"] : args.value("name", json("?"))}};
  const json extra = detail::fill_data(r, args);
  if (extra.is_object()) d.update(extra);
  return d;
}

json build(const row& r, const json& args, bool has_output_schema) {
  json details = details_of(r, args);
  json result = {
      {"content", json::array({{{"type", "text"}, {"text", detail::fill_template(r, args)}}})},
      {"isError", true}};
  if (!has_output_schema) result["structuredContent"] = details;
  result["_meta"] = {{"mcpcxx/error", std::move(details)}};
  return result;
}

}  // namespace

json render_tool_result(situation s, const json& args, bool has_output_schema) noexcept {
  const row& r = row_of(s);
  try {
    if (r.kind != shape::tool_result) {
      return {{"content", json::array({{{"type", "text"}, {"text", render(s, args).message}}})},
              {"isError", true}};
    }
    if (s == situation::T6_tool_reported_error) return args.value("result", json::object());
    return build(r, args, has_output_schema);
  } catch (...) {
    return {{"content", json::array({{{"type", "text"}, {"text", std::string(r.message)}}})},
            {"isError", true}};
  }
}

}  // namespace mcpcxx::wire
