// Interop: the official TypeScript SDK client (@modelcontextprotocol/client v2) against an mcpcxx
// server over Streamable HTTP, in the legacy era (initialize) and pinned to 2026-07-28.
// Usage: node interop_ts.mjs URL  (run by scripts/test-http-interop.sh with .tools/ on NODE_PATH)
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
// The SDK's 2025-11-25 task result schemas (its public entry exports no task API).
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema, ListTasksResultSchema }
  from '@modelcontextprotocol/core/internal';

const url = new URL(process.argv[2]);
const text = (r) => r.content.map((b) => b.text ?? '').join('');

// The fixture tools of the conformance scenarios tools-call-elicitation and tools-call-sampling:
// the same tool asks through a live request (legacy) and through input_required (2026-07-28).
const ASKING_TOOLS = ['test_elicitation', 'test_sampling'];

async function asking(client, era, tools) {
  const missing = ASKING_TOOLS.filter((t) => !tools.includes(t));
  assert.deepEqual(missing, [], `the fixture lacks ${missing.join(', ')}`);
  const elicited = await client.callTool({ name: 'test_elicitation',
                                           arguments: { message: 'Who are you?' } });
  assert.equal(elicited.isError ?? false, false);
  assert.match(text(elicited), /accept/);
  assert.match(text(elicited), /interop-ts/);
  console.log(`ok ${era} elicitation answered by the SDK's handler`);

  const sampled = await client.callTool({ name: 'test_sampling',
                                          arguments: { prompt: 'two words' } });
  assert.equal(sampled.isError ?? false, false);
  assert.match(text(sampled), /sampled<two words>/);
  console.log(`ok ${era} sampling answered by the SDK's handler`);
}

// 2025-11-25 experimental tasks through the SDK's task schemas (the fixture's slow_compute):
// a task-augmented call, tasks/result (the call's result), tasks/get, tasks/list, each result
// validated by the SDK's own schema.
async function tasks(client) {
  const created = await client.request(
    { method: 'tools/call',
      params: { name: 'slow_compute', arguments: { seconds: 0, label: 'ts' }, task: { ttl: 60000 } } },
    CreateTaskResultSchema);
  const id = created.task.taskId;
  const result = await client.request({ method: 'tasks/result', params: { taskId: id } },
                                      CallToolResultSchema);
  assert.match(text(result), /computed ts/);
  const got = await client.request({ method: 'tasks/get', params: { taskId: id } },
                                   GetTaskResultSchema);
  assert.equal(got.status, 'completed');
  const listed = await client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
  assert.ok(listed.tasks.some((t) => t.taskId === id));
  console.log('ok legacy task: CreateTaskResult, tasks/result, tasks/get, tasks/list');
}

async function run(era, mode) {
  const client = new Client({ name: 'mcpcxx-interop-ts', version: '1.0.0' },
                            { versionNegotiation: { mode },
                              capabilities: { elicitation: {}, sampling: {} } });
  client.setRequestHandler('elicitation/create', async () => (
    { action: 'accept', content: { username: 'interop-ts', email: 'ts@example.com' } }));
  client.setRequestHandler('sampling/createMessage', async (request) => ({
    role: 'assistant',
    model: 'interop-ts-model',
    stopReason: 'endTurn',
    content: { type: 'text', text: `sampled<${request.params.messages[0].content.text}>` },
  }));
  await client.connect(new StreamableHTTPClientTransport(url));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes('echo') && tools.includes('test_error_handling'), String(tools));
  console.log(`ok ${era} tools/list (${tools.length} tools)`);

  const ok = await client.callTool({ name: 'echo', arguments: { text: 'hello interop' } });
  assert.equal(ok.isError ?? false, false);
  assert.equal(text(ok), 'hello interop');
  console.log(`ok ${era} tools/call success`);

  const failed = await client.callTool({ name: 'test_error_handling', arguments: {} });
  assert.equal(failed.isError, true);
  assert.match(text(failed), /intentionally returns an error/);
  console.log(`ok ${era} tools/call isError result`);

  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }),
                       (e) => e.code === -32602);
  console.log(`ok ${era} unknown tool is -32602`);

  const seen = [];
  const progressed = await client.callTool({ name: 'test_tool_with_progress', arguments: {} },
                                           { onprogress: (p) => seen.push(p.progress) });
  assert.equal(progressed.isError ?? false, false);
  assert.deepEqual(seen, [0, 50, 100]);
  console.log(`ok ${era} progress over SSE`);

  const read = await client.readResource({ uri: 'test://static-text' });
  assert.match(read.contents[0].text, /static text resource/);
  console.log(`ok ${era} resources/read`);

  const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments',
                                          arguments: { arg1: 'A1', arg2: 'B2' } });
  assert.match(prompt.messages[0].content.text, /A1.*B2/);
  console.log(`ok ${era} prompts/get`);

  await asking(client, era, tools);
  if (era === 'legacy') await tasks(client);
  await client.close();
}

await run('legacy', 'legacy');
await run('2026-07-28', { pin: '2026-07-28' });
