// PYBIND11_MODULE for mcpcxx._core: each area registers itself.
#include "mcpcxx/server.hpp"
#include "mcpcxx/version.hpp"

#include "bindings.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "mcpcxx engine bindings (private; use the mcpcxx package)";
  mcpcxx::py_bind::bind_errors(m);
  mcpcxx::py_bind::bind_context(m);
  mcpcxx::py_bind::bind_server(m);
  mcpcxx::py_bind::bind_middleware(m);
  mcpcxx::py_bind::bind_async_tool(m);
  mcpcxx::py_bind::bind_transports(m);
  mcpcxx::py_bind::bind_uri_template(m);
  mcpcxx::py_bind::bind_apps(m);
  m.attr("__version__") = std::string(mcpcxx::version_string);
  py::list versions;
  for (const char* v : mcpcxx::k_supported_versions) versions.append(v);
  m.attr("SUPPORTED_VERSIONS") = py::tuple(versions);
  m.attr("MODERN_VERSION") = std::string(mcpcxx::k_modern_version);
  m.attr("LATEST_LEGACY_VERSION") = std::string(mcpcxx::k_latest_legacy_version);
}
