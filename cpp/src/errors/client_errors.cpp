// Constructors of the errors a handler sees when it asks the client something (issue 12).
// Their what() texts are for the tool author and the server log; the wire text of each comes
// from its situation-table row.
#include <stdexcept>

#include "mcpcxx/errors.hpp"

namespace mcpcxx {

namespace {

json required_capability(const std::string& dotted) {
  json required = json::object();
  json* at = &required;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const auto dot = dotted.find('.', start);
    const auto part =
        dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    at = &(*at)[part];
    *at = json::object();
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return required;
}

}  // namespace

client_capability_error::client_capability_error(std::string method, std::string capability)
    : missing_client_capability(required_capability(capability)),
      method_(std::move(method)),
      capability_(std::move(capability)) {}

client_request_timeout::client_request_timeout(std::string method,
                                               std::chrono::milliseconds timeout)
    : std::runtime_error("the client did not answer " + method + " within " +
                         std::to_string(timeout.count()) + " ms"),
      method_(std::move(method)),
      timeout_(timeout) {}

client_request_error::client_request_error(std::string method, int code, std::string message,
                                           json data)
    : std::runtime_error("the client answered " + method + " with error " + std::to_string(code) +
                         ": " + message),
      method_(std::move(method)),
      code_(code),
      message_(std::move(message)),
      data_(std::move(data)) {}

client_answer_invalid::client_answer_invalid(std::string method, std::string reason)
    : std::runtime_error("the client's answer to " + method + " is invalid: " + reason),
      method_(std::move(method)),
      reason_(std::move(reason)) {}

url_elicitation_required::url_elicitation_required(json elicitations)
    : std::runtime_error("URL elicitation required"), elicitations_(std::move(elicitations)) {
  if (!elicitations_.is_array() || elicitations_.empty()) {
    throw std::invalid_argument(
        "url_elicitation_required needs a non-empty array of URL-mode elicitation params "
        "({\"mode\": \"url\", \"elicitationId\", \"url\", \"message\"})");
  }
  for (const auto& e : elicitations_) {
    const bool ok = e.is_object() && e.value("mode", "") == "url" && e.contains("elicitationId") &&
                    e["elicitationId"].is_string() && e.contains("url") && e["url"].is_string() &&
                    e.contains("message") && e["message"].is_string();
    if (!ok) {
      throw std::invalid_argument(
          "url_elicitation_required: each elicitation must be an object with \"mode\": \"url\" "
          "and string \"elicitationId\", \"url\" and \"message\"; got " +
          e.dump());
    }
  }
}

}  // namespace mcpcxx
