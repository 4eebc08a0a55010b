// Capability curation and the invocation log end to end (G-20…G-23, G-30): the official SDK
// client through coffer-mcp-shim; preferences set over REST and the CLI; coffer-test-upstream
// changes its tool list through --tools-file (an upgrade without re-registering); the daemon is
// restarted in between.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { Vault, bins, shimClient, waitFor } from '../lib/harness.mjs';

let vault;
let toolsFile;
let strictFile;

before(async () => {
  vault = await Vault.create('curation');
  toolsFile = path.join(vault.dir, 'tools.txt');
  strictFile = path.join(vault.dir, 'strict-tools.txt');
  fs.writeFileSync(toolsFile, '');
  fs.writeFileSync(strictFile, '');
  await vault.start();
  await vault.cliOk(['mcp', 'add', 'up', '--stdio', `${bins.upstream} --tools-file ${toolsFile}`]);
  await vault.cliOk(['mcp', 'add', 'strict', '--stdio', `${bins.upstream} --tools-file ${strictFile}`,
    '--auto-enable-new', 'no']);
});

after(async () => {
  await vault?.cleanup();
});

const names = async (client) => (await client.listTools()).tools.map((t) => t.name);
const callError = (client, name, args = {}) =>
  client.callTool({ name, arguments: args }).then((r) => ({ result: r }), (error) => ({ error }));

async function restartDaemon() {
  const proc = vault.daemonProc;
  await vault.rest('POST', '/api/v1/daemon/stop');
  await waitFor('the daemon to exit', () => proc.exitCode !== null, { timeout: 15000 });
  await vault.start();
}

async function audit(type) {
  const r = await vault.rest('GET', '/api/v1/audit?limit=1000');
  return r.json.events.filter((e) => e.event_type === type);
}

test('a tool disabled over REST vanishes from tools/list and its call is refused with -32000', async () => {
  const client = await shimClient(vault, { agent: 'curator' });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
  try {
    assert.ok((await names(client)).includes('up__echo'));
    const r = await vault.rest('POST', '/api/v1/mcp/servers/up/tools/disable', { name: 'echo' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.capability.enabled, false);
    await waitFor('tools/list_changed', () => changed > 0);
    const after = await names(client);
    assert.ok(!after.includes('up__echo'));
    assert.ok(after.includes('up__search'));
    const refused = await callError(client, 'up__echo', { text: 'x' });
    assert.ok(refused.error, `refused: ${JSON.stringify(refused.result)}`);
    assert.equal(refused.error.code, -32000);
    assert.match(refused.error.message, /Tool up__echo is disabled/);

    const back = await vault.rest('POST', '/api/v1/mcp/servers/up/tools/enable', { name: 'echo' });
    assert.equal(back.status, 200, back.text);
    assert.ok((await names(client)).includes('up__echo'));
    const ok = await client.callTool({ name: 'up__echo', arguments: { text: 'again' } });
    assert.equal(ok.content[0].text, 'again');
  } finally {
    await client.close();
  }
});

test('preferences survive a daemon restart and an upstream that drops and re-adds the tool', async () => {
  await vault.cliOk(['mcp', 'tool', 'disable', 'up', 'search']);
  fs.writeFileSync(toolsFile, '-search\n');  // the upgrade drops it
  let client = await shimClient(vault, { agent: 'curator' });
  try {
    assert.ok(!(await names(client)).includes('up__search'));
    const listed = await vault.cliOk(['mcp', 'tools', 'up']);
    const search = listed.tools.find((t) => t.name === 'search');
    assert.equal(search.present, false, 'remembered while absent');
    assert.equal(search.enabled, false);
  } finally {
    await client.close();
  }
  await restartDaemon();
  fs.writeFileSync(toolsFile, '');  // and the next one brings it back
  client = await shimClient(vault, { agent: 'curator' });
  try {
    const after = await names(client);
    assert.ok(!after.includes('up__search'), 'still disabled after restart and re-add');
    assert.ok(after.includes('up__echo'));
    const refused = await callError(client, 'up__search', { query: 'q' });
    assert.equal(refused.error?.code, -32000);
    await vault.cliOk(['mcp', 'tool', 'enable', 'up', 'search']);
    assert.ok((await names(client)).includes('up__search'));
  } finally {
    await client.close();
  }
});

test('auto_enable_new both ways: a new tool appears enabled, or disabled with an audit row', async () => {
  fs.writeFileSync(toolsFile, 'fresh_up\n');
  fs.writeFileSync(strictFile, '');
  const client = await shimClient(vault, { agent: 'curator' });
  try {
    // strict: everything it lists is new to it, so nothing shows until enabled.
    let listed = await names(client);
    assert.ok(listed.includes('up__fresh_up'), 'auto_enable_new: yes');
    assert.ok(!listed.some((n) => n.startsWith('strict__')), 'auto_enable_new: no');
    await vault.cliOk(['mcp', 'tool', 'enable', 'strict', 'echo']);
    listed = await names(client);
    assert.ok(listed.includes('strict__echo'));

    fs.writeFileSync(strictFile, 'fresh_strict\n');
    await vault.cliOk(['mcp', 'refresh']);
    listed = await names(client);
    assert.ok(!listed.includes('strict__fresh_strict'));
    const refused = await callError(client, 'strict__fresh_strict');
    assert.equal(refused.error?.code, -32000);

    const events = await waitFor('discovery audit rows', async () => {
      const ev = await audit('capabilities_discovered');
      const up = ev.find((e) => e.target === 'up' && e.payload.names.includes('fresh_up'));
      const st = ev.find((e) => e.target === 'strict' && e.payload.names.includes('fresh_strict'));
      return up && st ? { up, st } : null;
    });
    assert.equal(events.up.payload.enabled, true);
    assert.equal(events.st.payload.enabled, false);
    assert.equal(events.st.actor, 'system');
  } finally {
    await client.close();
  }
});

test('invocations are listed with agent, target, outcome — never arguments or results', async () => {
  const client = await shimClient(vault, { agent: 'logger' });
  const secret = 'e2e-argument-4b1d-never-logged';
  try {
    const r = await client.callTool({ name: 'up__echo', arguments: { text: secret } });
    assert.equal(r.content[0].text, secret);
    await client.callTool({ name: 'up__fail', arguments: {} });
  } finally {
    await client.close();
  }
  const doc = await waitFor('the invocations', async () => {
    const d = await vault.cliOk(['mcp', 'invocations', '--server', 'up', '--limit', '20']);
    return d.invocations.some((i) => i.agent === 'logger' && i.outcome === 'tool_error') ? d : null;
  });
  assert.ok(Array.isArray(doc.invocations));
  const mine = doc.invocations.filter((i) => i.agent === 'logger');
  assert.deepEqual(mine.map((i) => [i.target, i.outcome]), [['up__fail', 'tool_error'], ['up__echo', 'ok']]);
  for (const i of mine) {
    assert.equal(i.type, 'tool');
    assert.equal(typeof i.duration_ms, 'number');
    assert.ok(i.ts && i.session);
  }
  assert.ok(!JSON.stringify(doc).includes(secret));
  const rest = await vault.rest('GET', '/api/v1/mcp/invocations?limit=1000');
  assert.ok(!rest.text.includes(secret));
});
