// Bearer-token auth from Python: an http_auth_options whose verifier calls a Python object.
// The Python side (mcpcxx.auth._hook) turns the author's verifier, sync or async, and its typed
// refusals into a verdict tuple, so this file only maps tuples to http_auth_result.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

// ("allow", principal) | ("invalid", description, scopes) | ("insufficient", description,
// scopes) | ("unavailable", description) | ("error", detail without the token).
http_auth_result to_result(const py::tuple& verdict) {
  const auto kind = verdict[0].cast<std::string>();
  if (kind == "allow") return http_auth_result::allow(verdict[1].cast<json>());
  const auto text = verdict[1].cast<std::string>();
  if (kind == "unavailable") return http_auth_result::unavailable(text);
  if (kind == "error") throw std::runtime_error(text);  // row H26, logged under a reference
  auto scopes = verdict[2].cast<std::vector<std::string>>();
  if (kind == "insufficient") return http_auth_result::insufficient(std::move(scopes), text);
  http_auth_result r = http_auth_result::invalid(text);
  r.scopes = std::move(scopes);
  return r;
}

http_token_verifier python_verifier(held_object verify) {
  return [verify = std::move(verify)](std::string_view token, const http_auth_request& req) {
    const python_entry entry;
    if (!entry.entered()) return http_auth_result::unavailable("the Python interpreter is exiting");
    py::gil_scoped_acquire gil;
    try {
      py::object verdict = verify.get()(py::str(token.data(), token.size()), req.http_method,
                                        req.mcp_method, req.mcp_name);
      return to_result(verdict.cast<py::tuple>());
    } catch (py::error_already_set& e) {
      // The hook catches the verifier's own exceptions; reaching here is a bug in the hook.
      throw std::runtime_error(std::string("token verifier hook failed: ") +
                               e.type().attr("__name__").cast<std::string>());
    }
  };
}

}  // namespace

void attach_auth(http_options& options, const py::object& auth) {
  if (auth.is_none()) return;
  http_auth_options a;
  a.verifier = python_verifier(held_object(auth.attr("verify")));
  a.resource = auth.attr("resource").cast<std::string>();
  a.resource_metadata_url = auth.attr("resource_metadata_url").cast<std::string>();
  a.authorization_servers = auth.attr("authorization_servers").cast<std::vector<std::string>>();
  a.scopes_supported = auth.attr("scopes_supported").cast<std::vector<std::string>>();
  a.identity_claims = auth.attr("identity_claims").cast<std::vector<std::string>>();
  options.auth = std::move(a);
}

}  // namespace mcpcxx::py_bind
