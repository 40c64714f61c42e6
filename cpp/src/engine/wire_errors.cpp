// The engine's error factories: each names its row of the situation table (cpp/src/wire) and
// passes the arguments; the table renders every text. Kept so engine call sites compile while
// they move to reporting rows directly.
#include "engine/wire_errors.hpp"

#include "wire/situation.hpp"

namespace mcpcxx::detail::wire {

namespace {

using mcpcxx::wire::render;
using mcpcxx::wire::render_tool_result;
using s = mcpcxx::wire::situation;

json tool_arguments_of(const tool_facts& tool) { return {{"name", tool.name}}; }

}  // namespace

error_object method_not_found(std::string_view method) {
  return render(s::P8_method_not_found, {{"method", method}});
}

error_object method_not_in_era(std::string_view method, std::string_view version) {
  return render(s::P9_method_not_in_era, {{"method", method}, {"protocolVersion", version}});
}

error_object capability_not_advertised(std::string_view method, std::string_view capability) {
  return render(s::P10_capability_not_advertised, {{"method", method}, {"capability", capability}});
}

error_object missing_modern_meta(const std::vector<std::string>& missing) {
  return render(s::P11_missing_modern_meta, {{"missing", missing}});
}

error_object unsupported_version(const json& requested) {
  return render(s::P12_unsupported_version, {{"requested", requested}});
}

error_object missing_client_capability(const json& required) {
  return render(s::P13_missing_client_capability, {{"requiredCapabilities", required}});
}

error_object not_initialized(std::string_view method) {
  return render(s::P14_not_initialized, {{"method", method}});
}

error_object already_initialized(std::string_view version) {
  return render(s::P7_already_initialized, {{"version", version}});
}

error_object duplicate_request_id(const jsonrpc::request_id& id) {
  return render(s::P6_duplicate_request_id, {{"id", jsonrpc::id_key(id)}});
}

error_object batch_not_allowed() { return render(s::P4_batch_not_allowed); }

error_object initialize_in_batch() { return render(s::P5_initialize_in_batch); }

error_object invalid_params(std::string message, json data) {
  error_object e = render(s::P15_invalid_params, {{"detail", std::move(message)}});
  if (!data.is_null()) e.data = std::move(data);
  return e;
}

error_object unknown_tool(std::string_view name, const std::vector<std::string>& suggestions) {
  return render(s::P17_unknown_tool, {{"name", name}, {"didYouMean", suggestions}});
}

error_object unknown_prompt(std::string_view name, const std::vector<std::string>& suggestions) {
  return render(s::P19_unknown_prompt, {{"name", name}, {"didYouMean", suggestions}});
}

error_object missing_prompt_arguments(std::string_view name,
                                      const std::vector<std::string>& missing) {
  return render(s::P19a_missing_prompt_arguments, {{"name", name}, {"missing", missing}});
}

error_object invalid_cursor() { return render(s::P18_invalid_cursor); }

error_object resource_not_found(std::string_view uri, bool modern) {
  return render(modern ? s::P21_resource_not_found_modern : s::P20_resource_not_found_legacy,
                {{"uri", uri}});
}

error_object invalid_log_level(const json& level) {
  return render(s::P22_invalid_log_level, {{"level", level}});
}

error_object internal_error(std::string_view reference) {
  return render(s::P24_internal_error, {{"reference", reference}});
}

error_object from_protocol_error(const protocol_error& e) {
  return render(s::P23_handler_protocol_error,
                {{"code", e.code()}, {"message", e.message()}, {"data", e.data()}});
}

json invalid_arguments_result(const tool_facts& tool, const std::string& violations_text,
                              const json& violations) {
  json args = tool_arguments_of(tool);
  args["violations_text"] = violations_text;
  args["violations"] = violations;
  return render_tool_result(s::T1_invalid_arguments, args, tool.has_output_schema);
}

json tool_error_result(const tool_facts& tool, const tool_error& e) {
  json args = tool_arguments_of(tool);
  args["message"] = e.message();
  args["details"] = e.details();
  return render_tool_result(s::T2_tool_error, args, tool.has_output_schema);
}

json unexpected_error_result(const tool_facts& tool, std::string_view reference,
                             const std::optional<std::string>& exposed_detail) {
  json args = tool_arguments_of(tool);
  args["reference"] = reference;
  if (exposed_detail) args["detail"] = *exposed_detail;
  return render_tool_result(
      tool.read_only ? s::T3_unexpected_read_only : s::T3w_unexpected_may_have_run, args,
      tool.has_output_schema);
}

json output_mismatch_result(const tool_facts& tool, std::string_view reference) {
  json args = tool_arguments_of(tool);
  args["reference"] = reference;
  return render_tool_result(
      tool.read_only ? s::T4_output_mismatch_read_only : s::T4w_output_mismatch_applied, args,
      tool.has_output_schema);
}

json timeout_result(const tool_facts& tool, double seconds) {
  json args = tool_arguments_of(tool);
  args["seconds"] = seconds;
  args["timeoutSeconds"] = seconds;
  return render_tool_result(tool.read_only ? s::T5_timeout_read_only : s::T5w_timeout_may_have_run,
                            args, tool.has_output_schema);
}

}  // namespace mcpcxx::detail::wire
