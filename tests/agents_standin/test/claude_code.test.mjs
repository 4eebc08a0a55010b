// The real Claude Code CLI (`claude -p --output-format stream-json --verbose`) against the
// stand-in Anthropic Messages API: streamed text, an MCP tool round trip to server-everything,
// resume of a session, SIGINT during a turn, and a 500. Records the transcripts as fixtures when
// COFFER_RECORD_AGENT_FIXTURES=1 (README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startStandin } from '../standin.mjs';
import { CLAUDE, checkFixtures, claudeEnv, everythingServer, makeSandbox, recordFixture, runCli, until } from '../lib/agents.mjs';

const BASE_ARGS = ['-p', '--output-format', 'stream-json', '--verbose'];

async function withRun(script, fn) {
    const sandbox = makeSandbox('coffer-claude-');
    const standin = await startStandin({ script, logFile: path.join(sandbox.root, 'requests.jsonl') });
    try {
        return await fn({ sandbox, standin, env: claudeEnv(sandbox, standin.url) });
    } finally {
        await standin.close();
        sandbox.cleanup();
    }
}

const byType = (lines, type, subtype) => lines.filter((l) => l.type === type && (!subtype || l.subtype === subtype));
const describe = (r) => `exit ${r.code}\nstdout:\n${r.stdout.slice(-4000)}\nstderr:\n${r.stderr.slice(-2000)}`;

test('claude: streamed text arrives as text_delta events, then one result', { timeout: 180000 }, async () => {
    await withRun([{ text: ['Hel', 'lo ', 'from ', 'the stand-in'], delay_ms: 40 }], async ({ sandbox, standin, env }) => {
        const r = await runCli(CLAUDE, [...BASE_ARGS, '--include-partial-messages', '--', 'say hello'], { cwd: sandbox.work, env }).done;
        assert.equal(r.code, 0, describe(r));
        const init = byType(r.lines, 'system', 'init')[0];
        assert.ok(init?.session_id, 'a system/init line with a session_id');
        const deltas = r.lines.filter((l) => l.type === 'stream_event' && l.event?.type === 'content_block_delta')
            .map((l) => l.event.delta.text);
        assert.deepEqual(deltas, ['Hel', 'lo ', 'from ', 'the stand-in']);
        const results = byType(r.lines, 'result');
        assert.equal(results.length, 1);
        assert.equal(results[0].subtype, 'success');
        assert.equal(results[0].result, 'Hello from the stand-in');
        assert.equal(results[0].session_id, init.session_id);
        const turns = standin.turns('anthropic');
        assert.equal(turns.length, 1);
        assert.equal(turns[0].stream, true);
        assert.match(turns[0].user_text, /say hello/);
        recordFixture('claude_code', 'text_partial', r, sandbox);

        // The same turn without --include-partial-messages: no stream_event lines, the text
        // arrives whole in an assistant message.
    });
    await withRun([{ text: ['Hel', 'lo'] }], async ({ sandbox, env }) => {
        const r = await runCli(CLAUDE, [...BASE_ARGS, '--', 'say hello'], { cwd: sandbox.work, env }).done;
        assert.equal(r.code, 0, describe(r));
        assert.equal(byType(r.lines, 'stream_event').length, 0);
        const texts = byType(r.lines, 'assistant').flatMap((l) => l.message.content).filter((b) => b.type === 'text').map((b) => b.text);
        assert.deepEqual(texts, ['Hello']);
        assert.equal(byType(r.lines, 'result')[0].result, 'Hello');
        recordFixture('claude_code', 'text', r, sandbox);
    });
});

test('claude: an MCP tool call round trip to server-everything through --mcp-config', { timeout: 180000 }, async () => {
    const script = [
        { text: ['Calling echo.'], tool: { name: 'mcp__everything__echo', input: { message: 'ping from the stand-in' } } },
        { text: ['The echo ', 'came back.'], delay_ms: 20 },
    ];
    await withRun(script, async ({ sandbox, standin, env }) => {
        const mcpConfig = path.join(sandbox.root, 'mcp.json');
        fs.writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { everything: { type: 'stdio', ...everythingServer() } } }));
        const r = await runCli(CLAUDE, [...BASE_ARGS, '--include-partial-messages', '--mcp-config', mcpConfig, '--strict-mcp-config',
            '--allowedTools', 'mcp__everything__echo', '--', 'echo something'], { cwd: sandbox.work, env }).done;
        assert.equal(r.code, 0, describe(r));
        const init = byType(r.lines, 'system', 'init')[0];
        assert.deepEqual(init.mcp_servers.find((s) => s.name === 'everything')?.status, 'connected');
        assert.ok(init.tools.includes('mcp__everything__echo'));

        const toolUse = byType(r.lines, 'assistant').flatMap((l) => l.message.content).find((b) => b.type === 'tool_use');
        assert.equal(toolUse?.name, 'mcp__everything__echo');
        assert.deepEqual(toolUse.input, { message: 'ping from the stand-in' });
        const toolResult = byType(r.lines, 'user').flatMap((l) => l.message.content).find((b) => b.type === 'tool_result');
        assert.equal(toolResult?.tool_use_id, toolUse.id);
        assert.equal(toolResult.is_error ?? false, false);
        assert.match(JSON.stringify(toolResult.content), /Echo: ping from the stand-in/);
        assert.equal(byType(r.lines, 'result')[0].result, 'The echo came back.');

        // What the CLI sent: the MCP tool offered in the first request, its result in the second.
        const turns = standin.turns('anthropic');
        assert.equal(turns.length, 2);
        assert.ok(turns[0].tools.includes('mcp__everything__echo'), turns[0].tools.join(','));
        assert.deepEqual(turns[1].tool_results, [{ id: toolUse.id, content: 'Echo: ping from the stand-in', is_error: false }]);
        recordFixture('claude_code', 'mcp_tool', r, sandbox);
    });
});

test('claude: --resume continues the session with its history', { timeout: 180000 }, async () => {
    await withRun([{ text: ['The first answer.'] }, { text: ['The second ', 'answer.'] }], async ({ sandbox, standin, env }) => {
        const first = await runCli(CLAUDE, [...BASE_ARGS, '--', 'first question'], { cwd: sandbox.work, env }).done;
        assert.equal(first.code, 0, describe(first));
        const sessionId = byType(first.lines, 'result')[0].session_id;
        assert.ok(sessionId);

        const second = await runCli(CLAUDE, [...BASE_ARGS, '--resume', sessionId, '--', 'second question'], { cwd: sandbox.work, env }).done;
        assert.equal(second.code, 0, describe(second));
        const result = byType(second.lines, 'result')[0];
        assert.equal(result.subtype, 'success');
        assert.equal(result.result, 'The second answer.');
        assert.ok(result.session_id, 'the resumed turn reports a session id (the next resume key)');

        // The second request carries the first exchange.
        const turns = standin.turns('anthropic');
        assert.equal(turns.length, 2);
        const history = JSON.stringify(turns[1].body.messages);
        assert.match(history, /first question/);
        assert.match(history, /The first answer\./);
        assert.match(turns[1].user_text, /second question/);
        recordFixture('claude_code', 'resume', second, sandbox);
    });
});

test('claude: SIGINT during a turn ends it as interrupted (result error_during_execution, or no result at all)', { timeout: 180000 }, async () => {
    await withRun([{ hang: true }], async ({ sandbox, standin, env }) => {
        const run = runCli(CLAUDE, [...BASE_ARGS, '--include-partial-messages', '--', 'take your time'], { cwd: sandbox.work, env });
        await until(() => standin.turns('anthropic').length === 1 && run.child.exitCode === null, { what: 'the hanging request' });
        await new Promise((r) => setTimeout(r, 300));
        run.child.kill('SIGINT');
        const r = await run.done;
        assert.equal(r.code, 0, describe(r));
        const interrupted = byType(r.lines, 'user').flatMap((l) => l.message.content).some((b) => b.type === 'text' && /interrupted/i.test(b.text));
        assert.ok(interrupted, 'a user line "[Request interrupted by user]"');
        // 2.1.332 usually ends with a result error_during_execution, but sometimes exits 0
        // without any result line (seen in 2 of 6 runs on a loaded machine): a driver must take
        // "exit after our interrupt, no result" as interrupted too.
        const results = byType(r.lines, 'result');
        assert.ok(results.length <= 1, 'at most one result');
        if (results.length === 1) {
            assert.equal(results[0].subtype, 'error_during_execution');
            assert.equal(results[0].is_error, true);
            assert.ok(!results[0].result, 'no final text after an interrupt');
        }
        await until(() => standin.requests.some((q) => q.kind === 'disconnected'), { what: 'the stand-in to see the disconnect' });
        if (results.length === 1) recordFixture('claude_code', 'interrupt', r, sandbox);
        else recordFixture('claude_code', 'interrupt_no_result', r, sandbox);
    });
});

test('claude: a 500 from the API ends the turn with an error result', { timeout: 180000 }, async () => {
    await withRun([{ status: 500, message: 'stand-in failure' }], async ({ sandbox, env }) => {
        const r = await runCli(CLAUDE, [...BASE_ARGS, '--', 'fail please'], { cwd: sandbox.work, env }).done;
        const results = byType(r.lines, 'result');
        assert.equal(results.length, 1, describe(r));
        assert.equal(results[0].is_error, true);
        assert.notEqual(r.code, 0, 'a failed turn exits non-zero');
        recordFixture('claude_code', 'api_error', r, sandbox);
    });
});

test('claude: the recorded fixtures parse and hold no machine paths', () => {
    checkFixtures('claude_code', ['text', 'text_partial', 'mcp_tool', 'resume', 'interrupt', 'api_error']);
});
