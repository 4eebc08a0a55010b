// /metrics end to end (issue 17): scraped over HTTP and parsed by a strict Prometheus text-format
// parser (lib/prometheus.mjs); the counters move with real calls of the official SDK client
// through the gateway to coffer-test-upstream; refusals (token, Host, method) change nothing. And
// W3C trace context: a client's traceparent reaches the upstream as the gateway's child span.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { Vault, bins, httpClient, waitFor } from '../lib/harness.mjs';
import { parsePrometheusText, sampleValue } from '../lib/prometheus.mjs';

let vault;

before(async () => {
  vault = await Vault.create('metrics');
  await vault.start();
  await vault.cliOk(['mcp', 'add', 'up', '--stdio', bins.upstream]);
});

after(async () => {
  await vault?.cleanup();
});

async function scrape(headers = {}) {
  const res = await fetch(`http://127.0.0.1:${vault.port}/metrics`, { headers: { 'X-Coffer-Token': vault.token, ...headers } });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(text);
}

const calls = (m, tool, outcome) =>
  sampleValue(m, 'coffer_mcp_calls_total', 'coffer_mcp_calls_total', { server: 'up', type: 'tool', tool, outcome }) ?? 0;
const latencyCount = (m) =>
  sampleValue(m, 'coffer_mcp_call_duration_seconds', 'coffer_mcp_call_duration_seconds_count', { server: 'up', type: 'tool' }) ?? 0;

test('without the token, from a foreign Host, or with POST, /metrics is refused and counts nothing', async () => {
  const url = `http://127.0.0.1:${vault.port}/metrics`;
  assert.equal((await fetch(url)).status, 401);
  assert.equal((await fetch(url, { headers: { 'X-Coffer-Token': 'f'.repeat(64) } })).status, 401);
  const post = await fetch(url, { method: 'POST', headers: { 'X-Coffer-Token': vault.token } });
  assert.equal(post.status, 405);
  // fetch() cannot forge Host; a raw request can.
  const net = await import('node:net');
  const reply = await new Promise((resolve, reject) => {
    const sock = net.connect(vault.port, '127.0.0.1', () => {
      sock.write(`GET /metrics HTTP/1.1\r\nHost: evil.example\r\nX-Coffer-Token: ${vault.token}\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    sock.on('data', (d) => { data += d; });
    sock.on('end', () => resolve(data));
    sock.on('error', reject);
  });
  assert.match(reply, /^HTTP\/1\.1 403/);
  const m = await scrape();
  assert.equal(calls(m, 'up__echo', 'ok'), 0);
});

test('calls through the gateway move the counters by server, tool and outcome, and the latency histogram', async () => {
  const before = await scrape();
  const client = await httpClient(vault);
  try {
    for (let i = 0; i < 3; i++) {
      const r = await client.callTool({ name: 'up__echo', arguments: { text: `hi ${i}` } });
      assert.equal(r.content[0].text, `hi ${i}`);
    }
    const failed = await client.callTool({ name: 'up__fail', arguments: {} });
    assert.equal(failed.isError, true);
    await assert.rejects(client.callTool({ name: 'nosuch__echo', arguments: {} }));

    const m = await scrape();
    assert.equal(calls(m, 'up__echo', 'ok') - calls(before, 'up__echo', 'ok'), 3);
    assert.equal(calls(m, 'up__fail', 'tool_error') - calls(before, 'up__fail', 'tool_error'), 1);
    assert.equal(sampleValue(m, 'coffer_mcp_calls_total', 'coffer_mcp_calls_total',
      { server: 'nosuch', tool: 'nosuch__echo', outcome: 'unknown' }), 1);
    assert.equal(latencyCount(m) - latencyCount(before), 4);
    const sum = sampleValue(m, 'coffer_mcp_call_duration_seconds', 'coffer_mcp_call_duration_seconds_sum', { server: 'up', type: 'tool' });
    assert.ok(sum > 0 && sum < 60, `latency sum ${sum}`);
    assert.ok(sampleValue(m, 'coffer_mcp_sessions', 'coffer_mcp_sessions', { transport: 'streamable-http' }) >= 1);
    assert.ok(sampleValue(m, 'coffer_mcp_sessions_opened_total', 'coffer_mcp_sessions_opened_total', { transport: 'streamable-http' }) >= 1);
    assert.ok(sampleValue(m, 'coffer_http_responses_total', 'coffer_http_responses_total', { code: '2xx' }) > 0);
    assert.equal(sampleValue(m, 'coffer_resource_enabled', 'coffer_resource_enabled', { kind: 'mcp_server', name: 'up' }), 1);
    assert.ok(sampleValue(m, 'coffer_resource_status_value', 'coffer_resource_status_value',
      { kind: 'mcp_server', name: 'up', field: 'connections' }) >= 1);
    assert.equal(m.get('coffer_mcp_calls_total').type, 'counter');
    assert.equal(m.get('coffer_mcp_call_duration_seconds').type, 'histogram');
  } finally {
    await client.close();
  }
});

test('an upstream that crashes and is started again counts as a restart', async () => {
  const restarts = (m) => sampleValue(m, 'coffer_resource_restarts_total', 'coffer_resource_restarts_total',
    { kind: 'mcp_server', name: 'up' }) ?? 0;
  const before = restarts(await scrape());
  const client = await httpClient(vault);
  try {
    await client.callTool({ name: 'up__echo', arguments: { text: 'warm' } });
    await assert.rejects(client.callTool({ name: 'up__crash', arguments: {} }));
    await waitFor('the upstream to answer again', async () => {
      const r = await client.callTool({ name: 'up__echo', arguments: { text: 'again' } }).catch(() => null);
      return r?.content?.[0]?.text === 'again';
    }, { timeout: 15000, interval: 200 });
    const m = await scrape();
    assert.ok(restarts(m) > before, `restarts ${restarts(m)} after ${before}`);
    assert.ok(calls(m, 'up__crash', 'error') >= 1);
  } finally {
    await client.close();
  }
});

test('a traceparent from the client reaches the upstream as the gateway span, same trace; none is invented', async () => {
  const client = await httpClient(vault);
  try {
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const r = await client.callTool({ name: 'up__meta', arguments: {}, _meta: { traceparent: parent, tracestate: 'k=v' } });
    const seen = JSON.parse(r.content[0].text);
    const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(seen.traceparent);
    assert.ok(m, `upstream saw ${JSON.stringify(seen)}`);
    assert.equal(m[1], '0af7651916cd43dd8448eb211c80319c');
    assert.notEqual(m[2], 'b7ad6b7169203331');
    assert.equal(seen.tracestate, 'k=v');

    const plain = JSON.parse((await client.callTool({ name: 'up__meta', arguments: {} })).content[0].text);
    assert.equal(plain.traceparent, undefined);

    // An invalid traceparent is not turned into a child span (it passes through untouched).
    const bad = JSON.parse((await client.callTool({ name: 'up__meta', arguments: {},
      _meta: { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' } })).content[0].text);
    assert.equal(bad.traceparent, '00-00000000000000000000000000000000-b7ad6b7169203331-01');
  } finally {
    await client.close();
  }
});

test('the HTTP traceparent header on POST /mcp is taken when _meta has none', async () => {
  const base = { 'X-Coffer-Token': vault.token, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const url = `http://127.0.0.1:${vault.port}/mcp`;
  const init = await fetch(url, { method: 'POST', headers: base, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
  assert.equal(init.status, 200);
  const sid = init.headers.get('mcp-session-id');
  await init.text();
  const headers = { ...base, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-06-18' };
  await (await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  const res = await fetch(url, { method: 'POST', headers: { ...headers, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'up__meta', arguments: {} } }) });
  const text = await res.text();
  const body = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: ')).slice(6));
  const seen = JSON.parse(body.result.content[0].text);
  assert.match(seen.traceparent, /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
  assert.ok(!seen.traceparent.includes('00f067aa0ba902b7'));
  await fetch(url, { method: 'DELETE', headers });
});

test('with COFFER_OTLP_ENDPOINT, each routed call is exported as an OTLP/HTTP JSON span, a root when the client sent no traceparent', async () => {
  const http = await import('node:http');
  const received = [];
  const collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      received.push({ path: req.url, type: req.headers['content-type'], json: JSON.parse(body) });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise((r) => collector.listen(0, '127.0.0.1', r));
  const traced = await Vault.create('otlp');
  try {
    await traced.start({ COFFER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.address().port}` });
    await traced.cliOk(['mcp', 'add', 'up', '--stdio', bins.upstream]);
    const client = await httpClient(traced);
    try {
      const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const child = JSON.parse((await client.callTool({ name: 'up__meta', arguments: {}, _meta: { traceparent: parent } })).content[0].text);
      const root = JSON.parse((await client.callTool({ name: 'up__meta', arguments: {} })).content[0].text);
      assert.match(root.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'a new trace when exporting');
      const spans = await waitFor('two exported spans', () => {
        const all = received.flatMap((r) => r.json.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
        return all.length >= 2 ? all : null;
      }, { timeout: 10000, interval: 100 });
      assert.equal(received[0].path, '/v1/traces');
      assert.match(received[0].type, /^application\/json/);
      const svc = received[0].json.resourceSpans[0].resource.attributes.find((a) => a.key === 'service.name');
      assert.equal(svc.value.stringValue, 'coffer-daemon');
      const [, , childSpan] = child.traceparent.split('-');
      const a = spans.find((s) => s.spanId === childSpan);
      assert.ok(a, `the span the upstream saw (${childSpan}) was exported: ${JSON.stringify(spans)}`);
      assert.equal(a.traceId, '0af7651916cd43dd8448eb211c80319c');
      assert.equal(a.parentSpanId, 'b7ad6b7169203331');
      assert.equal(a.name, 'tools/call up__meta');
      assert.equal(a.kind, 2);
      assert.ok(BigInt(a.endTimeUnixNano) >= BigInt(a.startTimeUnixNano));
      assert.equal(a.attributes.find((x) => x.key === 'coffer.outcome').value.stringValue, 'ok');
      const [, rootTrace, rootSpan] = root.traceparent.split('-');
      const b = spans.find((s) => s.spanId === rootSpan);
      assert.ok(b);
      assert.equal(b.traceId, rootTrace);
      assert.equal(b.parentSpanId, undefined);
    } finally {
      await client.close();
    }
  } finally {
    await traced.cleanup();
    collector.close();
  }
});

test('a COFFER_OTLP_ENDPOINT that is not an http:// URL stops the daemon from starting, with the reason', async () => {
  const bad = await Vault.create('otlp-bad');
  try {
    await assert.rejects(bad.start({ COFFER_OTLP_ENDPOINT: 'https://collector.example' }), /COFFER_OTLP_ENDPOINT/);
  } finally {
    await bad.cleanup();
  }
});
