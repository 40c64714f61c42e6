// TypeScript SDK peer for bench/peers: echo(text) returns the text, fail(text) always ends in a
// tool error (isError: true) the SDK way (a thrown Error). Usage: node server.mjs stdio | http PORT
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

function newServer() {
  const server = new McpServer({ name: "peer-ts", version: "1.0.0" });
  server.registerTool("echo", { description: "Return the text unchanged", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("fail", { description: "Always fail with a tool error", inputSchema: { text: z.string() } },
    async ({ text }) => {
      throw new Error(`fail: refused ${JSON.stringify(text)}; this tool always fails, do not retry`);
    });
  return server;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

// One transport (and server) per legacy session, as the SDK's examples do.
function serveHttp(port) {
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    const body = req.method === "POST" ? JSON.parse(await readBody(req)) : undefined;
    const sid = req.headers["mcp-session-id"];
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport && body && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      await newServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "no session" } }));
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  httpServer.listen(port, "127.0.0.1");
}

const mode = process.argv[2];
if (mode === "stdio") {
  await newServer().connect(new StdioServerTransport());
} else if (mode === "http") {
  serveHttp(Number(process.argv[3]));
} else {
  console.error("usage: node server.mjs stdio | http PORT");
  process.exit(2);
}
