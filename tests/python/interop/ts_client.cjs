// Drives a stdio MCP server with the official TypeScript SDK client and prints one JSON report.
// Usage: node ts_client.cjs <command> [args...]   (NODE_PATH must hold @modelcontextprotocol/sdk)
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

async function attempt(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: { name: e.constructor.name, code: e.code, message: e.message } };
  }
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "ignore" });
  const client = new Client({ name: "ts-interop", version: "1.0.0" });
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
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().catch((e) => {
  process.stderr.write(`ts_client: ${e.stack || e}\n`);
  process.exit(1);
});
