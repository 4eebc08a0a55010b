// Runs the real Claude Code and Codex CLIs (pinned in ../package-lock.json) against the stand-in
// model API, each in a sandbox of its own: a temporary HOME (and CODEX_HOME), a working directory,
// and an environment built from scratch so nothing of the machine's own agent setup leaks in.
// Also records what a CLI printed as a fixture for the driver parsers (tests/fixtures/agents/).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PACKAGE_DIR = path.resolve(here, '..');
export const REPO_ROOT = path.resolve(PACKAGE_DIR, '..', '..');
export const FIXTURES_DIR = path.join(REPO_ROOT, 'tests', 'fixtures', 'agents');
const bin = (name) => path.join(PACKAGE_DIR, 'node_modules', '.bin', name);
export const CLAUDE = bin('claude');
export const CODEX = bin('codex');
export const EVERYTHING = path.join(PACKAGE_DIR, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

// A fresh sandbox: { root, home, codexHome, work } under one temporary folder, removed by cleanup().
export function makeSandbox(prefix = 'coffer-agents-') {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    const home = path.join(root, 'home');
    const codexHome = path.join(home, '.codex');
    const work = path.join(root, 'work');
    for (const d of [home, codexHome, work]) fs.mkdirSync(d, { recursive: true });
    return { root, home, codexHome, work, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

// The environment a CLI runs with: PATH and locale from ours, everything else chosen here.
function baseEnv(sandbox) {
    return {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        HOME: sandbox.home,
        TMPDIR: sandbox.root,
        NO_COLOR: '1',
    };
}

// Claude Code offline: the stand-in is the API, an API key from the environment, no traffic
// other than model requests (telemetry, error reports, updates, feature flags), no retries so a
// failure shows at once.
export function claudeEnv(sandbox, standinUrl, extra = {}) {
    return {
        ...baseEnv(sandbox),
        ANTHROPIC_BASE_URL: standinUrl,
        ANTHROPIC_API_KEY: 'sk-ant-standin-key',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
        // MCP tools are listed in the request's `tools` (not deferred behind ToolSearch), so a
        // test can see that Coffer's tools were offered to the model.
        ENABLE_TOOL_SEARCH: 'false',
        ...extra,
    };
}

// Codex offline: a model provider pointing at the stand-in in $CODEX_HOME/config.toml, with its
// API key in STANDIN_API_KEY; no retries; no update check, analytics or feedback uploads.
export function writeCodexConfig(sandbox, standinUrl, { mcpServers = {} } = {}) {
    const q = (s) => JSON.stringify(s); // a TOML basic string is a JSON string for these values
    let toml = `# Written by tests/agents_standin/lib/agents.mjs: Codex against the local stand-in.
model = "standin-model"
model_provider = "standin"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.standin]
name = "Coffer stand-in"
base_url = ${q(standinUrl + '/v1')}
wire_api = "responses"
env_key = "STANDIN_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`;
    for (const [name, s] of Object.entries(mcpServers)) {
        toml += `\n[mcp_servers.${name}]\ncommand = ${q(s.command)}\nargs = [${s.args.map(q).join(', ')}]\n`;
    }
    fs.writeFileSync(path.join(sandbox.codexHome, 'config.toml'), toml);
}

export function codexEnv(sandbox, extra = {}) {
    return { ...baseEnv(sandbox), CODEX_HOME: sandbox.codexHome, STANDIN_API_KEY: 'sk-standin-key', ...extra };
}

// The stand-in MCP server both CLIs are given: the official server-everything over stdio.
export function everythingServer() {
    return { command: process.execPath, args: [EVERYTHING, 'stdio'] };
}

// Starts a CLI; resolves { code, signal, stdout, stderr, lines (parsed JSON lines), raw } on exit.
// onLine(obj) sees each JSON line as it arrives; the returned `child` can be signalled.
export function runCli(command, args, { cwd, env, timeoutMs = 120000, onLine } = {}) {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pending = '';
    const lines = [];
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d) => {
        stdout += d;
        pending += d;
        let nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, nl);
            pending = pending.slice(nl + 1);
            if (!line.trim()) continue;
            try {
                const obj = JSON.parse(line);
                lines.push(obj);
                onLine?.(obj);
            } catch { /* a non-JSON line stays in stdout for the assertion message */ }
        }
    });
    child.stderr.on('data', (d) => { stderr += d; });
    const done = new Promise((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            resolve({ code, signal, stdout, stderr, lines });
        });
    });
    return { child, done };
}

// Waits (bounded) until pred() is true.
export async function until(pred, { timeoutMs = 60000, stepMs = 50, what = 'condition' } = {}) {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
        if (await pred()) return;
        await new Promise((r) => setTimeout(r, stepMs));
    }
    throw new Error(`timed out waiting for ${what}`);
}

// What a fixture holds: the CLI's stdout lines, with the sandbox's paths and the machine's paths
// replaced by placeholders (<TMP>, <REPO>, <NODE>) so fixtures are the same on every machine.
export function sanitize(text, sandbox) {
    const swaps = [
        [sandbox.root, '<TMP>'],
        [REPO_ROOT, '<REPO>'],
        [process.execPath, '<NODE>'],
        [os.tmpdir() + '/', '<SYSTMP>/'],
    ];
    // Claude Code names a project's folder after its path with every other character made '-'.
    swaps.push([sandbox.root.replace(/[^a-zA-Z0-9]/g, '-'), '-TMP-']);
    let out = text;
    for (const [from, to] of swaps) out = out.split(from).join(to);
    return out.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<PORT>');
}

// Writes tests/fixtures/agents/<agent>/<name>.jsonl when COFFER_RECORD_AGENT_FIXTURES=1 (the
// fixtures are committed; a normal test run only reads them).
export function recordFixture(agent, name, runs, sandbox) {
    if (process.env.COFFER_RECORD_AGENT_FIXTURES !== '1') return false;
    const dir = path.join(FIXTURES_DIR, agent);
    fs.mkdirSync(dir, { recursive: true });
    const text = [].concat(runs).map((r) => r.stdout.endsWith('\n') || !r.stdout ? r.stdout : r.stdout + '\n').join('');
    fs.writeFileSync(path.join(dir, `${name}.jsonl`), sanitize(text, sandbox));
    return true;
}

export function types(lines) {
    return lines.map((l) => (l.subtype ? `${l.type}/${l.subtype}` : l.type));
}

// The committed fixtures of one agent parse as JSON lines and hold no machine path.
export function checkFixtures(agent, names) {
    for (const name of names) {
        const text = fs.readFileSync(path.join(FIXTURES_DIR, agent, `${name}.jsonl`), 'utf8');
        assert.ok(text.length > 0, `${agent}/${name}.jsonl is empty`);
        for (const line of text.split('\n').filter(Boolean)) JSON.parse(line);
        assert.doesNotMatch(text, /(?<![A-Z]>)\/(tmp|work|root|home)\//, `${agent}/${name}.jsonl holds a machine path`);
    }
}
