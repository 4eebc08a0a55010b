// coffer__search_tools with the official SDK client through coffer-mcp-shim: listed with the
// upstream tools, its structuredContent valid against the outputSchema it declares (the SDK
// checks), upstream tools found by what they do, never itself, argument errors as tool errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';

import { Vault, shimClient, registerStandardUpstreams } from '../lib/harness.mjs';

let vault;
let client;

before(async () => {
  vault = await Vault.create('toolsearch');
  await vault.start();
  const fsRoot = path.join(vault.dir, 'files');
  await fsp.mkdir(fsRoot);
  await registerStandardUpstreams(vault, { fsRoot });
  client = await shimClient(vault, { agent: 'e2e-search' });
});

after(async () => {
  await client?.close().catch(() => {});
  await vault?.cleanup();
});

test('listed, declares its schemas, finds upstream tools and never itself', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  const search = tools.find((t) => t.name === 'coffer__search_tools');
  assert.ok(search, names.join(', '));
  assert.deepEqual(search.inputSchema.required, ['query']);
  assert.equal(search.outputSchema.type, 'object');

  const r = await client.callTool({ name: 'coffer__search_tools', arguments: { query: 'read the contents of a text file', top_k: 3 } });
  assert.ok(!r.isError, JSON.stringify(r));
  const found = r.structuredContent.tools.map((t) => t.name);
  assert.equal(found[0], 'fs__read_text_file', found.join(', '));
  assert.ok(found.length <= 3);
  assert.equal(r.structuredContent.total_searched, names.length - 1);
  assert.match(r.content[0].text, /1\. fs__read_text_file/);
  const schema = r.structuredContent.tools[0].inputSchema;
  assert.ok(schema.properties.path, JSON.stringify(schema));

  const self = await client.callTool({ name: 'coffer__search_tools', arguments: { query: 'search tools', top_k: 20 } });
  assert.ok(!self.structuredContent.tools.some((t) => t.name === 'coffer__search_tools'));

  // What it returns can be called as is.
  const echo = await client.callTool({ name: 'coffer__search_tools', arguments: { query: 'echoes the text back', top_k: 1 } });
  const target = echo.structuredContent.tools[0].name;
  assert.match(target, /^(a|b|ev)__echo$/);
  const called = await client.callTool({ name: target, arguments: { text: 'found and called', message: 'found and called' } });
  assert.match(called.content[0].text, /found and called/);
});

test('bad arguments come back as tool errors', async () => {
  const r = await client.callTool({ name: 'coffer__search_tools', arguments: { top_k: 3 } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /'query' is required/);
});
