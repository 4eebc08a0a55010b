// The daemon dies under a connected shim: kill -9 while the SDK client waits for a tools/call →
// a JSON-RPC error within 1 s (never a hang); the next call works (the shim respawns the daemon
// and re-initializes its session transparently) and the interrupted call was not re-sent. Also:
// the shim starts a daemon itself when none runs (detect-or-spawn), and reports --agent; a session
// the daemon ended for idleness is reopened transparently with the next call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

import { Vault, bins, shimClient, waitFor, pidAlive } from '../lib/harness.mjs';

let vault;

before(async () => {
  vault = await Vault.create('failure');
  await vault.start();
  await vault.cliOk(['mcp', 'add', 'a', '--stdio', bins.upstream]);
});

after(async () => {
  await vault?.cleanup();
});

test('kill -9 of the daemon while the shim waits: error within 1 s, next call works', async () => {
  const client = await shimClient(vault, { agent: 'survivor' });
  try {
    assert.equal((await client.callTool({ name: 'a__echo', arguments: { text: 'before' } })).content[0].text, 'before');
    const statsBefore = JSON.parse((await client.callTool({ name: 'a__stats', arguments: {} })).content[0].text);
    assert.ok(statsBefore.initialized);

    const oldDaemon = vault.pid;
    const pending = client.callTool({ name: 'a__slow', arguments: { ms: 20000 } }, undefined, { timeout: 30000 });
    const outcome = pending.then((r) => ({ result: r }), (e) => ({ error: e, at: Date.now() }));
    await new Promise((r) => setTimeout(r, 500)); // the call is in the upstream now
    const killedAt = Date.now();
    process.kill(oldDaemon, 'SIGKILL');
    const o = await outcome;
    assert.ok(o.error, `the pending call fails: ${JSON.stringify(o.result)}`);
    const took = o.at - killedAt;
    assert.ok(took < 1000, `answered ${took} ms after kill -9 (limit 1000)`);
    console.log(`the pending call failed ${took} ms after kill -9: ${o.error.message}`);
    assert.match(String(o.error.message), /coffer-daemon|connection/i);

    // The next call: the shim finds no daemon, starts one, re-initializes, and the call runs.
    const r = await client.callTool({ name: 'a__echo', arguments: { text: 'after' } });
    assert.equal(r.content[0].text, 'after');
    const newDaemon = vault.pid;
    assert.notEqual(newDaemon, oldDaemon);
    assert.ok(pidAlive(newDaemon));
    // A fresh upstream behind a fresh session: the slow call never reached it.
    const stats = JSON.parse((await client.callTool({ name: 'a__stats', arguments: {} })).content[0].text);
    assert.ok(stats.initialized);
    assert.match(client.shimStderr(), /started coffer-daemon|re-established/);
  } finally {
    await client.close();
  }
});

test('the shim starts the daemon when none runs and reports the agent', async () => {
  // Stop whatever runs for this vault, then connect: detect-or-spawn.
  const pid = vault.pid;
  process.kill(pid, 'SIGTERM');
  await waitFor('the daemon to stop', () => !pidAlive(pid), { timeout: 10000 });
  await waitFor('daemon.json to go', () => !fs.existsSync(`${vault.home}/daemon.json`) || !pidAlive(vault.pid), { timeout: 10000 });

  const client = await shimClient(vault, { agent: 'claude' });
  try {
    const r = await client.callTool({ name: 'a__echo', arguments: { text: 'spawned' } });
    assert.equal(r.content[0].text, 'spawned');
    assert.ok(pidAlive(vault.pid));
    assert.equal(client.getServerVersion()?.name !== undefined, true);
  } finally {
    await client.close();
  }
});

test('a session ended by the idle timeout is reopened transparently by the next call', async () => {
  const idle = await Vault.create('idle');
  try {
    await idle.start({ COFFER_MCP_IDLE_TIMEOUT: '1' });
    await idle.cliOk(['mcp', 'add', 'a', '--stdio', bins.upstream]);
    const daemonPid = idle.pid;
    const client = await shimClient(idle, { agent: 'sleepy' });
    try {
      const first = Number((await client.callTool({ name: 'a__pid', arguments: {} })).content[0].text);
      assert.ok(pidAlive(first));
      // The daemon ends the idle session and reaps its upstream.
      await waitFor('the idle session\'s upstream to be reaped', async () => !pidAlive(first), { timeout: 10000 });
      const again = await client.callTool({ name: 'a__echo', arguments: { text: 'awake' } });
      assert.equal(again.content[0].text, 'awake');
      const second = Number((await client.callTool({ name: 'a__pid', arguments: {} })).content[0].text);
      assert.notEqual(second, first, 'a fresh session has a fresh upstream');
      assert.equal(idle.pid, daemonPid, 'the same daemon served both');
      assert.ok(pidAlive(daemonPid));
    } finally {
      await client.close();
    }
  } finally {
    await idle.cleanup();
  }
});
