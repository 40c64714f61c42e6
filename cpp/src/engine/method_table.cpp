// The method table (go-sdk style): one row per method with its typed params, and the params
// decoders; gating lives in session_state.cpp.
#include "engine/method_table.hpp"

#include <array>
#include <variant>

#include "engine/exchange.hpp"
#include "engine/input_round.hpp"
#include "engine/session_state.hpp"
#include "engine/wire_errors.hpp"

namespace mcpcxx::detail {

namespace {

constexpr unsigned both = in_legacy | in_modern;

// Decodes `P` from the request's params, then calls `H`; a refusal is the decoder's row.
template <class P, method_outcome (*H)(const exchange_ptr&, P&)>
method_outcome typed(const exchange_ptr& ex) {
  P params;
  if (auto refusal = decode(ex->params(), ex->method(), params)) return std::move(*refusal);
  return H(ex, params);
}

// `typed` for the methods that may answer input_required: on 2026-07-28 it first opens the
// request's inputResponses and requestState; a state that does not open for this request is
// refused before the handler runs.
template <class P, method_outcome (*H)(const exchange_ptr&, P&)>
method_outcome resumable(const exchange_ptr& ex) {
  if (ex->facts.modern) {
    auto opened = input_round::open(ex);
    if (auto* refusal = std::get_if<method_outcome>(&opened)) return std::move(*refusal);
    ex->set_input_round(std::get<std::shared_ptr<input_round>>(std::move(opened)));
  }
  return typed<P, H>(ex);
}

constexpr std::array<method_info, 20> k_methods{{
    {"initialize", in_legacy | before_init | not_cancellable, "",
     typed<initialize_params, handle_initialize>},
    {"ping", in_legacy | before_init, "", typed<no_params, handle_ping>},
    {"server/discover", in_modern, "", typed<no_params, handle_discover>},
    {"logging/setLevel", in_legacy, "logging", typed<set_level_params, handle_set_level>},
    {"tools/list", both, "tools", typed<list_params, handle_list>},
    {"tools/call", both | on_worker, "tools", resumable<tools_call_params, handle_tools_call>},
    {"resources/list", both, "resources", typed<list_params, handle_list>},
    {"resources/templates/list", both, "resources", typed<list_params, handle_list>},
    {"resources/read", both | on_worker, "resources", resumable<uri_params, handle_resources_read>},
    {"resources/subscribe", in_legacy, "resources", typed<uri_params, handle_resources_subscribe>},
    {"resources/unsubscribe", in_legacy, "resources",
     typed<uri_params, handle_resources_unsubscribe>},
    {"prompts/list", both, "prompts", typed<list_params, handle_list>},
    {"prompts/get", both | on_worker, "prompts", resumable<prompts_get_params, handle_prompts_get>},
    {"completion/complete", both | on_worker, "completions",
     typed<complete_params, handle_complete>},
    // tasks (engine/task_methods.cpp): 2025-11-25 core, 2026-07-28 the tasks extension
    {"tasks/get", both, "tasks", typed<task_id_params, handle_tasks_get>},
    {"tasks/result", in_legacy | on_worker, "tasks", typed<task_id_params, handle_tasks_result>},
    {"tasks/list", in_legacy, "tasks", typed<list_params, handle_tasks_list>},
    {"tasks/cancel", both, "tasks", typed<task_id_params, handle_tasks_cancel>},
    {"tasks/update", in_modern, "tasks", typed<task_update_params, handle_tasks_update>},
    {"subscriptions/listen", in_modern, "", typed<listen_params, handle_listen>},
}};

}  // namespace

const method_info* find_method(std::string_view name) noexcept {
  for (const auto& m : k_methods) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::span<const method_info> all_methods() noexcept { return k_methods; }

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

decode_result decode(json& params, std::string_view, tools_call_params& out) {
  auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    return method_outcome::protocol(situation::P16_tool_name_missing);
  }
  auto args = params.find("arguments");
  if (args != params.end() && !args->is_object() && !args->is_null()) {
    return method_outcome::protocol(situation::P16a_tool_arguments_not_object,
                                    {{"type", args->type_name()}});
  }
  static const json no_arguments = json::object();
  out.name = name->get<std::string>();
  out.arguments = args != params.end() && args->is_object() ? &*args : &no_arguments;
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

decode_result decode(json& params, std::string_view method, task_id_params& out) {
  const json* id = member(params, "taskId");
  if (id == nullptr || !id->is_string()) {
    return missing(method, "taskId", ", the taskId string a CreateTaskResult returned");
  }
  out.task_id = id->get<std::string>();
  return std::nullopt;
}

decode_result decode(json& params, std::string_view method, task_update_params& out) {
  task_id_params id;
  if (auto refusal = decode(params, method, id)) return refusal;
  out.task_id = std::move(id.task_id);
  const json* r = member(params, "inputResponses");
  if (r == nullptr)
    return missing(method, "inputResponses", ", an object keyed like inputRequests");
  if (!r->is_object()) {
    return invalid("params.inputResponses", "an object mapping inputRequests keys to results", r);
  }
  out.input_responses = std::move(params["inputResponses"]);
  return std::nullopt;
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
