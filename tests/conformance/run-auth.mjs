// The client side of the official conformance suite's auth/* scenarios, against Coffer's OAuth
// client (lib/oauth, driven by coffer-conformance-auth-client). Every auth scenario the suite
// lists runs at the newest revision it applies to; the scenarios of the 2025-11-25 suite run at
// 2025-11-25 too (the stateful lifecycle). Prints each result and the counts; exits 1 when a
// scenario fails that auth-expected-failures.json does not list, or a listed one passes.
//
//   COFFER_BIN_DIR=build/bin node_modules/.bin/node run-auth.mjs
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const suite = join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const client = join(process.env.COFFER_BIN_DIR ?? join(here, '../../build/bin'), 'coffer-conformance-auth-client');
const expected = JSON.parse(readFileSync(join(here, 'auth-expected-failures.json'), 'utf8')).expected_failures;

function run(args) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [suite, ...args], { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('close', (code) => resolve({ code, out }));
  });
}

const listed = (await run(['list'])).out;
const scenarios = [];
for (const line of listed.split('\n')) {
  const m = /^\s+- (auth\/\S+)\s+\[([^\]]*)\]/.exec(line);
  if (!m) continue;
  const versions = m[2].split(',').map((v) => v.trim());
  const dated = versions.filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v)).sort();
  const newest = dated.at(-1);
  scenarios.push({ name: m[1], version: newest });
  if (newest && newest !== '2025-11-25' && dated.includes('2025-11-25')) scenarios.push({ name: m[1], version: '2025-11-25' });
}
if (scenarios.length < 20) {
  console.error(`run-auth: the suite listed only ${scenarios.length} auth scenarios:\n${listed}`);
  process.exit(2);
}

const results = [];
const queue = [...scenarios];
async function worker() {
  for (let s; (s = queue.shift());) {
    const args = ['client', '--command', client, '--scenario', s.name, '--timeout', '30000'];
    if (s.version) args.push('--spec-version', s.version);
    const { out } = await run(args);
    const counts = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out);
    const passed = /OVERALL: PASSED/.test(out);
    const failures = out.split('\n').filter((l) => /FAILURE/.test(l)).map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').trim());
    results.push({ ...s, passed, checks: counts ? `${counts[1]}/${counts[2]}` : '?', failures });
  }
}
await Promise.all([worker(), worker(), worker()]);
results.sort((a, b) => (a.name + a.version).localeCompare(b.name + b.version));

let bad = 0;
for (const r of results) {
  const isExpected = r.name in expected;
  const verdict = r.passed ? (isExpected ? 'UNEXPECTED PASS' : 'pass') : isExpected ? 'expected failure' : 'FAIL';
  if (verdict === 'FAIL' || verdict === 'UNEXPECTED PASS') ++bad;
  console.log(`${verdict.padEnd(16)} ${r.name.padEnd(42)} ${String(r.version ?? '(extension)').padEnd(12)} checks ${r.checks}`);
  if (verdict === 'FAIL') for (const f of r.failures.slice(0, 5)) console.log(`    ${f}`);
  if (isExpected && !r.passed) console.log(`    (${expected[r.name]})`);
}
const runs = results.length, pass = results.filter((r) => r.passed).length;
const names = new Set(results.map((r) => r.name)), passNames = new Set(results.filter((r) => r.passed).map((r) => r.name));
const notExt = [...names].filter((n) => !(n in expected));
console.log(`\nauth scenarios: ${passNames.size} of ${names.size} pass (${notExt.filter((n) => passNames.has(n)).length} of ${notExt.length} outside the unimplemented extensions); runs: ${pass} of ${runs} pass`);
process.exit(bad ? 1 : 0);
