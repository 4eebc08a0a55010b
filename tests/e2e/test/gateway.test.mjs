// The gateway with real peers: the official SDK client through coffer-mcp-shim (stdio) and
// straight to /mcp (Streamable HTTP, X-Coffer-Token), upstreams server-everything (stdio and its
// Streamable HTTP mode), server-filesystem and coffer-test-upstream (two of them: a and b).
// Aggregation with colliding names, routing, byte-for-byte results, resources and prompts,
// list_changed mid-session, progress, the token requirement.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';

import {
  ToolListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import {
  Vault, bins, nodeBin, everythingJs, filesystemJs, NAME_RE,
  shimClient, httpClient, directStdioClient, rawShim, RawStdio, rawMember,
  registerStandardUpstreams, startEverythingHttp, waitFor,
} from '../lib/harness.mjs';

let vault;
let evh;
let fsRoot;
let viaShim;
let viaHttp;

before(async () => {
  vault = await Vault.create('gateway');
  await vault.start();
  evh = await startEverythingHttp();
  fsRoot = path.join(vault.dir, 'files');
  await fsp.mkdir(fsRoot);
  await fsp.writeFile(path.join(fsRoot, 'hello.txt'), 'hello from the filesystem\n');
  await registerStandardUpstreams(vault, { everythingHttpUrl: evh.url, fsRoot });
  viaShim = await shimClient(vault, { agent: 'e2e-shim' });
  viaHttp = await httpClient(vault);
});

after(async () => {
  await viaShim?.close().catch(() => {});
  await viaHttp?.close().catch(() => {});
  await evh?.stop();
  await vault?.cleanup();
});

test('one server: the union of every upstream, namespaced, valid names, deterministic order', async () => {
  for (const client of [viaShim, viaHttp]) {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['a__search', 'b__search', 'a__echo', 'ev__echo', 'ev__get-sum', 'evh__echo', 'fs__read_text_file'])
      assert.ok(names.includes(n), `${n} missing from ${names.join(', ')}`);
    for (const n of names) assert.match(n, NAME_RE);
    assert.equal(new Set(names).size, names.length, 'no duplicates');
    const again = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(again, names, 'same order twice');
  }
  // Both clients see the same set.
  const a = (await viaShim.listTools()).tools.map((t) => t.name).sort();
  const b = (await viaHttp.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(a, b);
});

test('the upstreams\' I/O runs where the environment says (the daemon\'s lent loop by default)', async () => {
  const own = process.env.COFFER_MCP_SERVER_IO === 'thread';
  for (const name of ['a', 'ev', 'evh']) {
    const r = await vault.rest('GET', `/api/v1/resources/mcp_server/${name}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.resource.status.plugin.io, own ? 'own_thread' : 'host_loop');
  }
});

test('colliding tool names route to their own server', async () => {
  const ra = await viaShim.callTool({ name: 'a__search', arguments: { query: 'coffer' } });
  const rb = await viaShim.callTool({ name: 'b__search', arguments: { query: 'coffer' } });
  assert.equal(ra.content[0].text, '2 results for coffer');
  assert.deepEqual(ra.structuredContent, { query: 'coffer', hits: ['alpha', 'beta'] });
  assert.deepEqual(rb, ra);
  const pa = (await viaShim.callTool({ name: 'a__pid', arguments: {} })).content[0].text;
  const pb = (await viaShim.callTool({ name: 'b__pid', arguments: {} })).content[0].text;
  assert.notEqual(pa, pb, 'a and b are different processes');
  // A tool error is returned unchanged (not turned into a protocol error).
  const f = await viaHttp.callTool({ name: 'a__fail', arguments: {} });
  assert.equal(f.isError, true);
  assert.equal(f.content[0].text, 'this tool always fails');
});

test('a routed result is byte for byte the direct result', async () => {
  // Through the shim, raw lines.
  const shim = rawShim(vault, { agent: 'bytes' });
  await shim.initialize();
  // Directly, the same upstreams.
  const directUp = new RawStdio(bins.upstream, []);
  await directUp.initialize();
  const directEv = new RawStdio(nodeBin, [everythingJs, 'stdio']);
  await directEv.initialize();
  try {
    const cases = [
      [directUp, 'a__raw', 'raw', {}],
      [directUp, 'a__search', 'search', { query: 'bytes' }],
      [directUp, 'b__big', 'big', { bytes: 100000 }],
      [directEv, 'ev__get-sum', 'get-sum', { a: 1.5, b: 2 }],
      [directEv, 'ev__echo', 'echo', { message: 'héllo "quoted" \\ \u2028 ✓' }],
      [directEv, 'ev__get-structured-content', 'get-structured-content', { location: 'New York' }],
      [directEv, 'ev__get-tiny-image', 'get-tiny-image', {}],
    ];
    let id = 10;
    for (const [direct, routed, original, args] of cases) {
      const viaGateway = await shim.request(++id, 'tools/call', { name: routed, arguments: args });
      const viaDirect = await direct.request(++id, 'tools/call', { name: original, arguments: args });
      const g = rawMember(viaGateway, 'result');
      const d = rawMember(viaDirect, 'result');
      assert.ok(g !== undefined, `no result through the gateway: ${viaGateway.slice(0, 300)}`);
      assert.equal(g, d, `${routed}: the gateway changed the bytes`);
    }
    // The same over Streamable HTTP, with a plain fetch (no SDK re-serialization).
    const g = await rawHttpCall(vault, 'a__raw', {});
    const d = rawMember(await directUp.request(99, 'tools/call', { name: 'raw', arguments: {} }), 'result');
    assert.equal(g, d);
  } finally {
    await shim.close();
    await directUp.close();
    await directEv.close();
  }
});

// One tools/call over raw HTTP (initialize, initialized, call); returns the raw `result` text.
async function rawHttpCall(v, name, args) {
  const base = { 'X-Coffer-Token': v.token, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const post = async (body, headers = {}) => {
    const res = await fetch(v.mcpUrl(), { method: 'POST', headers: { ...base, ...headers }, body: JSON.stringify(body) });
    return { res, text: await res.text() };
  };
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-http', version: '1' } } });
  assert.equal(init.res.status, 200, init.text);
  const sid = init.res.headers.get('mcp-session-id');
  assert.ok(sid, 'a session id');
  const h = { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' };
  const ack = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, h);
  assert.equal(ack.res.status, 202);
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } }, h);
  assert.equal(call.res.status, 200, call.text);
  let message = call.text;
  if ((call.res.headers.get('content-type') || '').startsWith('text/event-stream')) {
    // The event whose data is the response.
    const events = call.text.split(/\r?\n\r?\n/).map((e) => e.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n'));
    message = events.find((d) => d && /"id"\s*:\s*2\b/.test(d) && /"result"/.test(d));
  }
  await fetch(v.mcpUrl(), { method: 'DELETE', headers: { ...base, ...h } });
  return rawMember(message, 'result');
}

test('resources and prompts through the gateway', async () => {
  const direct = await directStdioClient(nodeBin, [everythingJs, 'stdio']);
  try {
    const directDocs = (await direct.listResources()).resources;
    const directFeatures = directDocs.find((r) => r.name === 'features.md');
    assert.ok(directFeatures, 'server-everything lists features.md');
    const directText = (await direct.readResource({ uri: directFeatures.uri })).contents[0].text;

    for (const client of [viaShim, viaHttp]) {
      const { resources } = await client.listResources();
      // a and b both have a resource "hello": two entries, told apart by their prefixed URIs.
      const hellos = resources.filter((r) => r.name === 'hello');
      assert.equal(hellos.length, 2, JSON.stringify(resources.map((r) => r.uri)));
      assert.notEqual(hellos[0].uri, hellos[1].uri);
      for (const h of hellos) {
        const read = await client.readResource({ uri: h.uri });
        assert.equal(read.contents[0].text, 'hello world');
      }
      // server-everything's document, from stdio and from HTTP mode, reads like the direct one.
      const features = resources.filter((r) => r.name === 'features.md');
      assert.ok(features.length >= 2, 'ev and evh both list features.md');
      for (const f of features) {
        const read = await client.readResource({ uri: f.uri });
        assert.equal(read.contents[0].text, directText);
      }
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.ok(resourceTemplates.some((t) => t.name === 'dynamic'), 'the test upstream template');

      const { prompts } = await client.listPrompts();
      const names = prompts.map((p) => p.name);
      for (const n of ['ev__simple-prompt', 'ev__args-prompt', 'a__greet', 'b__greet']) assert.ok(names.includes(n), `${n} in ${names.join(',')}`);
      for (const n of names) assert.match(n, NAME_RE);
      const p = await client.getPrompt({ name: 'ev__args-prompt', arguments: { city: 'Lisbon' } });
      const dp = await direct.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon' } });
      assert.deepEqual(p.messages, dp.messages);
      const g = await client.getPrompt({ name: 'a__greet', arguments: { name: 'Ada' } });
      assert.match(JSON.stringify(g.messages), /Ada/);
    }
  } finally {
    await direct.close();
  }
});

test('server-filesystem through the gateway', async () => {
  const r = await viaShim.callTool({ name: 'fs__read_text_file', arguments: { path: path.join(fsRoot, 'hello.txt') } });
  assert.match(r.content[0].text, /hello from the filesystem/);
  const outside = await viaShim.callTool({ name: 'fs__read_text_file', arguments: { path: '/etc/hostname' } });
  assert.equal(outside.isError, true, 'the upstream refuses paths outside its root, and that tool error comes back as is');
});

test('list_changed mid-session reaches the client', async () => {
  const client = await shimClient(vault, { agent: 'lc' });
  try {
    await client.listTools();
    let toolsChanged = 0;
    let resourcesChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { toolsChanged++; });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { resourcesChanged++; });
    const before = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!before.includes('a__extra'));
    await client.callTool({ name: 'a__toggle', arguments: {} });
    await waitFor('notifications/tools/list_changed', () => toolsChanged > 0, { timeout: 5000 });
    const afterNames = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(afterNames.includes('a__extra'), 'the cache was invalidated by list_changed');
    const extra = await client.callTool({ name: 'a__extra', arguments: {} });
    assert.equal(extra.content[0].text, 'extra');

    // server-everything registers a session resource when asked to gzip data: resources/list_changed.
    await client.listResources();
    await client.callTool({ name: 'ev__gzip-file-as-resource', arguments: { name: 'e2e.txt.gz', data: 'data:text/plain;base64,aGVsbG8=' } });
    await waitFor('notifications/resources/list_changed', () => resourcesChanged > 0, { timeout: 5000 });
    const res = (await client.listResources()).resources;
    assert.ok(res.some((r) => r.name === 'e2e.txt.gz'), 'the new resource is listed');
  } finally {
    await client.close();
  }
});

test('progress notifications reach the client that asked', async () => {
  for (const client of [viaShim, viaHttp]) {
    const seen = [];
    const r = await client.callTool(
      { name: 'ev__trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    );
    assert.ok(r.content.length > 0);
    assert.ok(seen.length >= 1, 'at least one progress notification');
    assert.ok(seen.every((p) => typeof p.progress === 'number'));

    // Every step's notification reaches the client, in order and before the result. Counted on the
    // transport: the SDK runs notification handlers a microtask later but responses at once, so a
    // last progress that arrives in the same read as the result reaches no onprogress handler
    // (its handler is gone by then) even though the gateway delivered it first.
    const wire = [];
    const transport = client.transport;
    const inner = transport.onmessage;
    transport.onmessage = (m, extra) => {
      if (m.method === 'notifications/progress') wire.push(`progress ${m.params.progress}`);
      else if ('result' in m || 'error' in m) wire.push('answer');
      inner(m, extra);
    };
    const seen2 = [];
    try {
      await client.callTool({ name: 'a__progress', arguments: { steps: 4, interval_ms: 5 } }, undefined, { onprogress: (p) => seen2.push(p) });
    } finally {
      transport.onmessage = inner;
    }
    assert.deepEqual(wire, ['progress 1', 'progress 2', 'progress 3', 'progress 4', 'answer']);
    assert.deepEqual(seen2.map((p) => p.progress), [1, 2, 3, 4].slice(0, seen2.length));
  }
});

test('the /mcp endpoint requires X-Coffer-Token', async () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const none = await fetch(vault.mcpUrl(), { method: 'POST', headers, body });
  assert.equal(none.status, 401);
  const wrong = await fetch(vault.mcpUrl(), { method: 'POST', headers: { ...headers, 'X-Coffer-Token': 'nope' }, body });
  assert.equal(wrong.status, 401);
  const evil = await fetch(vault.mcpUrl(), { method: 'POST', headers: { ...headers, 'X-Coffer-Token': vault.token, Origin: 'http://evil.example' }, body });
  assert.equal(evil.status, 403);
});

test('a stateless 2026-07-28 client through the shim (no initialize)', async () => {
  const shim = rawShim(vault, { agent: 'modern' });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'modern', version: '1' },
  };
  try {
    const discover = JSON.parse(await shim.request(1, 'server/discover', { _meta: meta }));
    assert.ok(discover.result.supportedVersions.includes('2026-07-28'), JSON.stringify(discover));
    const list = JSON.parse(await shim.request(2, 'tools/list', { _meta: meta }));
    assert.ok(list.result.tools.some((t) => t.name === 'a__search'));
    const call = JSON.parse(await shim.request(3, 'tools/call', { name: 'a__echo', arguments: { text: 'stateless' }, _meta: meta }));
    assert.equal(call.result.content[0].text, 'stateless');
    // A header the shim must mirror from the body, with a non-ASCII name (Base64 sentinel).
    const odd = JSON.parse(await shim.request(4, 'tools/call', { name: 'a__ünknown', arguments: {}, _meta: meta }));
    assert.ok(odd.error || odd.result?.isError, JSON.stringify(odd));
    assert.notEqual(odd.error?.code, -32020, 'no HeaderMismatch: Mcp-Name matched the body');
  } finally {
    await shim.close();
  }
});
