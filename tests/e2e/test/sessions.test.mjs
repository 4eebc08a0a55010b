// Sessions own their upstreams: two concurrent clients get independent upstream processes
// (counted in upstream-pids/), reaped when each client leaves; an upstream killed with -9 is
// replaced on the next call; an upstream crashing mid-call fails that call only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { Vault, bins, shimClient, httpClient, waitFor, pidAlive, sleep } from '../lib/harness.mjs';

let vault;

before(async () => {
  vault = await Vault.create('sessions');
  await vault.start();
  await vault.cliOk(['mcp', 'add', 'a', '--stdio', bins.upstream]);
  await vault.cliOk(['mcp', 'add', 'b', '--stdio', bins.upstream]);
});

after(async () => {
  await vault?.cleanup();
});

const pidOf = async (client, tool) => Number((await client.callTool({ name: tool, arguments: {} })).content[0].text);

// What upstream-pids/ records: file names and contents, to find pids in.
function recorded() {
  const dir = path.join(vault.home, 'upstream-pids');
  return vault.upstreamPidFiles().map((f) => {
    let content = '';
    try { content = fs.readFileSync(path.join(dir, f), 'utf8'); } catch { /* raced away */ }
    return `${f} ${content}`;
  });
}
const mentions = (entries, pid) => entries.some((e) => new RegExp(`(^|\\D)${pid}(\\D|$)`).test(e));

test('two concurrent clients have independent upstream sets', async () => {
  assert.equal(vault.upstreamPidFiles().length, 0, 'no upstream before any client');
  const one = await shimClient(vault, { agent: 'one' });
  const two = await httpClient(vault);
  try {
    // Lazily: only what each session uses is started.
    const [oneA, twoA, twoB] = await Promise.all([pidOf(one, 'a__pid'), pidOf(two, 'a__pid'), pidOf(two, 'b__pid')]);
    assert.equal(new Set([oneA, twoA, twoB]).size, 3, 'each session has its own a');
    for (const pid of [oneA, twoA, twoB]) assert.ok(pidAlive(pid));
    await waitFor('three upstream-pids entries', () => vault.upstreamPidFiles().length === 3, { timeout: 5000 });
    const entries = recorded();
    for (const pid of [oneA, twoA, twoB]) assert.ok(mentions(entries, pid), `${pid} recorded in ${entries.join(' | ')}`);

    // Concurrent calls on both sessions do not cross.
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      (i % 2 ? one : two).callTool({ name: 'a__echo', arguments: { text: `m${i}` } })));
    results.forEach((r, i) => assert.equal(r.content[0].text, `m${i}`));

    // The first client leaves: its upstream goes, the other session's stay.
    await one.close();
    await waitFor('the first session\'s upstream to be reaped', () => !pidAlive(oneA), { timeout: 10000 });
    await waitFor('two upstream-pids entries', () => vault.upstreamPidFiles().length === 2, { timeout: 10000 });
    assert.ok(pidAlive(twoA) && pidAlive(twoB));
    assert.equal((await two.callTool({ name: 'a__echo', arguments: { text: 'still' } })).content[0].text, 'still');
  } finally {
    await one.close().catch(() => {});
    await two.close().catch(() => {});
  }
  await waitFor('every upstream reaped after both clients left', () => vault.upstreamPidFiles().length === 0, { timeout: 10000 });
});

test('kill -9 of an upstream, then a successful call', async () => {
  const client = await shimClient(vault, { agent: 'killer' });
  try {
    const first = await pidOf(client, 'a__pid');
    process.kill(first, 'SIGKILL');
    await waitFor('the upstream to die', () => !pidAlive(first), { timeout: 5000 });
    await sleep(100);
    const r = await client.callTool({ name: 'a__echo', arguments: { text: 'after kill' } });
    assert.equal(r.content[0].text, 'after kill');
    const second = await pidOf(client, 'a__pid');
    assert.notEqual(second, first, 'a new upstream process');
    await waitFor('the dead pid to leave upstream-pids/', () => !mentions(recorded(), first), { timeout: 5000 });
  } finally {
    await client.close();
  }
});

test('an upstream crashing mid-call fails that call; the next call works', async () => {
  const client = await shimClient(vault, { agent: 'crash' });
  try {
    const before = await pidOf(client, 'b__pid');
    const crashed = await client.callTool({ name: 'b__crash', arguments: {} }).then(
      (r) => ({ result: r }),
      (e) => ({ error: e }),
    );
    assert.ok(crashed.error || crashed.result?.isError, `the crashed call fails: ${JSON.stringify(crashed.result)}`);
    const r = await client.callTool({ name: 'b__echo', arguments: { text: 'next' } });
    assert.equal(r.content[0].text, 'next');
    assert.notEqual(await pidOf(client, 'b__pid'), before);
  } finally {
    await client.close();
  }
});

test('--agent reaches the session: a server scoped to one agent is invisible to others', async () => {
  await vault.cliOk(['mcp', 'add', 'mine', '--stdio', bins.upstream, '--scope', '[{"machine":"*","agents":["claude"]}]']);
  const claude = await shimClient(vault, { agent: 'claude' });
  const codex = await shimClient(vault, { agent: 'codex' });
  const anonymous = await shimClient(vault, { agent: null });
  try {
    const names = async (c) => (await c.listTools()).tools.map((t) => t.name);
    assert.ok((await names(claude)).includes('mine__echo'));
    assert.ok(!(await names(codex)).includes('mine__echo'));
    assert.ok(!(await names(anonymous)).includes('mine__echo'), 'no identity matches only "*" entries');
    assert.ok((await names(codex)).includes('a__echo'), 'unscoped servers are everyone\'s');
    const r = await claude.callTool({ name: 'mine__echo', arguments: { text: 'for claude' } });
    assert.equal(r.content[0].text, 'for claude');
    const refused = await codex.callTool({ name: 'mine__echo', arguments: { text: 'x' } }).then(
      (res) => ({ res }), (error) => ({ error }));
    assert.ok(refused.error || refused.res?.isError, 'refused as if it did not exist');
  } finally {
    await claude.close();
    await codex.close();
    await anonymous.close();
    await vault.cliOk(['mcp', 'delete', 'mine']);
  }
});
