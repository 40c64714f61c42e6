"""MCP Apps (extension io.modelcontextprotocol/ui): the names a server author may need.

Register a UI resource with Server.ui_resource, link a tool to it with @server.tool(ui=...),
and ask ctx.client_supports_apps() in a handler; see docs/apps.md.
"""

from __future__ import annotations

from mcpcxx._components.apps import EXTENSION_ID, MIME_TYPE, Csp, Permission, Visibility

__all__ = ["EXTENSION_ID", "MIME_TYPE", "Csp", "Permission", "Visibility"]
