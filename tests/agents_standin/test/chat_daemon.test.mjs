// End to end through the daemon: the real Claude Code and Codex CLIs, run by coffer-daemon's agent
// drivers for conversations, against the stand-in model API. The agents reach Coffer's own MCP
// gateway through the entry `coffer agent mcp install` wrote into their user configs (the shim,
// found through HOME like on a user's machine: the vault is the default ~/.coffer of the sandbox's
// HOME), and call a tool of server-everything registered in Coffer.
//
// Scenarios (issue 13, "Judged by"): a turn streams deltas to two subscribers; a late subscriber
// gets the replay; during its turn the agent calls a Coffer tool through the installed shim entry;
// the next turn resumes the same agent session; three messages sent during a turn run in order;
// interrupt mid-turn → `interrupted`, queue paused, no process of the agent left; a failing model
// API and a crashing agent → error turns. Needs COFFER_BIN_DIR (ctest sets it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startStandin } from '../standin.mjs';
// The e2e harness's REST helper (its package, tests/e2e, is installed by the same script).
import { restCall } from '../../e2e/lib/harness.mjs';
import { CLAUDE, CODEX, EVERYTHING, claudeEnv, codexEnv, makeSandbox, until, writeCodexConfig } from '../lib/agents.mjs';

const BIN = process.env.COFFER_BIN_DIR;
const COFFER = BIN && path.join(BIN, 'coffer');
const DAEMON = BIN && path.join(BIN, 'coffer-daemon');
const skip = !BIN && 'COFFER_BIN_DIR is not set';

// ------------------------------------------------------------------------------------------
// A daemon on the sandbox's default vault ($HOME/.coffer), and the CLI against it.

class Daemon {
    constructor(sandbox) {
        this.sandbox = sandbox;
        this.home = path.join(sandbox.home, '.coffer');
        this.logFile = path.join(sandbox.root, 'daemon.out');
        this.proc = null;
    }

    // The environment of the daemon and the CLI: the sandbox's HOME (so the agents find their
    // configs there and the shim finds ~/.coffer), nothing of the machine's own vault.
    env(extra = {}) {
        const env = { ...process.env, HOME: this.sandbox.home, TMPDIR: this.sandbox.root, COFFER_PORT: '0', ...extra };
        for (const k of ['COFFER_HOME', 'COFFER_NO_SPAWN', 'COFFER_DAEMON_BIN', 'CODEX_HOME', 'CLAUDE_CONFIG_DIR']) delete env[k];
        return env;
    }

    info() { return JSON.parse(fs.readFileSync(path.join(this.home, 'daemon.json'), 'utf8')); }

    async start() {
        const { spawn } = await import('node:child_process');
        const log = fs.openSync(this.logFile, 'a');
        this.proc = spawn(DAEMON, [], { env: this.env(), stdio: ['ignore', log, log] });
        fs.closeSync(log);
        await until(async () => {
            if (this.proc.exitCode !== null) throw new Error(`coffer-daemon exited: ${this.log()}`);
            if (!fs.existsSync(path.join(this.home, 'daemon.json'))) return false;
            return (await this.rest('GET', '/api/v1/daemon/status')).status === 200;
        }, { timeoutMs: 20000, what: 'coffer-daemon to answer' });
    }

    log() { try { return fs.readFileSync(this.logFile, 'utf8').slice(-4000); } catch { return ''; } }

    async stop() {
        if (!this.proc || this.proc.exitCode !== null) return;
        this.proc.kill('SIGTERM');
        await Promise.race([new Promise((r) => this.proc.once('exit', r)), new Promise((r) => setTimeout(r, 10000))]);
        if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    }

    rest(method, target, body) { return restCall(this.info(), method, target, body); }

    // `coffer …` with the daemon's environment; resolves {code, stdout, stderr, json}.
    cli(args) {
        return new Promise((resolve) => {
            execFile(COFFER, args, { env: this.env(), timeout: 90000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
                let json = null;
                try { json = stdout ? JSON.parse(stdout) : null; } catch { /* not JSON */ }
                resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, json });
            });
        });
    }

    async cliOk(args) {
        const r = await this.cli(args);
        assert.equal(r.code, 0, `coffer ${args.join(' ')}: ${r.stderr}${r.stdout}\n${this.log()}`);
        return r.json;
    }

    // A live subscriber of a conversation's SSE stream: {events, close()}; events are parsed
    // `data:` payloads (the `state` event included) in arrival order.
    subscribe(conversationId) {
        const { port, token } = this.info();
        const controller = new AbortController();
        const events = [];
        const done = (async () => {
            const res = await fetch(`http://127.0.0.1:${port}/api/v1/conversations/${conversationId}/events`, {
                headers: { 'X-Coffer-Token': token, Accept: 'text/event-stream' }, signal: controller.signal,
            });
            assert.equal(res.status, 200);
            const decoder = new TextDecoder();
            let buf = '';
            for await (const chunk of res.body) {
                buf += decoder.decode(chunk, { stream: true });
                let end;
                while ((end = buf.indexOf('\n\n')) >= 0) {
                    const block = buf.slice(0, end);
                    buf = buf.slice(end + 2);
                    const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
                    if (data) events.push(JSON.parse(data));
                }
            }
        })().catch((e) => { if (e.name !== 'AbortError') events.push({ type: 'stream.error', message: String(e.message ?? e) }); });
        // Streams still open when a test fails end with the daemon; close() is the orderly way.
        return { events, close: async () => { controller.abort(); await done; } };
    }
}

const ofType = (events, type) => events.filter((e) => e.type === type);
const completions = (events) => ofType(events, 'turn.completed');
const turnEvents = (events, turnId) => events.filter((e) => e.turn_id === turnId);

// Every process whose environment holds `mark` (the agent's CLI, and whatever it started).
function processesMarked(mark) {
    const found = [];
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        try {
            if (fs.readFileSync(`/proc/${pid}/environ`).includes(mark)) found.push(Number(pid));
        } catch { /* gone, or not ours to read */ }
    }
    return found;
}

async function withDaemon(script, fn) {
    const sandbox = makeSandbox('coffer-chat-e2e-');
    const standin = await startStandin({ script, logFile: path.join(sandbox.root, 'requests.jsonl') });
    const daemon = new Daemon(sandbox);
    try {
        await daemon.start();
        // server-everything, as a Coffer upstream named "ev": its `echo` is `ev__echo` downstream.
        await daemon.cliOk(['mcp', 'add', 'ev', '--stdio', `'${process.execPath}' '${EVERYTHING}' stdio`]);
        await fn({ sandbox, standin, daemon });
    } catch (e) {
        e.message += `\n--- daemon log ---\n${daemon.log()}`;
        throw e;
    } finally {
        await daemon.stop();
        await standin.close();
        sandbox.cleanup();
    }
}

// The environment an agent gets on top of the daemon's: `claudeEnv`/`codexEnv` of the sandbox,
// minus what the daemon already has (PATH, HOME, …), as `--env` flags.
function envFlags(env) {
    const skipKeys = new Set(['PATH', 'HOME', 'LANG', 'TMPDIR', 'NO_COLOR']);
    return Object.entries(env).filter(([k]) => !skipKeys.has(k)).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
}

async function newConversation(daemon, agent, cwd) {
    const c = await daemon.cliOk(['--json', 'chat', 'new', '--agent', agent, '--cwd', cwd]);
    assert.ok(c.id, JSON.stringify(c));
    return c.id;
}

const send = (daemon, id, text) => daemon.cliOk(['--json', 'chat', 'send', id, text]);

async function waitIdle(daemon, id, what) {
    await until(async () => {
        const r = await daemon.rest('GET', `/api/v1/conversations/${id}`);
        const st = r.json?.conversation?.state;
        return r.status === 200 && st && !st.running && !(st.pending > 0 && !st.paused);
    }, { timeoutMs: 120000, what });
}

// ------------------------------------------------------------------------------------------

test('claude_code through the daemon: two live subscribers, a Coffer tool via the installed shim, replay, resume', { timeout: 300000, skip }, async () => {
    const script = [
        { match: 'coffer echo', text: ['Calling echo.'], tool: { name: 'mcp__coffer__ev__echo', input: { message: 'through coffer' } } },
        { match: 'coffer echo', text: ['The echo ', 'came ', 'back.'], delay_ms: 30 },
        { match: 'second question', text: ['Second ', 'answer.'] },
    ];
    await withDaemon(script, async ({ sandbox, standin, daemon }) => {
        // The shim entry in Claude Code's user config, for an agent named "cc".
        const installed = await daemon.cliOk(['--json', 'agent', 'mcp', 'install', 'cc', '--type', 'claude_code']);
        assert.equal(installed.changed, true);
        assert.deepEqual(installed.entry.args, ['--agent', 'cc']);
        assert.equal(installed.path, path.join(sandbox.home, '.claude.json'));

        await daemon.cliOk(['--json', 'agent', 'add', 'cc', '--driver', 'claude_code', '--command', CLAUDE,
            ...envFlags(claudeEnv(sandbox, standin.url)),
            // Claude Code connects MCP servers in the background and may start the first turn
            // before Coffer's shim is up (seen on a loaded CI machine: only WaitForMcpServers in the
            // tool list); these make it wait for the `coffer` server first, for up to a minute.
            '--env', 'CLAUDE_CODE_MCP_PREWAIT_SERVERS=coffer', '--env', 'CLAUDE_CODE_MCP_PREWAIT_SERVERS_MS=60000',
            '--arg', '--allowedTools', '--arg', 'mcp__coffer__ev__echo']);
        const id = await newConversation(daemon, 'cc', sandbox.work);

        const a = daemon.subscribe(id);
        const b = daemon.subscribe(id);
        await until(() => a.events.length > 0 && b.events.length > 0, { what: 'both streams to open' });
        const sent = await send(daemon, id, 'please use the coffer echo tool');
        assert.ok(sent, 'send answers at once');
        await until(() => completions(a.events).length === 1 && completions(b.events).length === 1, { timeoutMs: 120000, what: 'the first turn to complete on both streams' });

        for (const s of [a, b]) {
            const started = ofType(s.events, 'turn.started');
            assert.equal(started.length, 1);
            const turn = turnEvents(s.events, started[0].turn_id);
            const done = completions(turn);
            assert.equal(done.length, 1, 'exactly one turn.completed');
            assert.equal(done[0].status, 'ok', JSON.stringify(done[0]));
            assert.equal(done[0].final_text, 'The echo came back.');
            assert.equal(ofType(turn, 'text.delta').map((e) => e.text).join(''), 'Calling echo.The echo came back.');
            const tool = ofType(turn, 'tool.started')[0];
            assert.equal(tool?.name, 'mcp__coffer__ev__echo', JSON.stringify(turn.map((e) => e.type)));
            assert.equal(tool.kind, 'mcp');
            const toolDone = ofType(turn, 'tool.completed').find((e) => e.item_id === tool.item_id);
            assert.equal(toolDone?.ok, true);
            assert.match(toolDone.output_preview ?? '', /Echo: through coffer/);
            assert.ok(ofType(turn, 'session')[0]?.agent_session_id);
        }
        // Both subscribers saw the same events, in the same order.
        const seqs = (s) => s.events.filter((e) => e.turn_id).map((e) => `${e.seq}:${e.type}`);
        assert.deepEqual(seqs(a), seqs(b));

        // The model was offered Coffer's tool and got the upstream's answer back through the shim.
        const turns = standin.turns('anthropic');
        assert.equal(turns.length, 2);
        assert.ok(turns[0].tools.includes('mcp__coffer__ev__echo'), turns[0].tools.join(','));
        assert.equal(turns[1].tool_results[0]?.content, 'Echo: through coffer');
        // And Coffer's gateway logged the call under the agent the shim entry names.
        const inv = await daemon.rest('GET', '/api/v1/mcp/invocations?server=ev');
        const call = inv.json.invocations.find((i) => i.target === 'ev__echo');
        assert.equal(call?.outcome, 'ok', inv.text);
        assert.equal(call.agent, 'cc');

        // A late subscriber gets the finished turn replayed: the same events with the same ids.
        const late = daemon.subscribe(id);
        await until(() => completions(late.events).length === 1, { what: 'the replay' });
        const firstTurn = ofType(a.events, 'turn.started')[0].turn_id;
        assert.deepEqual(turnEvents(late.events, firstTurn).map((e) => e.seq), turnEvents(a.events, firstTurn).map((e) => e.seq));
        // So does `coffer chat watch --json --until-idle`, which then exits.
        const watched = await daemon.cli(['chat', 'watch', id, '--json', '--until-idle']);
        assert.equal(watched.code, 0, watched.stderr);
        const watchedTypes = watched.stdout.trim().split('\n').map((l) => JSON.parse(l).type);
        assert.equal(watchedTypes[0], 'turn.started');
        assert.equal(watchedTypes.at(-1), 'turn.completed');

        // The next turn resumes the same Claude Code session: the model sees the first exchange.
        const sessionId = ofType(a.events, 'session').at(-1).agent_session_id;
        const conv = (await daemon.rest('GET', `/api/v1/conversations/${id}`)).json;
        assert.equal(JSON.stringify(conv).includes(sessionId), true, 'the stored resume key is the reported session');
        await send(daemon, id, 'a second question');
        await until(() => completions(a.events).length === 2, { timeoutMs: 120000, what: 'the second turn' });
        assert.equal(completions(a.events)[1].status, 'ok', JSON.stringify(completions(a.events)[1]));
        assert.equal(completions(a.events)[1].final_text, 'Second answer.');
        const third = standin.turns('anthropic')[2];
        assert.match(third.user_text, /a second question/);
        const history = JSON.stringify(third.body.messages);
        assert.match(history, /please use the coffer echo tool/);
        assert.match(history, /The echo came back\./);

        for (const s of [a, b, late]) await s.close();
    });
});

test('claude_code through the daemon: interrupt of the first turn (whole process tree, queue paused), resume after it, FIFO queue, an API error, a crash', { timeout: 300000, skip }, async () => {
    const script = [
        { match: 'slow one', text: ['Taking ', 'my ', 'time ', 'here.'], delay_ms: 400 },
        { match: 'queued A', text: ['A done.'] },
        { match: 'queued B', text: ['B done.'] },
        { match: 'queued C', text: ['C done.'] },
        { match: 'hang here', hang: true },
        { match: 'after the interrupt', text: ['Back again.'] },
        { match: 'fail please', status: 500, message: 'stand-in overloaded' },
        { match: 'crash now', hang: true },
    ];
    await withDaemon(script, async ({ sandbox, standin, daemon }) => {
        const mark = `COFFER_E2E_MARK=${crypto.randomUUID()}`;
        await daemon.cliOk(['--json', 'agent', 'add', 'cc', '--driver', 'claude_code', '--command', CLAUDE,
            ...envFlags(claudeEnv(sandbox, standin.url)), '--env', mark]);
        const id = await newConversation(daemon, 'cc', sandbox.work);
        const s = daemon.subscribe(id);
        await until(() => s.events.length > 0, { what: 'the stream to open' });

        // Interrupt mid-turn, on the first turn: the turn ends interrupted, the queue is paused with
        // its message, and no process of the agent is left.
        await send(daemon, id, 'hang here');
        await until(() => standin.turns('anthropic').some((t) => /hang here/.test(t.user_text)), { what: 'the hanging model request' });
        assert.ok(processesMarked(mark).length > 0, 'the agent runs with the mark (so the check below can fail)');
        await send(daemon, id, 'after the interrupt');
        const r = await daemon.cli(['--json', 'chat', 'interrupt', id]);
        assert.equal(r.code, 0, r.stderr);
        await until(() => completions(s.events).length === 1, { what: 'the interrupted turn to complete' });
        assert.equal(completions(s.events)[0].status, 'interrupted');
        assert.deepEqual(processesMarked(mark), [], 'no process of the agent is left once turn.completed is out');
        const paused = ofType(s.events, 'queue.changed').at(-1);
        assert.equal(paused.paused, true);
        assert.deepEqual(paused.pending.map((p) => p.text_preview), ['after the interrupt']);
        await new Promise((res) => setTimeout(res, 500));
        assert.equal(ofType(s.events, 'turn.started').length, 1, 'a paused queue starts nothing');

        // Resuming the queue runs the waiting message in the same agent session.
        await daemon.cliOk(['--json', 'chat', 'queue', id, 'resume']);
        await until(() => completions(s.events).length === 2, { timeoutMs: 120000, what: 'the turn after the interrupt' });
        assert.equal(completions(s.events)[1].status, 'ok', JSON.stringify(completions(s.events)[1]));
        assert.equal(completions(s.events)[1].final_text, 'Back again.');
        // An interrupted first turn leaves a resumable session (SIGINT first: the CLI saves it).
        const resumed = standin.turns('anthropic').find((t) => /after the interrupt/.test(t.user_text));
        assert.match(JSON.stringify(resumed.body.messages), /hang here/, 'the resumed session carries the interrupted turn');

        // Three messages sent while a turn runs: queued, then run one by one in order.
        await send(daemon, id, 'the slow one');
        await until(() => ofType(s.events, 'turn.started').length === 3, { what: 'the slow turn to start' });
        for (const m of ['queued A', 'queued B', 'queued C']) await send(daemon, id, m);
        await until(() => ofType(s.events, 'queue.changed').at(-1)?.pending.length === 3, { what: 'three queued messages' });
        const queued = ofType(s.events, 'queue.changed').at(-1);
        assert.deepEqual(queued.pending.map((p) => p.text_preview), ['queued A', 'queued B', 'queued C']);
        assert.equal(ofType(s.events, 'turn.started').length, 3, 'nothing else started meanwhile');
        await waitIdle(daemon, id, 'the queue to drain');
        await until(() => completions(s.events).length === 6, { what: 'four more turn.completed' });
        assert.deepEqual(ofType(s.events, 'turn.started').slice(2).map((e) => e.text), ['the slow one', 'queued A', 'queued B', 'queued C']);
        assert.deepEqual(completions(s.events).slice(2).map((e) => e.status), ['ok', 'ok', 'ok', 'ok']);
        assert.deepEqual(completions(s.events).slice(2).map((e) => e.final_text), ['Taking my time here.', 'A done.', 'B done.', 'C done.']);
        assert.deepEqual(standin.turns('anthropic').map((t) => t.user_text.match(/slow one|queued [ABC]/)?.[0]).filter(Boolean),
            ['slow one', 'queued A', 'queued B', 'queued C']);
        assert.match(JSON.stringify(standin.turns('anthropic').at(-1).body.messages), /Back again\./, 'the same session all along');

        // The model API fails: the turn ends as an error that says why.
        await send(daemon, id, 'fail please');
        await until(() => completions(s.events).length === 7, { timeoutMs: 120000, what: 'the failing turn' });
        const failed = completions(s.events)[6];
        assert.equal(failed.status, 'error', JSON.stringify(failed));
        assert.match(JSON.stringify(failed), /500|overloaded/);

        // The agent crashes mid-turn (SIGSEGV to the CLI): an error turn with the reason, nothing left.
        await send(daemon, id, 'crash now');
        await until(() => standin.turns('anthropic').some((t) => /crash now/.test(t.user_text)), { what: 'the request before the crash' });
        const leaders = processesMarked(mark).filter((pid) => {
            try { return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[2] === String(pid); } catch { return false; }
        });
        assert.equal(leaders.length, 1, 'one process-group leader: the CLI the driver started');
        process.kill(leaders[0], 'SIGSEGV');
        await until(() => completions(s.events).length === 8, { timeoutMs: 60000, what: 'the crashed turn' });
        const crashed = completions(s.events)[7];
        assert.equal(crashed.status, 'error', JSON.stringify(crashed));
        assert.match(crashed.error ?? '', /signal|exited|without finishing/, JSON.stringify(crashed));
        assert.deepEqual(processesMarked(mark), []);
        // Exactly one turn.completed per turn.started, all along.
        assert.equal(ofType(s.events, 'turn.started').length, completions(s.events).length);
        await s.close();
    });
});

test('codex through the daemon: a Coffer tool via the shim entry in ~/.codex/config.toml, then a resumed turn', { timeout: 300000, skip }, async () => {
    const script = [
        { api: 'openai', match: 'coffer echo', tool: { name: 'mcp__coffer__ev__echo', input: { message: 'codex through coffer' } } },
        { api: 'openai', match: 'coffer echo', text: ['Codex got ', 'the echo.'] },
        { api: 'openai', match: 'second question', text: ['Second from codex.'] },
    ];
    await withDaemon(script, async ({ sandbox, standin, daemon }) => {
        writeCodexConfig(sandbox, standin.url); // the model provider; the user's own file
        const installed = await daemon.cliOk(['--json', 'agent', 'mcp', 'install', 'cx', '--type', 'codex']);
        assert.equal(installed.path, path.join(sandbox.codexHome, 'config.toml'));
        const env = codexEnv(sandbox);
        delete env.CODEX_HOME; // ~/.codex, found through HOME like on a user's machine
        await daemon.cliOk(['--json', 'agent', 'add', 'cx', '--driver', 'codex', '--command', CODEX, ...envFlags(env),
            '--arg', '-c', '--arg', 'mcp_servers.coffer.default_tools_approval_mode="approve"',
            // Codex (0.171) starts a turn after a short grace (~1.5 s) without waiting for MCP
            // servers that are not `required`, whatever their startup_timeout_sec: on a loaded
            // machine the first turn then ran without Coffer's tools (seen in a fresh Debian
            // root). `required` makes it wait for the shim, up to startup_timeout_sec.
            '--arg', '-c', '--arg', 'mcp_servers.coffer.required=true',
            '--arg', '-c', '--arg', 'mcp_servers.coffer.startup_timeout_sec=60']);
        const id = await newConversation(daemon, 'cx', sandbox.work);
        const s = daemon.subscribe(id);
        await until(() => s.events.length > 0, { what: 'the stream to open' });

        await send(daemon, id, 'use the coffer echo tool');
        await until(() => completions(s.events).length === 1, { timeoutMs: 120000, what: 'the codex turn' });
        const done = completions(s.events)[0];
        assert.equal(done.status, 'ok', JSON.stringify(done));
        assert.equal(done.final_text, 'Codex got the echo.');
        const tool = ofType(s.events, 'tool.started').find((e) => e.kind === 'mcp');
        assert.match(tool?.name ?? '', /ev__echo/,
            JSON.stringify(s.events.map((e) => e.type)) + ' ' + JSON.stringify(ofType(s.events, 'warning')));
        const toolDone = ofType(s.events, 'tool.completed').find((e) => e.item_id === tool.item_id);
        assert.equal(toolDone?.ok, true, JSON.stringify(toolDone));
        const turns = standin.turns('openai');
        assert.ok(turns[0].tools.includes('mcp__coffer/ev__echo'), turns[0].tools.join(','));
        assert.match(JSON.stringify(turns[1].tool_results), /Echo: codex through coffer/);
        const inv = await daemon.rest('GET', '/api/v1/mcp/invocations?server=ev');
        assert.equal(inv.json.invocations.find((i) => i.target === 'ev__echo')?.agent, 'cx', inv.text);

        // The next turn resumes the Codex thread: the model sees the first exchange.
        await send(daemon, id, 'a second question');
        await until(() => completions(s.events).length === 2, { timeoutMs: 120000, what: 'the resumed codex turn' });
        assert.equal(completions(s.events)[1].status, 'ok', JSON.stringify(completions(s.events)[1]));
        const second = standin.turns('openai').find((t) => /second question/.test(t.user_text));
        assert.match(JSON.stringify(second.body.input), /use the coffer echo tool/);
        await s.close();
    });
});
