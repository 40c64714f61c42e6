// The engine's pending factories, now thin calls into the situation table rows P15a, P15b, P25,
// P26 and T7 (cpp/src/wire/table.cpp).
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
  return mcpcxx::wire::render(mcpcxx::wire::situation::P15a_param_missing,
                              {{"method", method}, {"field", field}, {"requirement", requirement}});
}

error_object param_invalid(std::string_view subject, std::string_view expected, const json* got) {
  json args = {{"subject", subject}, {"expected", expected}};
  if (got != nullptr) args["got"] = got->type_name();
  return mcpcxx::wire::render(mcpcxx::wire::situation::P15b_param_invalid, args);
}

error_object missing_client_capability_legacy(std::string_view method, const json& required) {
  return mcpcxx::wire::render(mcpcxx::wire::situation::P25_missing_client_capability_legacy,
                              {{"method", method}, {"requiredCapabilities", required}});
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
  return mcpcxx::wire::render(mcpcxx::wire::situation::P26_handler_tool_error,
                              handler_error_args(code, e.message(), e.details()));
}

json resource_not_found_result(const tool_facts& tool, std::string_view uri) {
  return mcpcxx::wire::render_tool_result(mcpcxx::wire::situation::T7_tool_resource_not_found,
                                          {{"name", tool.name}, {"uri", uri}, {"resource", uri}},
                                          tool.has_output_schema);
}

}  // namespace mcpcxx::detail::wire
