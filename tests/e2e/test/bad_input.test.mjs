// Bad input through the shim (raw lines) and straight to /mcp: malformed JSON-RPC, batches,
// unknown methods, a name without `__`, an unknown server, a 10 MB message, invalid UTF-8 — each
// gets a JSON-RPC error and the daemon stays up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { Vault, bins, rawShim, pidAlive } from '../lib/harness.mjs';

let vault;
let shim;

before(async () => {
  vault = await Vault.create('bad');
  await vault.start();
  await vault.cliOk(['mcp', 'add', 'a', '--stdio', bins.upstream]);
  shim = rawShim(vault, { agent: 'bad' });
  await shim.initialize();
});

after(async () => {
  await shim?.close();
  await vault?.cleanup();
});

const errorOf = (line) => JSON.parse(line).error;

test('malformed JSON gets a parse error (id null)', async () => {
  shim.send('{"jsonrpc":"2.0","id":1,"method":');
  const line = await shim.next((v) => v && v.error && v.id === null);
  assert.equal(errorOf(line).code, -32700);
});

test('a batch array is refused with an error, not silently dropped', async () => {
  shim.send([{ jsonrpc: '2.0', id: 50, method: 'ping' }, { jsonrpc: '2.0', id: 51, method: 'ping' }]);
  const line = await shim.next((v, raw) => (Array.isArray(v)) || (v && v.error));
  assert.ok(line.length > 0);
});

test('unknown method, name without __, unknown server', async () => {
  let e = errorOf(await shim.request(60, 'no/such/method', {}));
  assert.equal(e.code, -32601);
  e = errorOf(await shim.request(61, 'tools/call', { name: 'nounderscores', arguments: {} }));
  assert.ok(e.code < 0 && e.message.length > 0);
  e = errorOf(await shim.request(62, 'tools/call', { name: 'zz__echo', arguments: {} }));
  assert.ok(e.code < 0 && e.message.length > 0);
  e = errorOf(await shim.request(63, 'prompts/get', { name: 'zz__greet' }));
  assert.ok(e.code < 0);
});

test('a 10 MB message gets an error; the session goes on', async () => {
  const big = 'x'.repeat(10 * 1024 * 1024);
  shim.send({ jsonrpc: '2.0', id: 70, method: 'tools/call', params: { name: 'a__echo', arguments: { text: big } } });
  const line = await shim.response(70, 30000);
  assert.ok(JSON.parse(line).error, line.slice(0, 200));
  const ok = JSON.parse(await shim.request(71, 'tools/call', { name: 'a__echo', arguments: { text: 'small' } }));
  assert.equal(ok.result.content[0].text, 'small');
});

test('invalid UTF-8 gets an error', async () => {
  const bytes = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":80,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":"'),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.from('"}}}\n'),
  ]);
  shim.proc.stdin.write(bytes);
  // Answered with its own id (the shim checks what the daemon could not read and so could not
  // answer by id), never left waiting.
  const line = await shim.next((v) => v && v.id === 80 && v.error);
  assert.equal(errorOf(line).code, -32700);
});

test('a request whose id is still in flight is refused; the first one still completes', async () => {
  shim.send({ jsonrpc: '2.0', id: 95, method: 'tools/call', params: { name: 'a__slow', arguments: { ms: 300 } } });
  shim.send({ jsonrpc: '2.0', id: 95, method: 'tools/call', params: { name: 'a__echo', arguments: { text: 'dup' } } });
  const first = JSON.parse(await shim.response(95));
  assert.equal(first.error?.code, -32600, JSON.stringify(first));
  const second = JSON.parse(await shim.response(95));
  assert.ok(second.result, JSON.stringify(second));
});

test('the 2026 protocol key inside a legacy call\'s arguments does not divert it', async () => {
  const text = 'see io.modelcontextprotocol/protocolVersion in the spec';
  const r = JSON.parse(await shim.request(96, 'tools/call', { name: 'a__echo', arguments: { text } }));
  assert.equal(r.result?.content?.[0]?.text, text, JSON.stringify(r));
});

test('a cancelled request is not waited for: the shim exits at once when stdin closes', async () => {
  const s = rawShim(vault, { agent: 'canceller' });
  try {
    await s.initialize();
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a__slow', arguments: { ms: 60000 } } });
    await new Promise((r) => setTimeout(r, 300));
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'test' } });
    const t0 = Date.now();
    s.proc.stdin.end();
    const exit = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('timeout'), 10000))]);
    assert.notEqual(exit, 'timeout', `the shim waited for a cancelled request: ${s.stderr}`);
    assert.equal(exit.code, 0);
    assert.ok(Date.now() - t0 < 5000);
  } finally {
    await s.close();
  }
});

test('the daemon is still alive and serving', async () => {
  assert.ok(pidAlive(vault.pid));
  const ok = JSON.parse(await shim.request(90, 'tools/list', {}));
  assert.ok(ok.result.tools.some((t) => t.name === 'a__echo'));
  const r = await vault.rest('GET', '/api/v1/daemon/status');
  assert.equal(r.status, 200);
});
