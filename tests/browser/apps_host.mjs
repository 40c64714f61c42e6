// A minimal MCP Apps host for tests/python/test_apps_browser.py, bundled with esbuild: an MCP
// client (@modelcontextprotocol/client over Streamable HTTP at /mcp, which the test proxies to
// the server) finds the tool linked to a UI, reads the ui:// resource, renders it in a sandboxed
// iframe and connects it through the extension's own host side (AppBridge from
// @modelcontextprotocol/ext-apps/app-bridge), which answers ui/initialize and forwards the
// view's tools/call to the server. The result is left in window.hostReport (or hostError).
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const hostInfo = { name: "mcpcxx-test-host", version: "1.0.0" };

function status(text) {
  document.getElementById("host-status").textContent = text;
}

async function uiResource(client) {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => typeof t._meta?.ui?.resourceUri === "string");
  if (!tool) throw new Error("no tool is linked to a UI: " + JSON.stringify(tools.map((t) => t.name)));
  const uri = tool._meta.ui.resourceUri;
  const { contents } = await client.readResource({ uri });
  const html = contents.find((c) => c.mimeType === RESOURCE_MIME_TYPE && typeof c.text === "string");
  if (!html) throw new Error(`${uri} has no ${RESOURCE_MIME_TYPE} text: ${JSON.stringify(contents)}`);
  return { tool, uri, html };
}

async function main() {
  const client = new Client(hostInfo, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", window.location.href)));
  status("connected to the server");
  const { tool, uri, html } = await uiResource(client);
  const bridge = new AppBridge(client, hostInfo, { serverTools: {}, logging: {} });
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  const iframe = document.getElementById("app");
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html.text;
  await initialized;
  status("view initialized");
  const args = {};
  const result = await client.callTool({ name: tool.name, arguments: args });
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  window.hostReport = {
    tool: tool.name,
    uri,
    toolMeta: tool._meta,
    resourceMeta: html._meta ?? null,
    app: bridge.getAppVersion() ?? null,
    serverVersion: client.getServerVersion() ?? null,
  };
  status("tool result sent to the view");
}

main().catch((error) => {
  window.hostError = String(error?.stack ?? error);
  status("failed: " + error);
});
