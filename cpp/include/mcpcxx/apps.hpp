// MCP Apps (extension io.modelcontextprotocol/ui, stable specification 2026-01-26): UI resources
// (ui:// HTML documents a host renders in a sandboxed iframe), tools linked to them, and whether
// the client of a request renders them. Nothing of the extension travels on the wire beyond
// ordinary resources, tools and capabilities: the UI's own messages go between host and iframe.
// Thread-safety: add_ui_resource, add_ui_tool and link_tool follow server's registration rules
// (any thread, also while serving); the other functions are pure and reentrant.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/context.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/primitives.hpp"

namespace mcpcxx {
class server;
}  // namespace mcpcxx

namespace mcpcxx::apps {

/// The extension's id, advertised in ServerCapabilities `extensions` and declared by clients.
inline constexpr std::string_view k_extension_id = "io.modelcontextprotocol/ui";
/// The MIME type of a UI resource (an HTML5 document).
inline constexpr std::string_view k_mime_type = "text/html;profile=mcp-app";
/// The deprecated flat tool `_meta` key older hosts read instead of `_meta.ui.resourceUri`.
inline constexpr std::string_view k_legacy_resource_uri_key = "ui/resourceUri";

/// The origins a UI may reach (`_meta.ui.csp`); every entry is an origin "scheme://host[:port]"
/// with scheme http, https, ws or wss, the host's leftmost label optionally "*" (subdomains).
/// Empty lists grant nothing beyond the host's restrictive default.
struct csp {
  std::vector<std::string> connect_domains;   ///< fetch/XHR/WebSocket (connect-src)
  std::vector<std::string> resource_domains;  ///< scripts, images, styles, fonts, media
  std::vector<std::string> frame_domains;     ///< nested iframes (frame-src)
  std::vector<std::string> base_uri_domains;  ///< the document's base URI (base-uri)
};

/// A UI resource: an HTML document served at a ui:// URI with MIME type k_mime_type.
struct ui_resource {
  std::string uri;   ///< must start with "ui://", e.g. "ui://issues/board"
  std::string name;  ///< shown by hosts; empty: the URI
  std::optional<std::string> title;
  std::optional<std::string> description;
  std::string html;       ///< the document itself; empty: read html_file at registration
  std::string html_file;  ///< a UTF-8 HTML file read once at registration (when html is empty)
  std::optional<apps::csp> csp;  ///< the origins it needs; unset: none (the host's default)
  /// Browser features it asks for: "camera", "microphone", "geolocation", "clipboardWrite".
  std::vector<std::string> permissions;
  /// A dedicated sandbox origin (host-specific format, e.g. "abc123.claudemcpcontent.com").
  std::optional<std::string> domain;
  std::optional<bool> prefers_border;  ///< ask the host for a visible border and background
  json icons = nullptr;                ///< Icon[] or null
  cache_hint cache;                    ///< resources/list and resources/read hints
};

/// How a tool is linked to a UI resource (`_meta.ui` of the Tool).
struct tool_ui {
  std::string resource_uri;  ///< a ui:// resource registered on the same server
  /// Who may call the tool: "model" (the agent) and/or "app" (the UI, through the host). Empty:
  /// not written, which hosts read as both.
  std::vector<std::string> visibility;
};

/// The `_meta.ui` object (UIResourceMeta) of `r`, {} when it sets none of csp, permissions,
/// domain, prefers_border. Throws std::invalid_argument naming the field and the rule it breaks.
json resource_ui_meta(const ui_resource& r);

/// Checks `r` (URI, HTML, `_meta.ui`), reads html_file, and registers it as a resource whose
/// list entry and read contents both carry `_meta.ui`; declares the extension (k_extension_id,
/// settings {}) on the server unless already declared. Throws std::invalid_argument naming the
/// URI and what is wrong (a non-ui:// URI, no HTML or both sources, an unreadable or non-UTF-8
/// file, a bad `_meta.ui` field, a URI already registered).
void add_ui_resource(server& s, ui_resource r);

/// `meta` (a tool's `_meta` object, or null) with the link to `ui` added: `ui.resourceUri`, the
/// deprecated flat `ui/resourceUri`, and `ui.visibility` when given. Checks the URI's form and
/// the visibility values (std::invalid_argument), not that the resource exists.
json tool_ui_meta(json meta, const tool_ui& ui);

/// tool_ui_meta, after checking that `ui.resource_uri` is registered on `s` (so register the UI
/// resource first). Throws std::invalid_argument naming the tool, the URI and what to do.
json link_tool(const server& s, std::string_view tool_name, json meta, const tool_ui& ui);

/// Registers `spec` linked to `ui` (link_tool, then server::add_tool). The handler should still
/// return meaningful `content` for hosts without the extension; `structuredContent` feeds the UI.
void add_ui_tool(server& s, tool_spec spec, const tool_ui& ui, tool_handler handler);

/// The MIME types this request's client declared for the extension: its request `_meta` client
/// capabilities on 2026-07-28, its initialize capabilities on legacy sessions; empty when the
/// client did not declare the extension (or declared no mimeTypes array).
std::vector<std::string> client_mime_types(const request_context& ctx);

/// Whether this request's client renders UI resources (it declared k_mime_type).
bool client_supports_apps(const request_context& ctx);

}  // namespace mcpcxx::apps
