// The official TypeScript client (@modelcontextprotocol/client v2) against the cluster of
// tests/cluster: nginx round robin in front of three replicas on one Redis, no affinity. One
// legacy session (initialize, Mcp-Session-Id) does every scenario; each scenario prints one JSON
// line to stdout, {"scenario": ..., ...}, that tests/cluster/test_ts_client.py checks. Every HTTP
// request the client sends goes through a fetch that notes nginx's X-Replica header.
// Usage: node ts_client.mjs URL  (run from a folder whose node_modules holds the client; ESM
// does not read NODE_PATH). Exits non-zero with the reason on stderr on any failure, and after
// 60 s whatever it is doing.
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const OVERALL_MS = 60_000;
const ECHO_CALLS = 30;
const ASK_TRIES = 4;
const url = new URL(process.argv[2] ?? '');

const deadline = setTimeout(() => {
  console.error(`ts_client: FAILED: still running after ${OVERALL_MS / 1000} s`);
  process.exit(3);
}, OVERALL_MS);

/** [HTTP method, JSON-RPC method or "response" (an answer to the server), status, replica]. */
const served = [];

const inflight = new Set();

async function recordingFetch(input, init) {
  const verb = init?.method ?? 'GET';
  let what = '';
  if (verb === 'POST' && typeof init?.body === 'string') {
    const message = JSON.parse(init.body);
    what = Array.isArray(message) ? 'batch' : (message.method ?? 'response');
  }
  // Recorded when sent, completed when answered: the answer to an elicitation may still be in
  // flight when the tool's result arrives (settled() waits for it).
  const entry = [verb, what, 0, ''];
  served.push(entry);
  const sent = fetch(input, init);
  inflight.add(sent);
  try {
    const response = await sent;
    entry[2] = response.status;
    entry[3] = response.headers.get('x-replica') ?? '';
    return response;
  } finally {
    inflight.delete(sent);
  }
}

// Waits until every request sent so far has been answered.
async function settled() {
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
}

const posts = (method) => served.filter(([v, w]) => v === 'POST' && w === method).map((s) => s[3]);
const emit = (line) => console.log(JSON.stringify(line));

const elicitations = [];
const client = new Client({ name: 'mcpcxx-cluster-ts', version: '1.0.0' },
                          { versionNegotiation: { mode: 'legacy' },
                            capabilities: { elicitation: {} } });
client.setRequestHandler('elicitation/create', async (request) => {
  elicitations.push(request.params.message);
  return { action: 'accept', content: { text: 'blue' } };
});
const transport = new StreamableHTTPClientTransport(url, { fetch: recordingFetch });

// (a) 30 tools/call of echo on one session, spread by round robin; each result names its replica.
async function echoes() {
  const results = [];
  for (let i = 0; i < ECHO_CALLS; i++) {
    const r = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
    results.push({ error: r.isError ?? false, text: r.structuredContent?.text,
                   replica: r.structuredContent?.replica });
  }
  emit({ scenario: 'echo', calls: ECHO_CALLS,
         ok: results.filter((r, i) => !r.error && r.text === `call ${i}`).length,
         replicas: results.map((r) => r.replica), posts: posts('tools/call') });
}

// (b) ask: the tool sends elicitation/create on its POST's stream; the client's handler answers
// and the answer is POSTed wherever round robin sends it. Repeated (a bounded number of times)
// until one answer landed on a replica other than the one running the tool.
async function asks() {
  const tries = [];
  for (let i = 0; i < ASK_TRIES; i++) {
    const before = served.length;
    const r = await client.callTool({ name: 'ask', arguments: { question: 'Which colour?' } });
    await settled();
    const mine = served.slice(before).filter(([v]) => v === 'POST');
    tries.push({ error: r.isError ?? false, action: r.structuredContent?.action,
                 text: r.structuredContent?.text, tool_replica: r.structuredContent?.replica,
                 call_posted_to: mine.filter(([, w]) => w === 'tools/call').map((s) => s[3]),
                 answer_posted_to: mine.filter(([, w]) => w === 'response').map((s) => s[3]),
                 answer_status: mine.filter(([, w]) => w === 'response').map((s) => s[2]) });
    const last = tries.at(-1);
    if (last.answer_posted_to.some((rep) => rep !== last.tool_replica)) break;
  }
  emit({ scenario: 'ask', elicitations, tries });
}

// (c) tools/list and resources/read on the same session.
async function listAndRead() {
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const read = await client.readResource({ uri: 'cluster://doc/x' });
  emit({ scenario: 'list_read', tools, tools_list_on: posts('tools/list'),
         doc: read.contents.map((c) => c.text ?? '').join(''),
         read_on: posts('resources/read') });
}

// (d) terminateSession (DELETE), then the old session id on every replica: each must refuse it.
async function terminate() {
  const sessionId = transport.sessionId;
  assert.ok(sessionId, 'the server gave no Mcp-Session-Id');
  await transport.terminateSession();
  const deleted = served.filter(([v]) => v === 'DELETE').map(([, , s, rep]) => [s, rep]);
  const after = [];
  for (let i = 0; i < 3; i++) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
                 'mcp-session-id': sessionId, 'mcp-protocol-version': transport.protocolVersion },
      body: JSON.stringify({ jsonrpc: '2.0', id: `after-${i}`, method: 'tools/list' }),
    });
    await response.arrayBuffer();
    after.push([response.status, response.headers.get('x-replica') ?? '']);
  }
  emit({ scenario: 'terminate', session_cleared: transport.sessionId === undefined,
         deleted, after });
}

try {
  await client.connect(transport);
  emit({ scenario: 'connect', session: Boolean(transport.sessionId),
         protocol_version: transport.protocolVersion ?? null,
         initialize_on: posts('initialize') });
  await echoes();
  await asks();
  await listAndRead();
  await terminate();
  await client.close();
  const statuses = {};
  for (const [, , s] of served) statuses[s] = (statuses[s] ?? 0) + 1;
  emit({ scenario: 'http', requests: served.length, statuses,
         get_streams: served.filter(([v]) => v === 'GET').map(([, , s, rep]) => [s, rep]) });
} catch (e) {
  console.error(`ts_client: FAILED: ${e?.stack ?? e}`);
  if (e?.code !== undefined) {
    console.error(`ts_client: error code ${e.code}, data ${JSON.stringify(e.data)}`);
  }
  console.error(`ts_client: requests so far ${JSON.stringify(served)}`);
  clearTimeout(deadline);
  process.exit(1);
}
clearTimeout(deadline);
process.exit(0);  // an SSE GET stream the client opened must not keep the process alive
