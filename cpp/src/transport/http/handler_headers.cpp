// Which request headers reach handlers.
#include "transport/http/handler_headers.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>

#include "transport/http/request_parser.hpp"

namespace mcpcxx::http {

namespace {

constexpr std::array<std::string_view, 4> k_credentials = {"authorization", "proxy-authorization",
                                                           "cookie", "set-cookie"};

bool is_credential(std::string_view name) {
  return std::find(k_credentials.begin(), k_credentials.end(), name) != k_credentials.end();
}

}  // namespace

std::vector<std::string> exposed_credentials(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    std::string l = lower_ascii(n);
    if (!is_credential(l)) {
      throw std::invalid_argument(
          "http_options.expose_headers: '" + n.substr(0, 60) +
          "' is not a withheld header; handlers see every other header already. Name only "
          "Authorization, Proxy-Authorization, Cookie or Set-Cookie here");
    }
    out.push_back(std::move(l));
  }
  return out;
}

json handler_headers(const request& req, const std::vector<std::string>& exposed) {
  json out = json::object();
  for (const auto& [name, value] : req.headers) {
    if (is_credential(name) && std::find(exposed.begin(), exposed.end(), name) == exposed.end()) {
      continue;
    }
    auto it = out.find(name);
    if (it == out.end()) {
      out[name] = value;
    } else {
      it->get_ref<std::string&>() += ", " + value;
    }
  }
  return out;
}

}  // namespace mcpcxx::http
