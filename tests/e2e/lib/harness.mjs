// Shared pieces of the end-to-end tests: a real coffer-daemon on a temporary vault, the `coffer`
// CLI, the official SDK client through coffer-mcp-shim (stdio) or straight to /mcp (Streamable
// HTTP), real upstreams (server-everything, server-filesystem, coffer-test-upstream), and raw
// JSON-RPC lines for byte-for-byte comparisons.
//
// Paths of the build under test come from the environment (ctest sets them):
//   COFFER_BIN_DIR   <build>/bin with coffer, coffer-daemon, coffer-mcp-shim, coffer-test-upstream
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const binDir = process.env.COFFER_BIN_DIR || path.resolve(here, '../../../build/bin');
export const bins = {
  coffer: path.join(binDir, 'coffer'),
  daemon: path.join(binDir, 'coffer-daemon'),
  shim: path.join(binDir, 'coffer-mcp-shim'),
  upstream: path.join(binDir, 'coffer-test-upstream'),
};
for (const [name, file] of Object.entries(bins)) {
  if (!fs.existsSync(file)) throw new Error(`${name} not found at ${file} (set COFFER_BIN_DIR to the build's bin/)`);
}

// The real upstreams, run with this very node.
function packageFile(pkg, rel) {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), rel);
}
export const everythingJs = packageFile('@modelcontextprotocol/server-everything', 'dist/index.js');
export const filesystemJs = packageFile('@modelcontextprotocol/server-filesystem', 'dist/index.js');
export const nodeBin = process.execPath;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(what, fn, { timeout = 10000, interval = 25 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await sleep(interval);
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function pidAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------------------------------
// A daemon on a temporary vault

// One REST call to the daemon of `info` (daemon.json: port, token); resolves {status, text, json, headers}.
export async function restCall({ port, token }, method, target, body) {
  const res = await fetch(`http://127.0.0.1:${port}${target}`, {
    method,
    headers: { 'X-Coffer-Token': token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  return { status: res.status, text, json, headers: res.headers };
}

export class Vault {
  static async create(label = 'e2e') {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `coffer-${label}-`));
    const v = new Vault(dir);
    await fsp.mkdir(v.home, { recursive: true, mode: 0o700 });
    await fsp.mkdir(v.work, { recursive: true });
    return v;
  }
  constructor(dir) {
    this.dir = dir;
    this.home = path.join(dir, 'vault');
    this.work = path.join(dir, 'work');
    this.daemonProc = null;
  }
  env(extra = {}) {
    const env = { ...process.env, COFFER_HOME: this.home, COFFER_PORT: '0', ...extra };
    delete env.COFFER_NO_SPAWN;
    delete env.COFFER_DAEMON_BIN;
    return env;
  }
  info() {
    return JSON.parse(fs.readFileSync(path.join(this.home, 'daemon.json'), 'utf8'));
  }
  get port() { return this.info().port; }
  get token() { return this.info().token; }
  get pid() { return this.info().pid; }
  mcpUrl() { return new URL(`http://127.0.0.1:${this.port}/mcp`); }

  // Starts coffer-daemon (our child, with `extraEnv` added) and waits until it answers.
  async start(extraEnv = {}) {
    fs.rmSync(path.join(this.home, 'daemon.json'), { force: true });
    const log = fs.openSync(path.join(this.dir, 'daemon.out'), 'a');
    this.daemonProc = spawn(bins.daemon, [], { env: this.env(extraEnv), stdio: ['ignore', log, log] });
    fs.closeSync(log);
    const proc = this.daemonProc;
    await waitFor('coffer-daemon to be ready', async () => {
      if (proc.exitCode !== null) throw new Error(`coffer-daemon exited with ${proc.exitCode}: ${this.daemonLog()}`);
      if (!fs.existsSync(path.join(this.home, 'daemon.json'))) return false;
      const r = await this.rest('GET', '/api/v1/daemon/status');
      return r.status === 200;
    }, { timeout: 15000 });
    return this;
  }

  daemonLog() {
    try { return fs.readFileSync(path.join(this.dir, 'daemon.out'), 'utf8').slice(-4000); } catch { return ''; }
  }

  rest(method, target, body) { return restCall(this.info(), method, target, body); }

  // Runs `coffer --json …`; resolves {code, stdout, stderr, json}.
  cli(args, { json = true } = {}) {
    const argv = json ? ['--json', ...args] : args;
    return new Promise((resolve) => {
      execFile(bins.coffer, argv, { env: this.env(), timeout: 60000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        let parsed = null;
        try { parsed = stdout ? JSON.parse(stdout) : null; } catch { /* not JSON */ }
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, json: parsed });
      });
    });
  }

  async cliOk(args) {
    const r = await this.cli(args);
    if (r.code !== 0) throw new Error(`coffer ${args.join(' ')} failed (${r.code}): ${r.stderr} ${r.stdout}`);
    return r.json;
  }

  upstreamPidFiles() {
    try {
      return fs.readdirSync(path.join(this.home, 'upstream-pids')).filter((f) => !f.startsWith('.'));
    } catch {
      return [];
    }
  }

  // Ends whatever daemon serves this vault (ours, or one the shim respawned), then removes the dir.
  async cleanup() {
    const pids = new Set();
    if (this.daemonProc && this.daemonProc.exitCode === null) pids.add(this.daemonProc.pid);
    try { pids.add(this.info().pid); } catch { /* none */ }
    for (const pid of pids) {
      try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
    }
    for (const pid of pids) {
      try { await waitFor('daemon exit', () => !pidAlive(pid), { timeout: 10000 }); } catch {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
    }
    if (!process.env.COFFER_E2E_KEEP) await fsp.rm(this.dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------------
// Clients

export function newClient(name = 'coffer-e2e') {
  return new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {}, roots: { listChanged: true } } });
}

// The SDK client through coffer-mcp-shim over stdio.
export async function shimClient(vault, { agent = 'e2e', extraEnv = {}, name } = {}) {
  const client = newClient(name);
  const transport = new StdioClientTransport({
    command: bins.shim,
    args: agent ? ['--agent', agent] : [],
    env: vault.env(extraEnv),
    cwd: vault.work,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  await client.connect(transport);
  client.shimStderr = () => stderr;
  client.shimPid = () => transport.pid;
  return client;
}

// The SDK client straight to the daemon's /mcp (Streamable HTTP) with the token header.
export async function httpClient(vault, { name } = {}) {
  const client = newClient(name);
  const transport = new StreamableHTTPClientTransport(vault.mcpUrl(), {
    requestInit: { headers: { 'X-Coffer-Token': vault.token } },
  });
  await client.connect(transport);
  // Streamable HTTP has no "disconnect": ending the session is an explicit DELETE.
  const close = client.close.bind(client);
  client.close = async () => {
    await transport.terminateSession().catch(() => {});
    await close();
  };
  return client;
}

// The SDK client straight to an upstream over stdio (the "direct" side of comparisons).
export async function directStdioClient(command, args, { env } = {}) {
  const client = newClient('direct');
  await client.connect(new StdioClientTransport({ command, args, env: env ?? { ...process.env }, stderr: 'ignore' }));
  return client;
}

// ------------------------------------------------------------------------------------------
// Raw newline-delimited JSON-RPC over a child's stdio (for byte-for-byte comparisons and bad input)

export class RawStdio {
  constructor(command, args, { env, cwd } = {}) {
    this.proc = spawn(command, args, { env: env ?? process.env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.lines = [];
    this.waiters = [];
    this.stderr = '';
    this.proc.stderr.on('data', (d) => { this.stderr += d.toString(); });
    readline.createInterface({ input: this.proc.stdout }).on('line', (line) => {
      this.lines.push(line);
      for (const w of this.waiters.splice(0)) w();
    });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
  }
  send(obj) {
    this.proc.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
  }
  // The next line for which pred(parsed, raw) holds (others stay queued).
  async next(pred = () => true, timeout = 15000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const i = this.lines.findIndex((l) => {
        let v;
        try { v = JSON.parse(l); } catch { v = undefined; }
        return pred(v, l);
      });
      if (i >= 0) return this.lines.splice(i, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching line within ${timeout} ms; got: ${this.lines.join('\n')}\nstderr: ${this.stderr}`);
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }
  response(id, timeout) {
    return this.next((v) => v && v.id === id && ('result' in v || 'error' in v), timeout);
  }
  async request(id, method, params, timeout) {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.response(id, timeout);
  }
  async initialize(protocolVersion = '2025-11-25') {
    const line = await this.request(0, 'initialize', {
      protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return JSON.parse(line);
  }
  async close() {
    this.proc.stdin.end();
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
  }
}

// The raw JSON text of a top-level member of a JSON object text (no re-serialization).
export function rawMember(text, key) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const skipString = () => { // at '"'
    i++;
    while (i < text.length) {
      if (text[i] === '\\') { i += 2; continue; }
      if (text[i] === '"') { i++; return; }
      i++;
    }
    throw new Error('unterminated string');
  };
  const skipValue = () => {
    const start = i;
    if (text[i] === '"') { skipString(); return text.slice(start, i); }
    if (text[i] === '{' || text[i] === '[') {
      let depth = 0;
      while (i < text.length) {
        const c = text[i];
        if (c === '"') { skipString(); continue; }
        if (c === '{' || c === '[') depth++;
        else if (c === '}' || c === ']') { depth--; if (depth === 0) { i++; return text.slice(start, i); } }
        i++;
      }
      throw new Error('unterminated container');
    }
    while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++;
    return text.slice(start, i);
  };
  ws();
  if (text[i] !== '{') throw new Error('not an object');
  i++;
  for (;;) {
    ws();
    if (text[i] === '}') return undefined;
    const ks = i;
    skipString();
    const k = JSON.parse(text.slice(ks, i));
    ws();
    if (text[i] !== ':') throw new Error('expected :');
    i++;
    ws();
    const v = skipValue();
    if (k === key) return v;
    ws();
    if (text[i] === ',') { i++; continue; }
    if (text[i] === '}') return undefined;
    throw new Error('bad object');
  }
}

// A raw shim (coffer-mcp-shim on pipes) for a vault.
export function rawShim(vault, { agent = 'raw', extraEnv = {} } = {}) {
  return new RawStdio(bins.shim, agent ? ['--agent', agent] : [], { env: vault.env(extraEnv), cwd: vault.work });
}

// server-everything in Streamable HTTP mode on a free port; resolves {url, proc, stop()}.
export async function startEverythingHttp() {
  const port = await freePort();
  const proc = spawn(nodeBin, [everythingJs, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  await waitFor('server-everything (streamableHttp) to listen', async () => {
    if (proc.exitCode !== null) throw new Error(`server-everything exited: ${out}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'GET' });
      return r.status > 0;
    } catch { return false; }
  }, { timeout: 20000 });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    proc,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await new Promise((r) => { proc.once('exit', r); setTimeout(r, 3000); });
    },
  };
}

// Registers the usual upstreams on a vault through the CLI.
export async function registerStandardUpstreams(vault, { everythingHttpUrl, fsRoot } = {}) {
  await vault.cliOk(['mcp', 'add', 'a', '--stdio', bins.upstream]);
  await vault.cliOk(['mcp', 'add', 'b', '--', bins.upstream]);
  await vault.cliOk(['mcp', 'add', 'ev', '--stdio', `${nodeBin} ${everythingJs} stdio`]);
  if (everythingHttpUrl) await vault.cliOk(['mcp', 'add', 'evh', '--http', everythingHttpUrl]);
  if (fsRoot) await vault.cliOk(['mcp', 'add', 'fs', '--stdio', `'${nodeBin}' '${filesystemJs}' '${fsRoot}'`]);
}

export const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
