// The real Codex CLI (`codex exec --json --skip-git-repo-check`) against the stand-in OpenAI
// Responses API: streamed text, an MCP tool round trip to server-everything, `exec resume`,
// SIGINT during a turn, and a 500. Records the transcripts as fixtures when
// COFFER_RECORD_AGENT_FIXTURES=1 (README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startStandin } from '../standin.mjs';
import { CODEX, checkFixtures, codexEnv, everythingServer, makeSandbox, recordFixture, runCli, until, writeCodexConfig } from '../lib/agents.mjs';

const BASE_ARGS = ['exec', '--json', '--skip-git-repo-check'];
// Codex asks before running an MCP tool; with `exec` nobody can answer, so the call fails
// ("approval policy is never") unless the server's tools are approved in its config.
const APPROVE_EVERYTHING = ['-c', 'mcp_servers.everything.default_tools_approval_mode="approve"'];

async function withRun(script, fn, { mcp = false } = {}) {
    const sandbox = makeSandbox('coffer-codex-');
    const standin = await startStandin({ script, logFile: path.join(sandbox.root, 'requests.jsonl') });
    try {
        writeCodexConfig(sandbox, standin.url, { mcpServers: mcp ? { everything: everythingServer() } : {} });
        return await fn({ sandbox, standin, env: codexEnv(sandbox) });
    } finally {
        await standin.close();
        sandbox.cleanup();
    }
}

const byType = (lines, type) => lines.filter((l) => l.type === type);
const items = (lines, itemType) => lines.filter((l) => l.item?.type === itemType);
const describe = (r) => `exit ${r.code}\nstdout:\n${r.stdout.slice(-4000)}\nstderr:\n${r.stderr.slice(-2000)}`;

test('codex: text from streamed output_text deltas arrives as one agent_message', { timeout: 180000 }, async () => {
    await withRun([{ text: ['Hel', 'lo ', 'from ', 'the stand-in'], delay_ms: 40 }], async ({ sandbox, standin, env }) => {
        const r = await runCli(CODEX, [...BASE_ARGS, 'say hello'], { cwd: sandbox.work, env }).done;
        assert.equal(r.code, 0, describe(r));
        assert.ok(byType(r.lines, 'thread.started')[0]?.thread_id);
        assert.equal(byType(r.lines, 'turn.started').length, 1);
        const messages = items(r.lines, 'agent_message').filter((l) => l.type === 'item.completed');
        assert.deepEqual(messages.map((m) => m.item.text), ['Hello from the stand-in']);
        const done = byType(r.lines, 'turn.completed');
        assert.equal(done.length, 1);
        assert.equal(typeof done[0].usage.input_tokens, 'number');
        assert.equal(done[0].usage.output_tokens > 0, true);
        const turns = standin.turns('openai');
        assert.equal(turns.length, 1);
        assert.equal(turns[0].stream, true);
        assert.match(turns[0].user_text, /say hello/);
        recordFixture('codex', 'text', r, sandbox);
    });
});

test('codex: an MCP tool call round trip to server-everything through [mcp_servers]', { timeout: 180000 }, async () => {
    const script = [
        { tool: { name: 'mcp__everything/echo', input: { message: 'ping from the stand-in' } } },
        { text: ['The echo ', 'came back.'], delay_ms: 20 },
    ];
    await withRun(script, async ({ sandbox, standin, env }) => {
        const r = await runCli(CODEX, [...BASE_ARGS, ...APPROVE_EVERYTHING, 'echo something'], { cwd: sandbox.work, env }).done;
        assert.equal(r.code, 0, describe(r));
        const started = items(r.lines, 'mcp_tool_call').find((l) => l.type === 'item.started');
        const completed = items(r.lines, 'mcp_tool_call').find((l) => l.type === 'item.completed');
        assert.equal(started?.item.server, 'everything');
        assert.equal(started.item.tool, 'echo');
        assert.deepEqual(started.item.arguments, { message: 'ping from the stand-in' });
        assert.equal(completed?.item.id, started.item.id);
        assert.equal(completed.item.status, 'completed', JSON.stringify(completed.item));
        assert.match(JSON.stringify(completed.item.result), /Echo: ping from the stand-in/);
        assert.equal(items(r.lines, 'agent_message').at(-1).item.text, 'The echo came back.');
        assert.equal(byType(r.lines, 'turn.completed').length, 1);

        // What the CLI sent: the server's tools in a namespace, the output in the next request.
        const turns = standin.turns('openai');
        assert.equal(turns.length, 2);
        assert.ok(turns[0].tools.includes('mcp__everything/echo'), turns[0].tools.join(','));
        assert.equal(turns[1].tool_results.length, 1);
        assert.equal(turns[1].tool_results[0].id, turns[0].tool_use_id);
        assert.match(turns[1].tool_results[0].content, /Echo: ping from the stand-in/);
        recordFixture('codex', 'mcp_tool', r, sandbox);
    }, { mcp: true });
});

test('codex: without approval an MCP tool call fails, and the turn still completes', { timeout: 180000 }, async () => {
    const script = [
        { tool: { name: 'mcp__everything/echo', input: { message: 'x' } } },
        { text: ['It was refused.'] },
    ];
    await withRun(script, async ({ sandbox, standin, env }) => {
        const r = await runCli(CODEX, [...BASE_ARGS, 'echo something'], { cwd: sandbox.work, env }).done;
        assert.equal(r.code, 0, describe(r));
        const completed = items(r.lines, 'mcp_tool_call').find((l) => l.type === 'item.completed');
        assert.equal(completed?.item.status, 'failed');
        assert.match(completed.item.error?.message ?? '', /approval/);
        assert.match(standin.turns('openai')[1].tool_results[0].content, /approval/);
        recordFixture('codex', 'mcp_tool_unapproved', r, sandbox);
    }, { mcp: true });
});

test('codex: exec resume <thread_id> continues the thread with its history', { timeout: 180000 }, async () => {
    await withRun([{ text: ['The first answer.'] }, { text: ['The second ', 'answer.'] }], async ({ sandbox, standin, env }) => {
        const first = await runCli(CODEX, [...BASE_ARGS, 'first question'], { cwd: sandbox.work, env }).done;
        assert.equal(first.code, 0, describe(first));
        const threadId = byType(first.lines, 'thread.started')[0].thread_id;

        const second = await runCli(CODEX, [...BASE_ARGS, 'resume', threadId, 'second question'], { cwd: sandbox.work, env }).done;
        assert.equal(second.code, 0, describe(second));
        assert.equal(byType(second.lines, 'thread.started')[0]?.thread_id, threadId, 'resume keeps the thread id');
        assert.equal(items(second.lines, 'agent_message').at(-1).item.text, 'The second answer.');
        assert.equal(byType(second.lines, 'turn.completed').length, 1);

        const turns = standin.turns('openai');
        assert.equal(turns.length, 2);
        const history = JSON.stringify(turns[1].body.input);
        assert.match(history, /first question/);
        assert.match(history, /The first answer\./);
        assert.match(turns[1].user_text, /second question/);
        recordFixture('codex', 'resume', second, sandbox);
    });
});

test('codex: SIGINT during a turn ends the process with no terminal event', { timeout: 180000 }, async () => {
    await withRun([{ hang: true }], async ({ sandbox, standin, env }) => {
        const run = runCli(CODEX, [...BASE_ARGS, 'take your time'], { cwd: sandbox.work, env });
        await until(() => standin.turns('openai').length === 1 && run.child.exitCode === null, { what: 'the hanging request' });
        await new Promise((r) => setTimeout(r, 300));
        run.child.kill('SIGINT');
        const r = await run.done;
        assert.notEqual(r.code, 0, describe(r));
        assert.equal(byType(r.lines, 'turn.started').length, 1);
        assert.equal(byType(r.lines, 'turn.completed').length + byType(r.lines, 'turn.failed').length, 0,
            'an interrupted exec prints no terminal event: the driver must treat the exit as the end');
        await until(() => standin.requests.some((q) => q.kind === 'disconnected'), { what: 'the stand-in to see the disconnect' });
        recordFixture('codex', 'interrupt', r, sandbox);
    });
});

test('codex: a 500 from the API fails the turn', { timeout: 180000 }, async () => {
    await withRun([{ status: 500, message: 'stand-in failure' }], async ({ sandbox, env }) => {
        const r = await runCli(CODEX, [...BASE_ARGS, 'fail please'], { cwd: sandbox.work, env }).done;
        assert.notEqual(r.code, 0, describe(r));
        const failed = byType(r.lines, 'turn.failed');
        assert.equal(failed.length, 1, describe(r));
        assert.ok(failed[0].error?.message);
        assert.equal(byType(r.lines, 'turn.completed').length, 0);
        recordFixture('codex', 'api_error', r, sandbox);
    });
});

test('codex: the recorded fixtures parse and hold no machine paths', () => {
    checkFixtures('codex', ['text', 'mcp_tool', 'mcp_tool_unapproved', 'resume', 'interrupt', 'api_error']);
});
