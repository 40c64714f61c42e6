// Pending rows (see wire_errors_pending.hpp); to be folded into the situation table.
#include "engine/wire_errors_pending.hpp"

#include <string>

#include "mcpcxx/error_codes.hpp"

namespace mcpcxx::detail::wire {

namespace {

bool client_side(error_category c) {
  switch (c) {
    case error_category::invalid_arguments:
    case error_category::not_found:
    case error_category::permission_denied:
    case error_category::conflict:
    case error_category::precondition_failed:
      return true;
    default:
      return false;
  }
}

}  // namespace

error_object param_missing(std::string_view method, std::string_view field,
                           std::string_view requirement) {
  std::string text = std::string(method) + " needs params." + std::string(field);
  text += requirement;
  return invalid_params(std::move(text));
}

error_object param_invalid(std::string_view subject, std::string_view expected, const json* got) {
  std::string text = std::string(subject) + " must be " + std::string(expected);
  if (got != nullptr) text += std::string(", got ") + got->type_name();
  return invalid_params(std::move(text));
}

error_object missing_client_capability_legacy(std::string_view method, const json& required) {
  return error_object{
      error_code::invalid_request,
      "Invalid request: " + std::string(method) + " needs the client capability " +
          required.dump() +
          ", which this session did not declare in initialize; start a new session whose "
          "initialize declares it in params.capabilities, then retry",
      {{"method", method}, {"requiredCapabilities", required}}};
}

error_object handler_tool_error(const tool_error& e) {
  const int code =
      client_side(e.category()) ? error_code::invalid_params : error_code::internal_error;
  return error_object{code, e.message(), e.details()};
}

json resource_not_found_result(const tool_facts& tool, std::string_view uri) {
  json details = {{"category", to_string(error_category::not_found)},
                  {"retryable", false},
                  {"effect", to_string(error_effect::not_applied)},
                  {"resource", uri}};
  std::string text = std::string(tool.name) + " failed: resource " + std::string(uri) +
                     " was not found. List resources to see what exists, then call again with an "
                     "existing URI. Do not retry unchanged.";
  json result = {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})},
                 {"isError", true}};
  if (!tool.has_output_schema) result["structuredContent"] = details;
  result["_meta"] = {{"mcpcxx/error", std::move(details)}};
  return result;
}

}  // namespace mcpcxx::detail::wire
