// The situation -> wire shape mapping (see docs/error-model.md, which tables every row).
#include "engine/wire_errors.hpp"

#include <cstdio>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/server.hpp"

namespace mcpcxx::detail::wire {

namespace {

json supported_versions_json() {
  json v = json::array();
  for (const char* s : k_supported_versions) v.push_back(s);
  return v;
}

error_object make(int code, std::string message, json data = nullptr) {
  return error_object{code, std::move(message), std::move(data)};
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

// Builds the isError result; structuredContent only when the tool declares no outputSchema so a
// client validating structured output against the schema never sees a foreign shape.
json error_result(const tool_facts& tool, std::string text, json details) {
  json result = {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})},
                 {"isError", true}};
  if (!tool.has_output_schema) result["structuredContent"] = details;
  result["_meta"] = {{"mcpcxx/error", std::move(details)}};
  return result;
}

json details(error_category c, bool retryable, error_effect effect, std::string_view tool) {
  return {{"category", to_string(c)},
          {"retryable", retryable},
          {"effect", to_string(effect)},
          {"resource", tool}};
}

}  // namespace

error_object method_not_found(std::string_view method) {
  return make(error_code::method_not_found,
              "Method not found: " + std::string(method) +
                  ". Check the method name against the "
                  "MCP revision you speak",
              {{"method", method}});
}

error_object method_not_in_era(std::string_view method, std::string_view version) {
  return make(error_code::method_not_found,
              "Method not found: " + std::string(method) + " does not exist in protocol version " +
                  std::string(version),
              {{"method", method}, {"protocolVersion", version}});
}

error_object capability_not_advertised(std::string_view method, std::string_view capability) {
  return make(error_code::method_not_found,
              "Method not found: " + std::string(method) + " needs the '" +
                  std::string(capability) + "' capability, which this server does not offer",
              {{"method", method}, {"capability", capability}});
}

error_object missing_modern_meta(const std::vector<std::string>& missing) {
  return make(error_code::invalid_params,
              "Invalid params: params._meta lacks " + join(missing) +
                  "; every 2026-07-28 request must carry both",
              {{"missing", missing}, {"supported", supported_versions_json()}});
}

error_object unsupported_version(const json& requested) {
  return make(error_code::unsupported_protocol_version,
              "Unsupported protocol version " + requested.dump() +
                  ": retry with one of the supported versions (legacy versions via initialize)",
              {{"supported", supported_versions_json()}, {"requested", requested}});
}

error_object missing_client_capability(const json& required) {
  return make(error_code::missing_required_client_capability,
              "Missing required client capability: declare " + required.dump() +
                  " in _meta io.modelcontextprotocol/clientCapabilities and retry",
              {{"requiredCapabilities", required}});
}

error_object not_initialized(std::string_view method) {
  return make(error_code::invalid_params,
              "Session not initialized: send initialize (and notifications/initialized) before " +
                  std::string(method) +
                  ", or include params._meta with io.modelcontextprotocol/protocolVersion and "
                  "io.modelcontextprotocol/clientCapabilities to use 2026-07-28",
              {{"method", method}, {"supported", supported_versions_json()}});
}

error_object already_initialized(std::string_view version) {
  return make(error_code::invalid_request,
              "Invalid request: this session is already initialized with protocol version " +
                  std::string(version) + "; start a new session to initialize again");
}

error_object duplicate_request_id(const jsonrpc::request_id& id) {
  return make(error_code::invalid_request,
              "Invalid request: id " + jsonrpc::id_key(id) +
                  " is already in use by a request in flight; use a unique id per request");
}

error_object batch_not_allowed() {
  return make(error_code::invalid_request,
              "Invalid request: JSON-RPC batches are only supported on sessions that negotiated "
              "2025-03-26; send one message at a time");
}

error_object initialize_in_batch() {
  return make(error_code::invalid_request,
              "Invalid request: initialize must not be part of a batch; send it on its own");
}

error_object invalid_params(std::string message, json data) {
  return make(error_code::invalid_params, "Invalid params: " + std::move(message), std::move(data));
}

error_object unknown_tool(std::string_view name, const std::vector<std::string>& suggestions) {
  return make(error_code::invalid_params, "Unknown tool: " + std::string(name),
              {{"name", name}, {"didYouMean", suggestions}});
}

error_object unknown_prompt(std::string_view name, const std::vector<std::string>& suggestions) {
  return make(error_code::invalid_params, "Unknown prompt: " + std::string(name),
              {{"name", name}, {"didYouMean", suggestions}});
}

error_object missing_prompt_arguments(std::string_view name,
                                      const std::vector<std::string>& missing) {
  return make(
      error_code::invalid_params,
      "Invalid params: prompt " + std::string(name) + " requires argument(s) " + join(missing),
      {{"name", name}, {"missing", missing}});
}

error_object invalid_cursor() {
  return make(error_code::invalid_params,
              "Invalid params: the cursor was not issued by this server or no longer applies; "
              "list again without a cursor");
}

error_object resource_not_found(std::string_view uri, bool modern) {
  return make(modern ? error_code::invalid_params : error_code::resource_not_found_legacy,
              "Resource not found: " + std::string(uri) + ". List resources to see what exists",
              {{"uri", uri}});
}

error_object invalid_log_level(const json& level) {
  return make(error_code::invalid_params,
              "Invalid params: unknown log level " + level.dump() +
                  "; use one of debug, info, notice, warning, error, critical, alert, emergency");
}

error_object internal_error(std::string_view reference) {
  return make(error_code::internal_error,
              "Internal error (reference " + std::string(reference) +
                  "); retry once and report the reference if it persists",
              {{"reference", reference}});
}

error_object from_protocol_error(const protocol_error& e) {
  return make(e.code(), e.message(), e.data());
}

json invalid_arguments_result(const tool_facts& tool, const std::string& violations_text,
                              const json& violations) {
  std::string text = "Invalid arguments for tool " + std::string(tool.name) +
                     "; nothing was executed. Fix the following and call again:\n" +
                     violations_text;
  json d = details(error_category::invalid_arguments, false, error_effect::not_applied, tool.name);
  d["violations"] = violations;
  return error_result(tool, std::move(text), std::move(d));
}

json tool_error_result(const tool_facts& tool, const tool_error& e) {
  return error_result(tool, e.message(), e.details());
}

json unexpected_error_result(const tool_facts& tool, std::string_view reference,
                             const std::optional<std::string>& exposed_detail) {
  std::string text = std::string(tool.name) + " failed with an internal error (reference " +
                     std::string(reference) + ").";
  if (exposed_detail) text += " Detail: " + *exposed_detail + ".";
  text += tool.read_only
              ? " Retry once; if it persists, report the reference."
              : " It may have partly run: check the current state before retrying once; if it "
                "persists, report the reference.";
  json d = details(error_category::internal, true,
                   tool.read_only ? error_effect::not_applied : error_effect::unknown, tool.name);
  d["reference"] = reference;
  return error_result(tool, std::move(text), std::move(d));
}

json output_mismatch_result(const tool_facts& tool, std::string_view reference) {
  std::string text = std::string(tool.name) + " failed with an internal error (reference " +
                     std::string(reference) +
                     "): its result did not match the tool's declared output schema, so it was "
                     "withheld. This is a server bug; report the reference.";
  text += tool.read_only ? " Retrying will not help until the server is fixed."
                         : " The operation itself completed; do not retry it unchanged.";
  json d = details(error_category::internal, false,
                   tool.read_only ? error_effect::not_applied : error_effect::applied, tool.name);
  d["reference"] = reference;
  return error_result(tool, std::move(text), std::move(d));
}

json timeout_result(const tool_facts& tool, double seconds) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", seconds);
  std::string text = std::string(tool.name) + " timed out after " + secs + " s.";
  text += tool.read_only
              ? " Nothing was changed; retrying is safe, ideally with a smaller request."
              : " The outcome is unknown: the operation may have been applied. Check its status "
                "before retrying to avoid applying it twice.";
  json d = details(error_category::timeout, tool.read_only,
                   tool.read_only ? error_effect::not_applied : error_effect::unknown, tool.name);
  d["timeoutSeconds"] = seconds;
  return error_result(tool, std::move(text), std::move(d));
}

}  // namespace mcpcxx::detail::wire
