// Drives an MCP server over Streamable HTTP with a bearer token through the official TypeScript
// SDK client and prints one JSON report. Usage: node ts_auth_client.cjs <url> <token>
"use strict";
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { attempt, newClient, runReport } = require("./ts_common.cjs");

runReport("ts_auth_client", async () => {
  const [url, token] = process.argv.slice(2);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = newClient("ts-auth-interop");
  const report = {};
  report.connect = await attempt(() => client.connect(transport));
  if (report.connect.ok !== undefined || !report.connect.error) {
    report.tools = await attempt(async () => (await client.listTools()).tools.map((t) => t.name));
    report.whoami = await attempt(() => client.callTool({ name: "whoami", arguments: {} }));
    report.close = await attempt(() =>
      client.callTool({ name: "close_issue", arguments: { key: "ENG-7" } }));
    await client.close();
  }
  return report;
});
