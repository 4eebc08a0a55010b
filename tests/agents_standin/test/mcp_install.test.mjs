// `coffer agent mcp install|uninstall` checked with the real CLIs: after install, `claude mcp get`
// and `codex mcp list --json` (run with the same temporary HOME) show Coffer's entry with the shim
// next to coffer; a file the CLI wrote itself keeps its other entries; uninstall takes the entry
// away and the CLIs no longer list it. `coffer agent detect --json` sees the binaries and the entry.
// Needs COFFER_BIN_DIR (the build's bin/, set by ctest).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CLAUDE, CODEX, PACKAGE_DIR, makeSandbox, runCli } from '../lib/agents.mjs';

const BIN = process.env.COFFER_BIN_DIR;
const COFFER = BIN && path.join(BIN, 'coffer');
const SHIM = BIN && path.join(BIN, 'coffer-mcp-shim');

function env(sandbox) {
    return {
        PATH: `${path.join(PACKAGE_DIR, 'node_modules', '.bin')}:${process.env.PATH}`,
        HOME: sandbox.home,
        LANG: 'C.UTF-8',
        TMPDIR: sandbox.root,
        COFFER_HOME: path.join(sandbox.root, 'vault'),
        COFFER_NO_SPAWN: '1', // the shim `claude mcp get` starts must not start a daemon
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
    };
}

async function run(cmd, args, sandbox) {
    const r = await runCli(cmd, args, { cwd: sandbox.work, env: env(sandbox), timeoutMs: 90000 }).done;
    return r;
}

test('coffer agent mcp install/uninstall, as the real CLIs see it', { timeout: 300000, skip: !BIN && 'COFFER_BIN_DIR is not set' }, async () => {
    assert.ok(fs.existsSync(COFFER), `${COFFER} is built`);
    const sandbox = makeSandbox('coffer-mcp-install-');
    try {
        // The CLIs write their own configs first: an unrelated server in each.
        let r = await run(CLAUDE, ['mcp', 'add', '--scope', 'user', 'other', '--', 'other-server', '--flag'], sandbox);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        r = await run(CODEX, ['mcp', 'add', 'other', '--', 'other-server', '--flag'], sandbox);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        const claudeJson = path.join(sandbox.home, '.claude.json');
        const codexToml = path.join(sandbox.home, '.codex', 'config.toml');
        const claudeBefore = fs.readFileSync(claudeJson, 'utf8');
        const codexBefore = fs.readFileSync(codexToml, 'utf8');

        // A dry run prints a diff and writes nothing.
        r = await run(COFFER, ['agent', 'mcp', 'install', 'claude_code', '--dry-run'], sandbox);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^\+\s+"coffer": \{/m);
        assert.equal(fs.readFileSync(claudeJson, 'utf8'), claudeBefore);
        // IM channels into the agent's sessions: each --channel becomes the shim's own (ADR 0041).
        r = await run(COFFER, ['--json', 'agent', 'mcp', 'install', 'claude_code', '--dry-run', '--channel', 'tg', '--channel', 'st'], sandbox);
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(JSON.parse(r.stdout).entry.args, ['--agent', 'claude_code', '--channel', 'tg', '--channel', 'st']);
        assert.equal(fs.readFileSync(claudeJson, 'utf8'), claudeBefore);

        for (const agent of ['claude_code', 'codex']) {
            r = await run(COFFER, ['--json', 'agent', 'mcp', 'install', agent], sandbox);
            assert.equal(r.code, 0, r.stderr);
            const out = JSON.parse(r.stdout);
            assert.equal(out.changed, true);
            assert.deepEqual(out.entry, { name: 'coffer', command: SHIM, args: ['--agent', agent] });
            // Idempotent.
            r = await run(COFFER, ['--json', 'agent', 'mcp', 'install', agent], sandbox);
            assert.equal(JSON.parse(r.stdout).changed, false);
        }
        assert.equal(fs.readFileSync(claudeJson + '.bak', 'utf8'), claudeBefore);
        assert.equal(fs.readFileSync(codexToml + '.bak', 'utf8'), codexBefore);

        // Claude Code sees the entry at user scope, next to its own.
        r = await run(CLAUDE, ['mcp', 'get', 'coffer'], sandbox);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        assert.match(r.stdout, /Scope: User config/);
        assert.match(r.stdout, new RegExp(`Command: ${SHIM.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        assert.match(r.stdout, /Args: --agent claude_code/);
        r = await run(CLAUDE, ['mcp', 'list'], sandbox);
        assert.match(r.stdout, /^coffer: .*coffer-mcp-shim --agent claude_code/m);
        assert.match(r.stdout, /^other: other-server --flag/m);

        // Codex too.
        r = await run(CODEX, ['mcp', 'list', '--json'], sandbox);
        assert.equal(r.code, 0, r.stderr);
        const servers = JSON.parse(r.stdout);
        const coffer = servers.find((s) => s.name === 'coffer');
        assert.deepEqual(coffer?.transport, { ...coffer.transport, type: 'stdio', command: SHIM, args: ['--agent', 'codex'] });
        assert.ok(servers.find((s) => s.name === 'other'));

        // detect sees both binaries and both entries.
        r = await run(COFFER, ['--json', 'agent', 'detect'], sandbox);
        assert.equal(r.code, 0, r.stderr);
        const agents = JSON.parse(r.stdout).agents;
        for (const a of agents) {
            assert.ok(a.binary.path, `${a.type} found on PATH`);
            assert.match(a.binary.version ?? '', a.type === 'codex' ? /codex-cli \d/ : /Claude Code/);
            assert.equal(a.mcp_config.installed, true);
            assert.equal(a.mcp_config.entry.command, SHIM);
        }

        // Uninstall: back to the bytes each CLI wrote, and the CLIs no longer list the entry.
        for (const agent of ['claude_code', 'codex']) {
            r = await run(COFFER, ['agent', 'mcp', 'uninstall', agent], sandbox);
            assert.equal(r.code, 0, r.stderr);
        }
        assert.equal(fs.readFileSync(codexToml, 'utf8'), codexBefore);
        // Claude Code may have rewritten its file while listing (its own bookkeeping); the
        // servers are what must match.
        assert.deepEqual(JSON.parse(fs.readFileSync(claudeJson, 'utf8')).mcpServers, JSON.parse(claudeBefore).mcpServers);
        r = await run(CLAUDE, ['mcp', 'list'], sandbox);
        assert.doesNotMatch(r.stdout, /^coffer:/m);
        r = await run(CODEX, ['mcp', 'list', '--json'], sandbox);
        assert.equal(JSON.parse(r.stdout).some((s) => s.name === 'coffer'), false);
    } finally {
        sandbox.cleanup();
    }
});
