// JSON forms of the primitives: each spec and result is its MCP wire object.
#include <stdexcept>

#include "mcpcxx/errors.hpp"
#include "mcpcxx/primitives.hpp"

#include "model/fields.hpp"
#include "model/icons.hpp"
#include "wire/situation.hpp"

namespace mcpcxx {

using model::optional_string;
using model::optional_value;
using model::put;
using model::required_string;

namespace {

// The descriptor fields a resource and a resource template share (besides uri/uriTemplate).
template <class Spec>
void put_descriptor(json& j, const Spec& s) {
  put(j, "title", s.title);
  put(j, "description", s.description);
  put(j, "mimeType", s.mime_type);
}

template <class Spec>
void read_descriptor(const json& j, const char* what, Spec& s) {
  s.name = required_string(j, "name", what);
  s.title = optional_string(j, "title", what);
  s.description = optional_string(j, "description", what);
  s.mime_type = optional_string(j, "mimeType", what);
}

template <class Spec>
void put_decorations(json& j, const Spec& s) {
  put(j, "icons", s.icons);
  put(j, "annotations", s.annotations);
  put(j, "_meta", s.meta);
}

template <class Spec>
void read_decorations(const json& j, const char* what, Spec& s) {
  s.icons = model::read_icons(j, what);
  s.annotations = optional_value(j, "annotations");
  s.meta = optional_value(j, "_meta");
}

}  // namespace

void to_json(json& j, const tool_spec& s) {
  j = {{"name", s.name}};
  put(j, "title", s.title);
  put(j, "description", s.description);
  j["inputSchema"] = s.input_schema;
  if (s.output_schema) j["outputSchema"] = *s.output_schema;
  put(j, "annotations", s.annotations);
  put(j, "icons", s.icons);
  put(j, "_meta", s.meta);
}

void from_json(const json& j, tool_spec& s) {
  constexpr const char* what = "Tool";
  model::require_object(j, what);
  s.name = required_string(j, "name", what);
  s.title = optional_string(j, "title", what);
  s.description = optional_string(j, "description", what);
  if (json schema = optional_value(j, "inputSchema"); !schema.is_null()) s.input_schema = schema;
  if (json schema = optional_value(j, "outputSchema"); !schema.is_null()) s.output_schema = schema;
  s.annotations = optional_value(j, "annotations");
  s.icons = model::read_icons(j, what);
  s.meta = optional_value(j, "_meta");
  // 2025-11-25 execution.taskSupport; to_json leaves it out: the engine lists it to 2025-11-25
  // sessions only (it is not in the 2026-07-28 Tool).
  if (json exec = optional_value(j, "execution"); !exec.is_null()) {
    model::require_object(exec, "Tool.execution");
    if (json ts = optional_value(exec, "taskSupport"); !ts.is_null()) {
      const auto parsed = ts.is_string() ? parse_task_support(ts.get<std::string>()) : std::nullopt;
      if (!parsed)
        model::fail(what, "execution.taskSupport", "\"forbidden\", \"optional\" or \"required\"",
                    ts);
      s.task = *parsed;
    }
  }
}

void to_json(json& j, const tool_result& r) {
  if (r.error) {  // tool_result::failed: its T2 result (as for a tool without an outputSchema)
    j = wire::render_tool_error_result(r.error->message(), r.error->details(), false);
    return;
  }
  if (r.unexpected) {
    // Its T3 result carries a reference id that must be logged with the detail: only the engine
    // can give one.
    throw std::logic_error(
        "a tool_result::failed(unexpected_error) has no CallToolResult of its own: the engine "
        "gives it one (row T3, with a reference id it logs); return it from a tool handler");
  }
  j = {{"content", r.content}};
  if (r.structured_content) j["structuredContent"] = *r.structured_content;
  if (r.is_error) j["isError"] = true;
  put(j, "_meta", r.meta);
}

void from_json(const json& j, tool_result& r) {
  constexpr const char* what = "CallToolResult";
  model::require_object(j, what);
  r.content = optional_value(j, "content");
  if (r.content.is_null()) r.content = json::array();
  if (!r.content.is_array()) model::fail(what, "content", "a list of content blocks", r.content);
  if (json s = optional_value(j, "structuredContent"); !s.is_null()) r.structured_content = s;
  const json is_error = optional_value(j, "isError");
  if (!is_error.is_null() && !is_error.is_boolean()) {
    model::fail(what, "isError", "a boolean", is_error);
  }
  r.is_error = is_error.is_boolean() && is_error.get<bool>();
  r.meta = optional_value(j, "_meta");
}

void to_json(json& j, const resource_spec& s) {
  j = {{"uri", s.uri}, {"name", s.name}};
  put_descriptor(j, s);
  if (s.size) j["size"] = *s.size;
  put_decorations(j, s);
}

void from_json(const json& j, resource_spec& s) {
  constexpr const char* what = "Resource";
  model::require_object(j, what);
  s.uri = required_string(j, "uri", what);
  read_descriptor(j, what, s);
  if (j.contains("size") && !j["size"].is_null()) {
    std::int64_t size = 0;
    model::read(j, "size", what, size);
    s.size = size;
  }
  read_decorations(j, what, s);
}

void to_json(json& j, const resource_contents& c) {
  j = {{"uri", c.uri}};
  put(j, "mimeType", c.mime_type);
  put(j, "text", c.text);
  put(j, "blob", c.blob_base64);
  put(j, "_meta", c.meta);
}

void from_json(const json& j, resource_contents& c) {
  constexpr const char* what = "ResourceContents";
  model::require_object(j, what);
  c.uri = required_string(j, "uri", what);
  c.mime_type = optional_string(j, "mimeType", what);
  c.text = optional_string(j, "text", what);
  c.blob_base64 = optional_string(j, "blob", what);
  if (c.text.has_value() == c.blob_base64.has_value()) {
    throw std::invalid_argument("ResourceContents for '" + c.uri +
                                "' needs exactly one of 'text' and 'blob'");
  }
  c.meta = optional_value(j, "_meta");
}

void to_json(json& j, const resource_template_spec& s) {
  j = {{"uriTemplate", s.uri_template}, {"name", s.name}};
  put_descriptor(j, s);
  put_decorations(j, s);
}

void from_json(const json& j, resource_template_spec& s) {
  constexpr const char* what = "ResourceTemplate";
  model::require_object(j, what);
  s.uri_template = required_string(j, "uriTemplate", what);
  read_descriptor(j, what, s);
  read_decorations(j, what, s);
}

void to_json(json& j, const prompt_argument& a) {
  j = {{"name", a.name}};
  put(j, "title", a.title);
  put(j, "description", a.description);
  j["required"] = a.required;
}

void from_json(const json& j, prompt_argument& a) {
  constexpr const char* what = "PromptArgument";
  model::require_object(j, what);
  a.name = required_string(j, "name", what);
  a.title = optional_string(j, "title", what);
  a.description = optional_string(j, "description", what);
  a.required = false;
  model::read(j, "required", what, a.required);
}

void to_json(json& j, const prompt_spec& s) {
  j = {{"name", s.name}};
  put(j, "title", s.title);
  put(j, "description", s.description);
  if (!s.arguments.empty()) j["arguments"] = s.arguments;
  put(j, "icons", s.icons);
  put(j, "_meta", s.meta);
}

void from_json(const json& j, prompt_spec& s) {
  constexpr const char* what = "Prompt";
  model::require_object(j, what);
  s.name = required_string(j, "name", what);
  s.title = optional_string(j, "title", what);
  s.description = optional_string(j, "description", what);
  const json args = optional_value(j, "arguments");
  if (!args.is_null() && !args.is_array()) model::fail(what, "arguments", "a list", args);
  s.arguments =
      args.is_null() ? std::vector<prompt_argument>{} : args.get<std::vector<prompt_argument>>();
  s.icons = model::read_icons(j, what);
  s.meta = optional_value(j, "_meta");
}

void to_json(json& j, const prompt_result& r) {
  j = {{"messages", r.messages}};
  put(j, "description", r.description);
}

void from_json(const json& j, prompt_result& r) {
  constexpr const char* what = "GetPromptResult";
  model::require_object(j, what);
  r.description = optional_string(j, "description", what);
  r.messages = optional_value(j, "messages");
  if (!r.messages.is_array()) model::fail(what, "messages", "a list of messages", r.messages);
}

void to_json(json& j, const completion_request& r) {
  const bool prompt = r.ref_type == "ref/prompt";
  j = {{"ref", {{"type", r.ref_type}, {prompt ? "name" : "uri", r.ref}}},
       {"argument", {{"name", r.argument_name}, {"value", r.argument_value}}},
       {"context", {{"arguments", r.context_arguments}}}};
}

void from_json(const json& j, completion_request& r) {
  constexpr const char* what = "CompleteRequest params";
  model::require_object(j, what);
  const json ref = optional_value(j, "ref");
  model::require_object(ref, "CompleteRequest params.ref");
  r.ref_type = required_string(ref, "type", "ref");
  if (r.ref_type != "ref/prompt" && r.ref_type != "ref/resource") {
    model::fail("ref", "type", "\"ref/prompt\" or \"ref/resource\"", ref["type"]);
  }
  r.ref = required_string(ref, r.ref_type == "ref/prompt" ? "name" : "uri", "ref");
  const json arg = optional_value(j, "argument");
  model::require_object(arg, "CompleteRequest params.argument");
  r.argument_name = required_string(arg, "name", "argument");
  r.argument_value = required_string(arg, "value", "argument");
  r.context_arguments.clear();
  const json args = optional_value(optional_value(j, "context"), "arguments");
  if (args.is_null()) return;
  model::require_object(args, "CompleteRequest params.context.arguments");
  for (const auto& [k, v] : args.items()) {
    if (!v.is_string()) model::fail("context.arguments", k, "a string", v);
    r.context_arguments[k] = v.get<std::string>();
  }
}

void to_json(json& j, const completion_result& r) {
  j = {{"values", r.values}, {"hasMore", r.has_more}};
  if (r.total) j["total"] = *r.total;
}

void from_json(const json& j, completion_result& r) {
  constexpr const char* what = "Completion";
  model::require_object(j, what);
  const json values = optional_value(j, "values");
  model::read(j, "values", what, r.values);
  if (values.is_null()) model::fail(what, "values", "a list of strings", values);
  r.total.reset();
  if (j.contains("total") && !j["total"].is_null()) {
    std::int64_t total = 0;
    model::read(j, "total", what, total);
    r.total = total;
  }
  r.has_more = false;
  model::read(j, "hasMore", what, r.has_more);
}

}  // namespace mcpcxx
