// `coffer mcp …` against a real daemon: registering stdio and HTTP servers (server-everything in
// both modes, server-filesystem, coffer-test-upstream), list/show/status/update/enable/disable/
// delete, the plugin's test and tools actions, refresh — all with --json.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';

import { Vault, bins, nodeBin, everythingJs, filesystemJs, startEverythingHttp } from '../lib/harness.mjs';

let vault;
let evh;

before(async () => {
  vault = await Vault.create('cli');
  await vault.start();
  evh = await startEverythingHttp();
});

after(async () => {
  await evh?.stop();
  await vault?.cleanup();
});

test('register a stdio server (split like a shell) and an HTTP server', async () => {
  const a = await vault.cli(['mcp', 'add', 'ev', '--stdio', `${nodeBin} "${everythingJs}" stdio`, '--description', 'everything']);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.json.resource.kind, 'mcp_server');
  assert.equal(a.json.resource.name, 'ev');
  assert.equal(a.json.resource.config.command, nodeBin);
  assert.deepEqual(a.json.resource.config.args, [everythingJs, 'stdio']);

  const h = await vault.cli(['mcp', 'add', 'evh', '--http', evh.url, '--header', 'X-Test=1', '--timeout-ms', '20000']);
  assert.equal(h.code, 0, h.stderr);
  assert.equal(h.json.resource.config.url, evh.url);
  assert.deepEqual(h.json.resource.config.headers, { 'X-Test': '1' });
  assert.equal(h.json.resource.config.timeout_ms, 20000);

  const root = path.join(vault.dir, 'files');
  await fsp.mkdir(root);
  const f = await vault.cli(['mcp', 'add', 'fs', '--env', 'A=1', '--env', 'B=two words', '--', nodeBin, filesystemJs, root]);
  assert.equal(f.code, 0, f.stderr);
  assert.deepEqual(f.json.resource.config.args, [filesystemJs, root]);
  assert.deepEqual(f.json.resource.config.env, { A: '1', B: 'two words' });

  const u = await vault.cli(['mcp', 'add', 'a', '--stdio', bins.upstream, '--auto-enable-new', 'no']);
  assert.equal(u.code, 0, u.stderr);
  assert.equal(u.json.resource.config.auto_enable_new, false);
});

test('registration succeeds when the upstream is down; status says why', async () => {
  const r = await vault.cli(['mcp', 'add', 'ghost', '--stdio', 'coffer-no-such-launcher --flag']);
  assert.equal(r.code, 0, r.stderr);
  const s = await vault.cli(['mcp', 'status', 'ghost']);
  assert.equal(s.code, 0, s.stderr);
  assert.equal(s.json.servers.length, 1);
  const entry = s.json.servers[0];
  assert.equal(entry.name, 'ghost');
  assert.match(JSON.stringify(entry), /runner not installed: coffer-no-such-launcher/);
  const t = await vault.cli(['mcp', 'test', 'ghost']);
  assert.equal(t.code, 1, 'a failing test exits 1');
  assert.equal(t.json.result.ok, false);
});

test('list, show and status with --json', async () => {
  const l = await vault.cli(['mcp', 'list']);
  assert.equal(l.code, 0, l.stderr);
  const names = l.json.resources.map((r) => r.name);
  assert.deepEqual(names, [...names].sort());
  for (const n of ['a', 'ev', 'evh', 'fs', 'ghost']) assert.ok(names.includes(n), n);
  assert.ok(l.json.resources.every((r) => r.kind === 'mcp_server'));

  const s = await vault.cli(['mcp', 'show', 'evh']);
  assert.equal(s.code, 0);
  assert.equal(s.json.resource.config.url, evh.url);

  const st = await vault.cli(['mcp', 'status']);
  assert.equal(st.code, 0);
  assert.ok(st.json.servers.length >= 5);
  for (const e of st.json.servers) assert.ok('health' in e && 'last_error' in e, JSON.stringify(e));

  const missing = await vault.cli(['mcp', 'show', 'nope']);
  assert.equal(missing.code, 1);
  assert.equal(missing.json.error.code, 'NOT_FOUND');

  // Human output too.
  const human = await vault.cli(['mcp', 'list'], { json: false });
  assert.equal(human.code, 0);
  assert.match(human.stdout, /^NAME\s+ENABLED\s+HEALTH\s+TRANSPORT\s+TARGET/);
});

test('test and tools actions reach the real upstreams', async () => {
  for (const name of ['ev', 'evh', 'fs', 'a']) {
    const t = await vault.cli(['mcp', 'test', name]);
    assert.equal(t.code, 0, `${name}: ${t.stderr} ${t.stdout}`);
    assert.equal(t.json.result.ok, true, JSON.stringify(t.json));
    assert.ok(t.json.result.tools.length > 0);
  }
  const tools = await vault.cli(['mcp', 'tools', 'a']);
  assert.equal(tools.code, 0, tools.stderr);
  const names = tools.json.tools.map((t) => t.name);
  assert.ok(names.includes('search') && names.includes('echo'), names.join(','));
  // 'a' was added with --auto-enable-new no: everything it lists is new, so it starts disabled.
  assert.equal(tools.json.auto_enable_new, false);
  assert.ok(tools.json.tools.every((t) => t.enabled === false && t.present === true && t.origin === 'policy'),
    JSON.stringify(tools.json));
  const human = await vault.cli(['mcp', 'tools', 'a'], { json: false });
  assert.match(human.stdout, /a__search/);
});

test('update keeps what is not given; disable, enable, delete, refresh', async () => {
  const u = await vault.cli(['mcp', 'update', 'fs', '--env', 'C=3', '--remove-env', 'A', '--timeout-ms', '30000']);
  assert.equal(u.code, 0, u.stderr);
  assert.deepEqual(u.json.resource.config.env, { B: 'two words', C: '3' });
  assert.equal(u.json.resource.config.timeout_ms, 30000);
  assert.equal(u.json.resource.config.command, nodeBin);

  const nothing = await vault.cli(['mcp', 'update', 'fs']);
  assert.equal(nothing.code, 2);
  assert.equal(nothing.json.error.code, 'USAGE');

  const d = await vault.cli(['mcp', 'disable', 'ghost']);
  assert.equal(d.code, 0, d.stderr);
  assert.equal(d.json.resource.enabled, false);
  const e = await vault.cli(['mcp', 'enable', 'ghost']);
  assert.equal(e.json.resource.enabled, true);
  const del = await vault.cli(['mcp', 'delete', 'ghost']);
  assert.equal(del.code, 0);
  assert.equal(del.json.deleted.name, 'ghost');

  const r = await vault.cli(['mcp', 'refresh']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.ok(r.json && typeof r.json === 'object');
});

test('usage errors are caught before the daemon is called', async () => {
  for (const args of [
    ['mcp', 'add', 'x'],
    ['mcp', 'add', 'x', '--stdio', 'a', '--http', 'http://127.0.0.1:1/mcp'],
    ['mcp', 'add', 'x', '--stdio', 'node "unterminated'],
    ['mcp', 'add', 'x', '--stdio', 'node', '--env', 'NOEQUALS'],
    ['mcp', 'add', 'x', '--stdio', 'node', '--timeout-ms', 'soon'],
  ]) {
    const r = await vault.cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.equal(r.json.error.code, 'USAGE');
  }
  // The plugin validates the rest (a name that cannot prefix tools, a bad URL).
  const bad = await vault.cli(['mcp', 'add', 'bad__name', '--stdio', 'node']);
  assert.equal(bad.code, 1);
  assert.equal(bad.json.error.code, 'VALIDATION_FAILED');
});
