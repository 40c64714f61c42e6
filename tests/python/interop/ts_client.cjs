// Drives a stdio MCP server with the official TypeScript SDK client and prints one JSON report.
// Usage: node ts_client.cjs <command> [args...]   (NODE_PATH must hold @modelcontextprotocol/sdk)
"use strict";
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { attempt, newClient, runReport } = require("./ts_common.cjs");

runReport("ts_client", async () => {
  const [command, ...args] = process.argv.slice(2);
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "ignore" });
  const client = newClient("ts-interop");
  await client.connect(transport);
  const report = {};
  report.serverVersion = client.getServerVersion();
  report.tools = (await client.listTools()).tools.map((t) => t.name);
  report.echo = await attempt(() => client.callTool({ name: "echo", arguments: { text: "hi ✓" } }));
  report.unknown = await attempt(() => client.callTool({ name: "no_such_tool", arguments: {} }));
  report.invalid = await attempt(() => client.callTool({ name: "get_issue", arguments: { key: 7 } }));
  report.toolError = await attempt(() =>
    client.callTool({ name: "get_issue", arguments: { key: "ENG-9" } }));
  report.structured = await attempt(() => client.callTool({ name: "stats", arguments: { text: "a b" } }));
  await client.close();
  return report;
});
