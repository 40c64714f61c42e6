// The arguments of the rows whose arguments the engine computes (see wire_errors.hpp).
#include "core/wire_errors.hpp"

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

json param_missing_args(std::string_view method, std::string_view field,
                        std::string_view requirement) {
  return {{"method", method}, {"field", field}, {"requirement", requirement}};
}

json param_invalid_args(std::string_view subject, std::string_view expected, const json* got) {
  json args = {{"subject", subject}, {"expected", expected}};
  if (got != nullptr) args["got"] = got->type_name();
  return args;
}

json handler_error_args(int code, const std::string& message, const json& data) {
  json args = json::object();
  args["code"] = code;
  args["message"] = message;
  args["data"] = data;
  return args;
}

json handler_tool_error_args(const tool_error& e) {
  const int code =
      client_side(e.category()) ? error_code::invalid_params : error_code::internal_error;
  return handler_error_args(code, e.message(), e.details());
}

}  // namespace mcpcxx::detail::wire
