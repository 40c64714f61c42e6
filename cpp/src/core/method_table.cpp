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

// `obj`'s member `key` when `obj` is an object and the member a string, else nullptr.
const json* string_member(const json* obj, const char* key) {
  if (obj == nullptr || !obj->is_object()) return nullptr;
  auto it = obj->find(key);
  return it != obj->end() && it->is_string() ? &*it : nullptr;
}

// The name of a {type: "ref/prompt", name} or the uri of a {type: "ref/resource", uri}; nullptr
// for any other ref (`type` is its string type member, or nullptr).
const json* ref_target(const json* ref, const json* type) {
  if (type == nullptr) return nullptr;
  const auto& t = type->get_ref<const std::string&>();
  if (t == "ref/prompt") return string_member(ref, "name");
  return t == "ref/resource" ? string_member(ref, "uri") : nullptr;
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
  const json* ref = member(params, "ref");
  const json* type = string_member(ref, "type");
  const json* target = ref_target(ref, type);
  if (target == nullptr) {
    return missing(method, "ref", " {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri}");
  }
  const json* arg = member(params, "argument");
  const json* name = string_member(arg, "name");
  const json* value = string_member(arg, "value");
  if (name == nullptr || value == nullptr) return missing(method, "argument", " {name, value}");
  out.request = {type->get<std::string>(),
                 target->get<std::string>(),
                 name->get<std::string>(),
                 value->get<std::string>(),
                 {}};
  const json* context = member(params, "context");
  if (context == nullptr || !context->is_object()) return std::nullopt;
  return string_map(member(*context, "arguments"), "context.arguments",
                    out.request.context_arguments);
}

}  // namespace mcpcxx::detail
