// Drives an MCP server over Streamable HTTP with a bearer token through the official TypeScript
// SDK client and prints one JSON report. Usage: node ts_auth_client.cjs <url> <token>
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function attempt(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: { name: e.constructor.name, code: e.code, message: e.message } };
  }
}

async function main() {
  const [url, token] = process.argv.slice(2);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "ts-auth-interop", version: "1.0.0" });
  const report = {};
  report.connect = await attempt(() => client.connect(transport));
  if (report.connect.ok !== undefined || !report.connect.error) {
    report.tools = await attempt(async () => (await client.listTools()).tools.map((t) => t.name));
    report.whoami = await attempt(() => client.callTool({ name: "whoami", arguments: {} }));
    report.close = await attempt(() =>
      client.callTool({ name: "close_issue", arguments: { key: "ENG-7" } }));
    await client.close();
  }
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().catch((e) => {
  process.stderr.write(`ts_auth_client: ${e.stack || e}\n`);
  process.exit(1);
});
