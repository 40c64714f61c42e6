// The HTTP headers a handler may read (request_context::http_headers): every field of the
// request but the credentials (Authorization, Proxy-Authorization, Cookie, Set-Cookie), which an
// author exposes by naming them in http_options::expose_headers.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "mcpcxx/json.hpp"

#include "transport/http/request_parser.hpp"

namespace mcpcxx::http {

/// `names` lower-cased; throws std::invalid_argument for a name that is not one of the withheld
/// credential headers (the others are never withheld, so naming them is a misunderstanding).
std::vector<std::string> exposed_credentials(const std::vector<std::string>& names);

/// {lower-case name: value} of `req` without the credentials not in `exposed`; a repeated field's
/// values joined with ", " in arrival order.
json handler_headers(const request& req, const std::vector<std::string>& exposed);

}  // namespace mcpcxx::http
