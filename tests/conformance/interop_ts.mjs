// Interop: the official TypeScript SDK client (@modelcontextprotocol/client v2) against an mcpcxx
// server over Streamable HTTP, in the legacy era (initialize) and pinned to 2026-07-28.
// Usage: node interop_ts.mjs URL  (run by scripts/test-http-interop.sh with .tools/ on NODE_PATH)
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = new URL(process.argv[2]);
const text = (r) => r.content.map((b) => b.text ?? '').join('');

async function run(era, mode) {
  const client = new Client({ name: 'mcpcxx-interop-ts', version: '1.0.0' },
                            { versionNegotiation: { mode } });
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
  await client.close();
}

await run('legacy', 'legacy');
await run('2026-07-28', { pin: '2026-07-28' });
