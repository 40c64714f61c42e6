// Tool execution errors: the CallToolResult with isError: true for the T rows, and the era list.
#include <type_traits>
#include <utility>

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

// {category, retryable, effect, resource} from the row, then the row's data keys (copied from a
// const `args`, moved out of any other). Members are inserted one by one: initializer lists of
// json copy every value once more.
template <class Args>
json details_of(const row& r, Args& args) {
  if (r.data_keys == "=details") {
    const auto it = args.find("details");
    if (it == args.end() || !it->is_object()) return json::object();
    if constexpr (std::is_const_v<Args>) {
      return *it;
    } else {
      return std::move(*it);
    }
  }
  json d(json::value_t::object);
  d["category"] = r.category;
  d["retryable"] = r.retryable == 1;
  d["effect"] = r.effect;
  const auto resource = args.find("resource");
  if (resource != args.end()) {
    d["resource"] = *resource;
  } else {
    const auto name = args.find("name");
    d["resource"] = name != args.end() ? *name : json("?");
  }
  json extra;
  if constexpr (std::is_const_v<Args>) {
    extra = detail::fill_data(r, args);
  } else {
    extra = detail::take_data(r, args);
  }
  if (extra.is_object()) {
    for (auto& [key, value] : extra.get_ref<json::object_t&>()) d[key] = std::move(value);
  }
  return d;
}

// {"content":[{"type":"text","text":text}],"isError":true}: the result without its details.
// Members are emplaced in key order at the end of each map (no lookups, no initializer lists).
json build_base(std::string text) {
  json block(json::value_t::object);
  auto& b = block.get_ref<json::object_t&>();
  b.emplace_hint(b.end(), "text", std::move(text));
  b.emplace_hint(b.end(), "type", "text");
  json content(json::value_t::array);
  content.get_ref<json::array_t&>().push_back(std::move(block));
  json result(json::value_t::object);
  auto& r = result.get_ref<json::object_t&>();
  r.emplace_hint(r.end(), "content", std::move(content));
  r.emplace_hint(r.end(), "isError", true);
  return result;
}

// The whole result: the base with details in _meta and, unless an outputSchema, structuredContent.
json build(std::string text, json details, bool has_output_schema) {
  return whole_tool_result({build_base(std::move(text)), std::move(details), !has_output_schema});
}

// T2's text: its template is exactly its message; any other template is filled the generic way.
std::string t2_text(const row& r, const std::string& message) {
  return r.message == "{message}" ? message : detail::fill_template(r, json{{"message", message}});
}

json bare(std::string text) {
  return {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})},
          {"isError", true}};
}

}  // namespace

json whole_tool_result(tool_failure_parts parts) {
  if (parts.details.is_null()) return std::move(parts.result);
  auto& r = parts.result.get_ref<json::object_t&>();
  if (parts.structured) r.insert_or_assign("structuredContent", parts.details);
  json& meta = r["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta["mcpcxx/error"] = std::move(parts.details);
  return std::move(parts.result);
}

json render_tool_result(situation s, const json& args, bool has_output_schema) noexcept {
  const row& r = row_of(s);
  try {
    if (r.kind != shape::tool_result) return bare(render(s, args).message);
    if (s == situation::T6_tool_reported_error) return args.value("result", json::object());
    return build(detail::fill_template(r, args), details_of(r, args), has_output_schema);
  } catch (...) {
    return bare(std::string(r.message));
  }
}

tool_failure_parts render_tool_failure(situation s, json&& args, bool has_output_schema) noexcept {
  const row& r = row_of(s);
  try {
    if (r.kind != shape::tool_result || s == situation::T6_tool_reported_error) {
      return {render_tool_result(s, std::as_const(args), has_output_schema), nullptr, false};
    }
    std::string text = detail::fill_template(r, args);  // before the data leaves args
    json details = details_of(r, args);
    return {build_base(std::move(text)), std::move(details), !has_output_schema};
  } catch (...) {
    return {bare(std::string(r.message)), nullptr, false};
  }
}

json render_tool_error_result(const std::string& message, json details,
                              bool has_output_schema) noexcept {
  const row& r = row_of(situation::T2_tool_error);
  try {
    if (!details.is_object()) details = json::object();
    return build(t2_text(r, message), std::move(details), has_output_schema);
  } catch (...) {
    return bare(std::string(r.message));
  }
}

}  // namespace mcpcxx::wire
