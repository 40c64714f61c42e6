// prompts/get and completion/complete.
#include <algorithm>

#include "engine/call.hpp"
#include "engine/method_table.hpp"
#include "engine/wire_errors.hpp"

namespace mcpcxx::detail {

namespace {

// Prompt arguments are a string map; anything else is refused with a precise message.
std::optional<std::map<std::string, std::string>> string_map(call& c, const json& v,
                                                             std::string_view what) {
  std::map<std::string, std::string> out;
  if (v.is_null()) return out;
  if (!v.is_object()) {
    c.reply_error(wire::invalid_params(std::string(what) + " must be an object of strings"));
    return std::nullopt;
  }
  for (const auto& [k, val] : v.items()) {
    if (!val.is_string()) {
      c.reply_error(wire::invalid_params(std::string(what) + "." + k + " must be a string, got " +
                                         val.type_name()));
      return std::nullopt;
    }
    out[k] = val.get<std::string>();
  }
  return out;
}

json value_or_null(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? json() : *it;
}

}  // namespace

void handle_prompts_get(call& c) {
  auto name = c.params.find("name");
  if (name == c.params.end() || !name->is_string()) {
    c.reply_error(
        wire::invalid_params("prompts/get needs params.name, the prompt name as a string"));
    return;
  }
  const std::string n = name->get<std::string>();
  auto prompt = c.eng().find_prompt(n);
  if (!prompt) {
    c.reply_error(wire::unknown_prompt(n, closest_keys(n, c.eng().prompt_names())));
    return;
  }
  auto args = string_map(c, value_or_null(c.params, "arguments"), "arguments");
  if (!args) return;
  std::vector<std::string> missing;
  for (const auto& a : prompt->spec.arguments) {
    if (a.required && args->count(a.name) == 0) missing.push_back(a.name);
  }
  if (!missing.empty()) {
    c.reply_error(wire::missing_prompt_arguments(n, missing));
    return;
  }
  request_context ctx = c.make_context();
  prompt_result r = prompt->handler(*args, ctx);
  json result = {{"messages", std::move(r.messages)}};
  if (r.description) result["description"] = *r.description;
  c.reply_result(std::move(result));
}

void handle_complete(call& c) {
  const json ref = value_or_null(c.params, "ref");
  const json arg = value_or_null(c.params, "argument");
  const bool ref_ok = ref.is_object() && ref.contains("type") && ref["type"].is_string();
  const std::string type = ref_ok ? ref["type"].get<std::string>() : "";
  const char* ref_key = type == "ref/prompt" ? "name" : "uri";
  if (!ref_ok || (type != "ref/prompt" && type != "ref/resource") || !ref.contains(ref_key) ||
      !ref[ref_key].is_string()) {
    c.reply_error(
        wire::invalid_params("completion/complete needs params.ref {type: \"ref/prompt\", name} or "
                             "{type: \"ref/resource\", uri}"));
    return;
  }
  if (!arg.is_object() || !arg.contains("name") || !arg["name"].is_string() ||
      !arg.contains("value") || !arg["value"].is_string()) {
    c.reply_error(wire::invalid_params("completion/complete needs params.argument {name, value}"));
    return;
  }
  completion_request req{type,
                         ref[ref_key].get<std::string>(),
                         arg["name"].get<std::string>(),
                         arg["value"].get<std::string>(),
                         {}};
  if (type == "ref/prompt" && !c.eng().find_prompt(req.ref)) {
    c.reply_error(wire::unknown_prompt(req.ref, closest_keys(req.ref, c.eng().prompt_names())));
    return;
  }
  const json context = value_or_null(c.params, "context");
  if (context.is_object()) {
    auto ctx_args = string_map(c, value_or_null(context, "arguments"), "context.arguments");
    if (!ctx_args) return;
    req.context_arguments = std::move(*ctx_args);
  }
  request_context ctx = c.make_context();
  completion_result r = c.eng().completion()(req, ctx);
  const std::size_t n = std::min<std::size_t>(r.values.size(), 100);
  json values = json::array();
  for (std::size_t i = 0; i < n; ++i) values.push_back(r.values[i]);
  json completion = {{"values", std::move(values)}, {"hasMore", r.has_more || r.values.size() > n}};
  if (r.total) completion["total"] = *r.total;
  c.reply_result({{"completion", std::move(completion)}});
}

}  // namespace mcpcxx::detail
