// Knowledge bases and memory with the official SDK client straight to the daemon's /mcp: a
// knowledge base added with the CLI over a folder, searched and read through <kb>__search and
// <kb>__read; a fact remembered with memory__remember and found again with memory__recall.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';

import { Vault, httpClient, waitFor } from '../lib/harness.mjs';

let vault;
let client;

before(async () => {
  vault = await Vault.create('knowledge');
  await vault.start();
  const docs = path.join(vault.dir, 'docs');
  await fsp.mkdir(path.join(docs, 'ops'), { recursive: true });
  await fsp.writeFile(path.join(docs, 'ops', 'rotate.md'),
    '# Operations\n\n## Rotating keys\n\nRotate the signing key with the ocelot script every 90 days.\n');
  await fsp.writeFile(path.join(docs, 'readme.md'), '# Readme\n\nGeneral notes.\n');
  await vault.cliOk(['kb', 'add', 'handbook', docs]);
  await waitFor('the handbook to be indexed', async () => {
    const r = await vault.rest('GET', '/api/v1/resources/knowledge_base/handbook');
    const st = r.json?.resource?.status?.plugin;
    return st?.health === 'ok' && st?.documents === 2;
  }, { timeout: 20000 });
  await vault.rest('POST', '/api/v1/resources', { kind: 'memory', name: 'memory', config: {} });
  client = await httpClient(vault);
});

after(async () => {
  await client?.close().catch(() => {});
  await vault?.cleanup();
});

test('<kb>__search finds the section, <kb>__read returns its lines', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ['handbook__search', 'handbook__read', 'handbook__list', 'memory__remember', 'memory__recall'])
    assert.ok(names.includes(n), names.join(', '));
  assert.ok(!names.includes('handbook__write'), 'a folder the user named is read-only');
  const search = tools.find((t) => t.name === 'handbook__search');
  assert.deepEqual(search.inputSchema.required, ['query']);

  const r = await client.callTool({ name: 'handbook__search', arguments: { query: 'How often should keys be rotated?' } });
  assert.ok(!r.isError, JSON.stringify(r));
  const top = r.structuredContent.results[0];
  assert.equal(top.path, 'ops/rotate.md');
  assert.equal(top.kb, 'handbook');
  assert.match(top.heading, /Rotating keys/);
  const [from, to] = top.lines;

  const read = await client.callTool({ name: 'handbook__read', arguments: { path: top.path, from_line: from, to_line: to } });
  assert.ok(!read.isError, JSON.stringify(read));
  assert.match(read.content[0].text, /\tRotate the signing key with the ocelot script every 90 days\./);

  const escape = await client.callTool({ name: 'handbook__read', arguments: { path: '../../etc/passwd' } });
  assert.equal(escape.isError, true);
});

test('memory__remember then memory__recall', async () => {
  const saved = await client.callTool({
    name: 'memory__remember',
    arguments: { fact: 'The staging cluster is called capybara.', scope: 'global', tags: ['infra'] },
  });
  assert.ok(!saved.isError, JSON.stringify(saved));
  const id = saved.structuredContent.id;
  assert.match(id, /^[0-9a-f]{8}$/);

  const found = await client.callTool({ name: 'memory__recall', arguments: { query: 'what is the staging cluster called' } });
  assert.ok(!found.isError, JSON.stringify(found));
  assert.match(found.content[0].text, /capybara/);
  assert.equal(found.structuredContent.results[0].id, id);
});
