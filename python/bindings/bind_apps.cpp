// MCP Apps (mcpcxx/apps.hpp) for Python: registering UI resources, linking tool specs to them, and
// the client's declared MIME types. Every check and message is the C++ one.
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "mcpcxx/apps.hpp"

#include "bindings.hpp"
#include "handler_bridge.hpp"
#include "json_caster.hpp"

namespace mcpcxx::py_bind {

namespace {

// The csp dict's keys (snake_case) and the member each fills.
apps::csp csp_from(const py::dict& d) {
  apps::csp c;
  for (const auto& [key, value] : d) {
    const auto name = py::cast<std::string>(key);
    auto origins = py::cast<std::vector<std::string>>(value);
    if (name == "connect_domains") {
      c.connect_domains = std::move(origins);
    } else if (name == "resource_domains") {
      c.resource_domains = std::move(origins);
    } else if (name == "frame_domains") {
      c.frame_domains = std::move(origins);
    } else if (name == "base_uri_domains") {
      c.base_uri_domains = std::move(origins);
    } else {
      throw std::invalid_argument("csp has key '" + name +
                                  "': use connect_domains, resource_domains, frame_domains or "
                                  "base_uri_domains");
    }
  }
  return c;
}

void add_ui_resource(server_handle& h, apps::ui_resource r, std::optional<py::dict> csp,
                     std::optional<std::int64_t> ttl_ms, std::optional<std::string> cache_scope) {
  if (csp) r.csp = csp_from(*csp);
  r.cache = {ttl_ms, std::move(cache_scope)};
  py::gil_scoped_release release;  // registration may notify sessions, whose sinks take the GIL
  apps::add_ui_resource(*h.srv, std::move(r));
}

}  // namespace

void bind_apps(py::module_& m) {
  m.attr("APPS_EXTENSION_ID") = std::string(apps::k_extension_id);
  m.attr("APPS_MIME_TYPE") = std::string(apps::k_mime_type);
  m.def(
      "add_ui_resource",
      [](server_handle& h, std::string uri, std::string name, std::optional<std::string> title,
         std::optional<std::string> description, std::string html, std::string html_file,
         std::optional<py::dict> csp, std::vector<std::string> permissions,
         std::optional<std::string> domain, std::optional<bool> prefers_border, json icons,
         std::optional<std::int64_t> ttl_ms, std::optional<std::string> cache_scope) {
        add_ui_resource(h,
                        {.uri = std::move(uri),
                         .name = std::move(name),
                         .title = std::move(title),
                         .description = std::move(description),
                         .html = std::move(html),
                         .html_file = std::move(html_file),
                         .csp = std::nullopt,
                         .permissions = std::move(permissions),
                         .domain = std::move(domain),
                         .prefers_border = prefers_border,
                         .icons = std::move(icons),
                         .cache = {}},
                        std::move(csp), ttl_ms, std::move(cache_scope));
      },
      py::arg("server"), py::arg("uri"), py::arg("name"), py::arg("title"), py::arg("description"),
      py::arg("html"), py::arg("html_file"), py::arg("csp"), py::arg("permissions"),
      py::arg("domain"), py::arg("prefers_border"), py::arg("icons"), py::arg("ttl_ms"),
      py::arg("cache_scope"),
      "Register a ui:// HTML resource with its _meta.ui and declare the Apps extension "
      "(ValueError naming the field on bad input).");
  m.def(
      "link_ui_tool",
      [](const server_handle& h, const std::string& tool, json meta, std::string resource_uri,
         std::vector<std::string> visibility) {
        return apps::link_tool(
            *h.srv, tool, std::move(meta),
            {.resource_uri = std::move(resource_uri), .visibility = std::move(visibility)});
      },
      py::arg("server"), py::arg("tool"), py::arg("meta"), py::arg("resource_uri"),
      py::arg("visibility"),
      "A tool's _meta with the link to a registered ui:// resource (ValueError otherwise).");
  m.def(
      "apps_mime_types",
      [](const py_context& c) {
        return c.state->with_context(
            [](request_context& ctx) { return apps::client_mime_types(ctx); });
      },
      py::arg("ctx"), "The MIME types this request's client declared for the Apps extension.");
}

}  // namespace mcpcxx::py_bind
