// The method table (go-sdk style): one row per method with its typed params, and the params
// decoders; gating lives in session_state.cpp.
#include "core/method_table.hpp"

#include <array>

#include "core/exchange.hpp"
#include "core/session_state.hpp"
#include "core/wire_errors.hpp"

namespace mcpcxx::detail {

namespace {}  // namespace

// ---- params decoders ----
namespace {

// P15's two forms ("needs" and "must be"), rows P15a and P15b.
method_outcome missing(std::string_view method, std::string_view field,
                       std::string_view requirement) {
  return method_outcome::protocol(situation::P15a_param_missing,
                                  wire::param_missing_args(method, field, requirement));
}

method_outcome invalid(std::string_view subject, std::string_view expected,
                       const json* got = nullptr) {
  return method_outcome::protocol(situation::P15b_param_invalid,
                                  wire::param_invalid_args(subject, expected, got));
}

const json* member(const json& params, const char* key) {
  auto it = params.find(key);
  return it == params.end() || it->is_null() ? nullptr : &*it;
}

// Prompt and completion-context arguments are a string map.
decode_result string_map(const json* v, const std::string& what,
                         std::map<std::string, std::string>& out) {
  if (v == nullptr) return std::nullopt;
  if (!v->is_object()) return invalid(what, "an object of strings");
  for (const auto& [k, val] : v->items()) {
    if (!val.is_string()) return invalid(std::string(what).append(".").append(k), "a string", &val);
    out[k] = val.get<std::string>();
  }
  return std::nullopt;
}

}  // namespace

method_outcome param_missing_outcome(std::string_view method, std::string_view field,
                                     std::string_view requirement) {
  return missing(method, field, requirement);
}

method_outcome param_invalid_outcome(std::string_view subject, std::string_view expected,
                                     const json* got) {
  return invalid(subject, expected, got);
}

const json* param_member(const json& params, const char* key) { return member(params, key); }

decode_result decode(json&, std::string_view, no_params&) { return std::nullopt; }

decode_result decode(json& params, std::string_view method, initialize_params& out) {
  const json* v = member(params, "protocolVersion");
  if (v == nullptr || !v->is_string()) {
    return missing(method, "protocolVersion", " (a string such as \"2025-11-25\")");
  }
  out.protocol_version = v->get<std::string>();
  if (auto it = params.find("capabilities"); it != params.end()) {
    if (!it->is_object()) return invalid(std::string(method) + " params.capabilities", "an object");
    out.capabilities = *it;
  }
  if (auto it = params.find("clientInfo"); it != params.end()) out.client_info = *it;
  return std::nullopt;
}

decode_result decode(json& params, std::string_view method, set_level_params& out) {
  auto it = params.find("level");
  if (it == params.end()) return missing(method, "level", "");
  auto level = it->is_string() ? parse_log_level(it->get_ref<const std::string&>()) : std::nullopt;
  if (!level) return method_outcome::protocol(situation::P22_invalid_log_level, {{"level", *it}});
  out.level = *level;
  return std::nullopt;
}

decode_result decode(json& params, std::string_view, list_params& out) {
  const json* c = member(params, "cursor");
  if (c == nullptr) return std::nullopt;
  if (!c->is_string()) return invalid("cursor", "a string taken from a previous nextCursor");
  out.cursor = c->get<std::string>();
  return std::nullopt;
}

decode_result decode(json& params, std::string_view method, uri_params& out) {
  const json* uri = member(params, "uri");
  if (uri == nullptr || !uri->is_string() || uri->get_ref<const std::string&>().empty()) {
    return missing(method, "uri", ", a non-empty string");
  }
  out.uri = uri->get<std::string>();
  return std::nullopt;
}

decode_result decode(json& params, std::string_view method, prompts_get_params& out) {
  const json* name = member(params, "name");
  if (name == nullptr || !name->is_string()) {
    return missing(method, "name", ", the prompt name as a string");
  }
  out.name = name->get<std::string>();
  return string_map(member(params, "arguments"), "arguments", out.arguments);
}

decode_result decode(json& params, std::string_view method, complete_params& out) {
  static const json k_null;
  const json* ref = member(params, "ref");
  const json* arg = member(params, "argument");
  const json& r = ref != nullptr ? *ref : k_null;
  const bool typed = r.is_object() && r.contains("type") && r["type"].is_string();
  const std::string type = typed ? r["type"].get<std::string>() : "";
  const char* key = type == "ref/prompt" ? "name" : "uri";
  if (!typed || (type != "ref/prompt" && type != "ref/resource") || !r.contains(key) ||
      !r[key].is_string()) {
    return missing(method, "ref", " {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri}");
  }
  if (arg == nullptr || !arg->is_object() || !arg->contains("name") ||
      !(*arg)["name"].is_string() || !arg->contains("value") || !(*arg)["value"].is_string()) {
    return missing(method, "argument", " {name, value}");
  }
  out.request = {type,
                 r[key].get<std::string>(),
                 (*arg)["name"].get<std::string>(),
                 (*arg)["value"].get<std::string>(),
                 {}};
  const json* context = member(params, "context");
  if (context == nullptr || !context->is_object()) return std::nullopt;
  return string_map(member(*context, "arguments"), "context.arguments",
                    out.request.context_arguments);
}

}  // namespace mcpcxx::detail
