// The client's notifications/roots/list_changed through Coffer, with the official SDK client
// (through coffer-mcp-shim and straight to /mcp): server-everything re-reads the roots when told
// (its roots/list comes back through the gateway), and coffer-test-upstream records that it heard it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { Vault, bins, nodeBin, everythingJs, shimClient, httpClient, waitFor } from '../lib/harness.mjs';

let vault;
let viaShim;
let viaHttp;

const text = (r) => r.content?.[0]?.text ?? '';

before(async () => {
  vault = await Vault.create('roots');
  await vault.start();
  await vault.cliOk(['mcp', 'add', 'up', '--stdio', bins.upstream]);
  await vault.cliOk(['mcp', 'add', 'ev', '--stdio', `${nodeBin} ${everythingJs} stdio`]);
  viaShim = await shimClient(vault, { agent: 'e2e-roots' });
  viaHttp = await httpClient(vault);
});

after(async () => {
  await viaShim?.close().catch(() => {});
  await viaHttp?.close().catch(() => {});
  await vault?.cleanup();
});

for (const [how, client] of [['shim', () => viaShim], ['http', () => viaHttp]]) {
  test(`roots/list_changed reaches the upstreams a session started (${how})`, async () => {
    const c = client();
    let roots = [{ uri: `file:///first-${how}`, name: 'first' }];
    c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));

    const stats = async () => JSON.parse(text(await c.callTool({ name: 'up__stats', arguments: {} })));
    const heard = (s) => s.notifications.filter((m) => m === 'notifications/roots/list_changed').length;
    assert.equal(heard(await stats()), 0);
    const first = text(await c.callTool({ name: 'ev__get-roots-list', arguments: {} }));
    assert.match(first, new RegExp(`file:///first-${how}`));

    roots = [{ uri: `file:///second-${how}`, name: 'second' }];
    await c.sendRootsListChanged();
    // server-everything asks roots/list again on the notification; the next listing shows them.
    await waitFor('server-everything to re-read the roots', async () =>
      text(await c.callTool({ name: 'ev__get-roots-list', arguments: {} })).includes(`file:///second-${how}`));
    const s = await waitFor('coffer-test-upstream to hear it', async () => {
      const v = await stats();
      return heard(v) === 1 && v.roots ? v : null;
    });
    assert.deepEqual(s.roots, { roots });
  });
}
