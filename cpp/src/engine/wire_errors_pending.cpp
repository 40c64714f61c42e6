// Pending rows (see wire_errors_pending.hpp); to be folded into the situation table.
#include "engine/wire_errors_pending.hpp"

#include <string>

#include "mcpcxx/error_codes.hpp"

#include "wire/situation.hpp"

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

json handler_error_args(int code, const std::string& message, const json& data) {
  json args = json::object();
  args["code"] = code;
  args["message"] = message;
  args["data"] = data;
  return args;
}

error_object handler_tool_error(const tool_error& e) {
  const int code =
      client_side(e.category()) ? error_code::invalid_params : error_code::internal_error;
  // Same shape as P23 (the handler's own text and data), so the table's P23 machinery renders it.
  return mcpcxx::wire::render(mcpcxx::wire::situation::P23_handler_protocol_error,
                              handler_error_args(code, e.message(), e.details()));
}

json resource_not_found_result(const tool_facts& tool, std::string_view uri) {
  const tool_error e(std::string(tool.name) + " failed: resource " + std::string(uri) +
                         " was not found. List resources to see what exists, then call again "
                         "with an existing URI. Do not retry unchanged.",
                     error_category::not_found, false, std::string(uri));
  // Same shape as T2 (a typed tool error), so the table's T2 machinery renders it.
  return tool_error_result(tool, e);
}

}  // namespace mcpcxx::detail::wire
