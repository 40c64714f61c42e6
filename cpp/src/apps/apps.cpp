// MCP Apps on a server: registering UI resources (and declaring the extension), linking tools to
// them, and reading the client's side of the extension from a request.
#include "mcpcxx/apps.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mcpcxx/server.hpp"

#include "apps/ui_checks.hpp"

namespace mcpcxx::apps {

namespace {

std::string read_html_file(const std::string& uri, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw std::invalid_argument("UI resource '" + uri + "': cannot read html_file '" + path +
                                "': " + (err != 0 ? std::strerror(err) : "open failed") +
                                ": give a readable HTML file, or the document itself as html");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    throw std::invalid_argument("UI resource '" + uri + "': reading html_file '" + path +
                                "' failed: give a readable HTML file");
  }
  return std::move(text).str();
}

// The document of `r`: its html, or its html_file's content; checked to be non-blank UTF-8.
std::string document_of(const ui_resource& r) {
  if (!r.html.empty() && !r.html_file.empty()) {
    throw std::invalid_argument("UI resource '" + r.uri +
                                "' has both html and html_file: give one of them");
  }
  if (r.html.empty() && r.html_file.empty()) {
    throw std::invalid_argument("UI resource '" + r.uri +
                                "' has no HTML: give the document as html or its path as "
                                "html_file");
  }
  const std::string from = r.html.empty() ? "html_file '" + r.html_file + "'" : "html";
  std::string doc = r.html.empty() ? read_html_file(r.uri, r.html_file) : r.html;
  if (doc.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw std::invalid_argument("UI resource '" + r.uri + "': its " + from +
                                " is blank: give an HTML5 document");
  }
  try {
    (void)json(doc).dump();  // throws json::type_error on bytes that are not UTF-8
  } catch (const json::type_error&) {
    throw std::invalid_argument("UI resource '" + r.uri + "': its " + from +
                                " is not UTF-8 text: save the document as UTF-8");
  }
  return doc;
}

// Declares the extension unless it already is (by an earlier UI resource or the author).
void declare_extension(server& s) {
  const json caps = s.capabilities();
  const auto ext = caps.find("extensions");
  if (ext != caps.end() && ext->is_object() && ext->contains(std::string(k_extension_id))) return;
  try {
    s.add_extension(std::string(k_extension_id));
  } catch (const std::invalid_argument&) {
    // Declared by another thread in between: the only way a constant valid id is refused.
  }
}

}  // namespace

void add_ui_resource(server& s, ui_resource r) {
  detail::check_ui_uri("UI resource URI", r.uri);
  json ui = resource_ui_meta(r);
  auto doc = std::make_shared<const std::string>(document_of(r));
  json meta = ui.empty() ? json(nullptr) : json{{"ui", ui}};
  resource_spec spec{.uri = r.uri,
                     .name = r.name.empty() ? r.uri : r.name,
                     .title = r.title,
                     .description = r.description,
                     .mime_type = std::string(k_mime_type),
                     .size = static_cast<std::int64_t>(doc->size()),
                     .icons = std::move(r.icons),
                     .annotations = nullptr,
                     .meta = meta,
                     .cache = std::move(r.cache)};
  s.add_resource(std::move(spec), [doc, meta](const std::string& uri, request_context&) {
    return std::vector<resource_contents>{{.uri = uri,
                                           .mime_type = std::string(k_mime_type),
                                           .text = *doc,
                                           .blob_base64 = std::nullopt,
                                           .meta = meta}};
  });
  declare_extension(s);
}

json link_tool(const server& s, std::string_view tool_name, json meta, const tool_ui& ui) {
  const std::string who = "tool '" + std::string(tool_name) + "'";
  json linked = detail::linked_meta(who, std::move(meta), ui);
  if (!s.has_resource(ui.resource_uri)) {
    throw std::invalid_argument(who + " links UI resource '" + ui.resource_uri +
                                "', which is not registered on this server: register it first "
                                "(apps::add_ui_resource), then the tools that link it");
  }
  return linked;
}

void add_ui_tool(server& s, tool_spec spec, const tool_ui& ui, tool_handler handler) {
  spec.meta = link_tool(s, spec.name, std::move(spec.meta), ui);
  s.add_tool(std::move(spec), std::move(handler));
}

std::vector<std::string> client_mime_types(const request_context& ctx) {
  std::vector<std::string> out;
  const json* settings = ctx.client_extension(k_extension_id);
  if (settings == nullptr || !settings->is_object()) return out;
  const auto types = settings->find("mimeTypes");
  if (types == settings->end() || !types->is_array()) return out;
  for (const json& t : *types) {
    if (t.is_string()) out.push_back(t.get<std::string>());
  }
  return out;
}

bool client_supports_apps(const request_context& ctx) {
  for (const std::string& t : client_mime_types(ctx)) {
    if (t == k_mime_type) return true;
  }
  return false;
}

}  // namespace mcpcxx::apps
