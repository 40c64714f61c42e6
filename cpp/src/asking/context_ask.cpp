// request_context's server-to-client requests: elicit, elicit_url, sample, list_roots. The
// capability checks live here so both eras refuse the same way before anything is sent; the
// transport of the question is the era's context_hooks::ask.
#include <string>

#include "mcpcxx/context.hpp"
#include "mcpcxx/errors.hpp"

#include "asking/elicit_schema.hpp"
#include "core/client_caps.hpp"
#include "wire/revisions.hpp"

namespace mcpcxx {

namespace {

using detail::declares;

constexpr std::string_view k_elicit = "elicitation/create";
constexpr std::string_view k_sample = "sampling/createMessage";
constexpr std::string_view k_roots = "roots/list";

using wire::feature;

[[noreturn]] void refuse(std::string_view method, std::string capability) {
  throw client_capability_error(std::string(method), std::move(capability));
}

// Form mode is implied by a bare `elicitation: {}` (2025-06-18 shape and the 2025-11-25 default).
bool supports_form(const json& caps) {
  if (!declares(caps, "elicitation")) return false;
  const json& e = caps.at("elicitation");
  return e.contains("form") || !e.contains("url");
}

elicit_result parse_elicit_result(const json& result) {
  if (!result.is_object() || !result.contains("action") || !result.at("action").is_string()) {
    throw client_answer_invalid(std::string(k_elicit), "the result has no string \"action\"");
  }
  const std::string action = result.at("action").get<std::string>();
  if (action != "accept" && action != "decline" && action != "cancel") {
    throw client_answer_invalid(
        std::string(k_elicit),
        "\"action\" must be accept, decline or cancel, got \"" + action + "\"");
  }
  json content = nullptr;
  if (action == "accept" && result.contains("content")) content = result.at("content");
  return {action, std::move(content)};
}

bool wants_sampling_tools(const json& params) {
  return params.is_object() && (params.contains("tools") || params.contains("toolChoice"));
}

bool wants_sampling_context(const json& params) {
  return params.is_object() && params.contains("includeContext") &&
         params.at("includeContext") != "none";
}

// Refuses, before anything is sent, a sampling request the client did not declare it takes.
void require_sampling_support(const json& caps, std::string_view version, const json& params) {
  if (!declares(caps, "sampling")) refuse(k_sample, "sampling");
  const json& sampling = caps.at("sampling");
  if (wants_sampling_tools(params) &&
      (!wire::has(version, feature::sampling_tools) || !sampling.contains("tools"))) {
    refuse(k_sample, "sampling.tools");
  }
  if (wants_sampling_context(params) && wire::has(version, feature::sampling_context_capability) &&
      !sampling.contains("context")) {
    refuse(k_sample, "sampling.context");
  }
}

void check_create_message_result(const json& result) {
  if (!result.is_object() || !result.contains("content") || !result.contains("role") ||
      !result.contains("model")) {
    throw client_answer_invalid(std::string(k_sample),
                                "a CreateMessageResult needs \"role\", \"content\" and \"model\"");
  }
}

}  // namespace

json request_context::ask_client(std::string_view method, json params) {
  if (!hooks_.ask) refuse(method, std::string(method.substr(0, method.find('/'))));
  return hooks_.ask(client_request{std::string(method), std::move(params)});
}

elicit_result request_context::elicit(std::string_view message, const json& requested_schema) {
  detail::check_elicitation_schema(requested_schema, protocol_version_);
  if (!wire::has(protocol_version_, feature::elicitation_form) ||
      !supports_form(client_capabilities_)) {
    refuse(k_elicit,
           declares(client_capabilities_, "elicitation") ? "elicitation.form" : "elicitation");
  }
  json params = {{"message", std::string(message)}, {"requestedSchema", requested_schema}};
  if (wire::has(protocol_version_, feature::elicitation_modes)) params["mode"] = "form";
  auto result = parse_elicit_result(ask_client(k_elicit, std::move(params)));
  if (result.action == "accept" && !result.content.is_object()) {
    throw client_answer_invalid(std::string(k_elicit),
                                "an accepted form elicitation must carry an object \"content\"");
  }
  if (result.action == "accept") {
    if (auto why = detail::elicitation_content_violations(requested_schema, result.content)) {
      throw client_answer_invalid(std::string(k_elicit),
                                  "the accepted content does not match requestedSchema: " + *why);
    }
  }
  return result;
}

elicit_result request_context::elicit_url(std::string_view message, std::string_view url,
                                          std::string_view elicitation_id) {
  if (!wire::has(protocol_version_, feature::elicitation_modes) ||
      !detail::declares_url_elicitation(client_capabilities_)) {
    refuse(k_elicit, "elicitation.url");
  }
  json params = {{"mode", "url"},
                 {"message", std::string(message)},
                 {"url", std::string(url)},
                 {"elicitationId", std::string(elicitation_id)}};
  auto result = parse_elicit_result(ask_client(k_elicit, std::move(params)));
  result.content = nullptr;  // URL mode never carries content
  return result;
}

json request_context::sample(const json& params) {
  require_sampling_support(client_capabilities_, protocol_version_, params);
  json result = ask_client(k_sample, params);
  check_create_message_result(result);
  return result;
}

json request_context::list_roots() {
  if (!declares(client_capabilities_, "roots")) refuse(k_roots, "roots");
  json result = ask_client(k_roots, json::object());
  if (!result.is_object() || !result.contains("roots") || !result.at("roots").is_array()) {
    throw client_answer_invalid(std::string(k_roots), "a ListRootsResult needs a \"roots\" array");
  }
  return result.at("roots");
}

}  // namespace mcpcxx
