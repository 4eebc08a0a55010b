// A local stand-in for the two model APIs the managed coding agents call: the Anthropic Messages
// API (Claude Code, through ANTHROPIC_BASE_URL) and the OpenAI Responses API (Codex, through a
// model provider in $CODEX_HOME/config.toml). It speaks their real streamed wire formats (SSE), is
// scripted per test (text in several deltas, a tool call and the answer after its result, a request
// that hangs until the client goes away, a 500) and logs every request as a JSON line so a test can
// assert what the CLI sent. No dependencies beyond Node's own modules. See README.md.
//
// As a library:   const s = await startStandin({ script, logFile });  … s.url … await s.close();
// As a program:   node standin.mjs [--port N] [--script steps.json] [--log requests.jsonl]
//                 prints {"url": "http://127.0.0.1:PORT"} on stdout once it listens.
import http from 'node:http';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';

// ---------------------------------------------------------------------------------------------
// The script.
//
// A script is an array of steps. Each request that asks the model for a turn (a "turn request":
// POST /v1/messages or POST /v1/responses, other than the CLIs' side requests listed below) takes
// the next step. A step is one of:
//   { "text": ["Hel", "lo"], "delay_ms": 30 }          stream the text in these deltas
//   { "tool": { "name": "...", "input": {...} }, "text": ["first "], "delay_ms": 0 }
//                                                        optional text, then a tool call; the CLI
//                                                        runs the tool and sends its result in the
//                                                        next turn request (which takes the next step)
//   { "hang": true }                                     start the stream, then send only keep-alive
//                                                        comments until the client disconnects
//   { "status": 500, "message": "boom" }                 fail the request with that HTTP status
// A step may carry "api": "anthropic" | "openai" to apply to that API only, and "match": "text"
// to be taken only by a request whose last user input contains that text (for a script shared by
// several requests). A turn request with no step left is answered with the text "(no script)".
//
// Side requests the CLIs make for themselves are answered without taking a step:
//   - Claude Code: POST /v1/messages/count_tokens, requests with no tools that ask for a title or a
//     summary (the small-model calls), and any non-streamed POST /v1/messages;
//   - Codex: GET /v1/models (answered with an empty list).

const KEEPALIVE_MS = 1000;

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

function sse(res, event, data) {
    if (res.destroyed) return false;
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    return true;
}

function approxTokens(text) { return Math.max(1, Math.ceil(String(text ?? '').length / 4)); }

// The text of the last user input of a request, in either API (for "match" and for the log).
export function lastUserText(api, body) {
    if (api === 'anthropic') {
        const msgs = Array.isArray(body?.messages) ? body.messages : [];
        for (let i = msgs.length - 1; i >= 0; i--) {
            if (msgs[i].role !== 'user') continue;
            const c = msgs[i].content;
            if (typeof c === 'string') return c;
            if (Array.isArray(c)) {
                const texts = c.filter((b) => b.type === 'text').map((b) => b.text);
                if (texts.length) return texts.join('\n');
            }
        }
        return '';
    }
    const input = Array.isArray(body?.input) ? body.input : [];
    for (let i = input.length - 1; i >= 0; i--) {
        const it = input[i];
        if (it.type === 'message' && it.role === 'user') {
            const c = it.content;
            if (typeof c === 'string') return c;
            if (Array.isArray(c)) return c.filter((p) => typeof p.text === 'string').map((p) => p.text).join('\n');
        }
    }
    return typeof body?.input === 'string' ? body.input : '';
}

// Tool results the request carries back (what the CLI ran for the previous step's tool call).
export function toolResults(api, body) {
    const out = [];
    if (api === 'anthropic') {
        for (const m of body?.messages ?? [])
            if (Array.isArray(m.content))
                for (const b of m.content)
                    if (b.type === 'tool_result') {
                        const content = typeof b.content === 'string' ? b.content
                            : (b.content ?? []).filter((x) => x.type === 'text').map((x) => x.text).join('\n');
                        out.push({ id: b.tool_use_id, content, is_error: !!b.is_error });
                    }
    } else {
        for (const it of Array.isArray(body?.input) ? body.input : [])
            if (it.type === 'function_call_output') {
                let content = it.output;
                if (Array.isArray(content)) content = content.map((x) => x.text ?? '').join('\n');
                else if (content && typeof content === 'object') content = content.content ?? JSON.stringify(content);
                out.push({ id: it.call_id, content: String(content ?? '') });
            }
    }
    return out;
}

// Tool names the request offers the model, as the model would call them ("namespace/name" for
// Codex's namespaced MCP tools, e.g. "mcp__everything/echo").
export function offeredTools(api, body) {
    const names = [];
    for (const t of body?.tools ?? []) {
        if (api === 'openai' && t.type === 'namespace') {
            for (const f of t.tools ?? []) names.push(`${t.name}/${f.name}`);
        } else if (t.name) names.push(t.name);
    }
    return names;
}

function isAnthropicSideRequest(body) {
    if (!body || body.stream !== true) return true;
    const tools = body.tools ?? [];
    if (tools.length > 0) return false;
    // A streamed request without tools: Claude Code's small helper calls (title, summaries) carry a
    // system prompt of their own; a real turn always offers tools.
    return true;
}

// ---------------------------------------------------------------------------------------------

export async function startStandin({ script = [], logFile = null, port = 0, host = '127.0.0.1', model = 'standin-model' } = {}) {
    const steps = script.map((s) => ({ ...s }));
    const requests = [];
    const logStream = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : null;
    const open = new Set();
    let seq = 0;

    function record(entry) {
        entry.seq = ++seq;
        entry.at = new Date().toISOString();
        requests.push(entry);
        if (logStream) logStream.write(JSON.stringify(entry) + '\n');
        return entry;
    }

    function takeStep(api, body) {
        const text = lastUserText(api, body);
        const i = steps.findIndex((s) => !s.taken && (!s.api || s.api === api) && (!s.match || text.includes(s.match)));
        if (i < 0) return { text: ['(no script)'] };
        steps[i].taken = true;
        return steps[i];
    }

    const server = http.createServer((req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let body = null;
            try { body = raw ? JSON.parse(raw) : null; } catch { body = null; }
            handle(req, res, raw, body).catch((e) => {
                if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
                res.end(JSON.stringify({ error: { message: String(e?.message ?? e) } }));
            });
        });
    });
    server.on('connection', (sock) => { open.add(sock); sock.on('close', () => open.delete(sock)); });

    async function handle(req, res, raw, body) {
        const path = req.url.split('?')[0];
        const base = {
            method: req.method, path, query: req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '',
            headers: pickHeaders(req.headers),
        };
        if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
            const n = approxTokens(raw);
            record({ ...base, api: 'anthropic', kind: 'count_tokens', reply: { input_tokens: n }, body });
            return json(res, 200, { input_tokens: n });
        }
        if (req.method === 'POST' && path === '/v1/messages') {
            const side = isAnthropicSideRequest(body);
            const step = side ? { text: ['Stand-in title'] } : takeStep('anthropic', body);
            const entry = record({
                ...base, api: 'anthropic', kind: side ? 'side' : 'turn', model: body?.model, stream: !!body?.stream,
                user_text: lastUserText('anthropic', body), tool_results: toolResults('anthropic', body),
                tools: offeredTools('anthropic', body), step: stepSummary(step), body,
            });
            return anthropicReply(req, res, body, step, entry);
        }
        if (req.method === 'POST' && path === '/v1/responses') {
            const step = takeStep('openai', body);
            const entry = record({
                ...base, api: 'openai', kind: 'turn', model: body?.model, stream: !!body?.stream,
                user_text: lastUserText('openai', body), tool_results: toolResults('openai', body),
                tools: offeredTools('openai', body), step: stepSummary(step), body,
            });
            return openaiReply(req, res, body, step, entry);
        }
        if (req.method === 'GET' && path === '/v1/models') {
            record({ ...base, api: 'openai', kind: 'models' });
            return json(res, 200, { object: 'list', data: [], models: [] });
        }
        record({ ...base, kind: 'unknown', body: body ?? raw.slice(0, 4096) });
        return json(res, 404, { error: { type: 'not_found_error', message: `the stand-in has no ${req.method} ${path}` } });
    }

    // --- Anthropic Messages ------------------------------------------------------------------
    async function anthropicReply(req, res, body, step, entry) {
        if (step.status) {
            return json(res, step.status, { type: 'error', error: { type: step.status >= 500 ? 'api_error' : 'invalid_request_error', message: step.message ?? 'stand-in failure' } });
        }
        const id = `msg_standin_${seq}`;
        const usageIn = approxTokens(JSON.stringify(body?.messages ?? ''));
        const texts = step.text ? [].concat(step.text) : [];
        const tool = step.tool ? { id: `toolu_standin_${seq}`, name: step.tool.name, input: step.tool.input ?? {} } : null;
        if (tool) entry.tool_use_id = tool.id;
        const outText = texts.join('');
        const outTokens = approxTokens(outText + (tool ? JSON.stringify(tool.input) : ''));
        const stopReason = tool ? 'tool_use' : 'end_turn';
        const mdl = body?.model ?? model;

        if (!body?.stream) {
            const content = [];
            if (outText || !tool) content.push({ type: 'text', text: outText });
            if (tool) content.push({ type: 'tool_use', ...tool });
            return json(res, 200, {
                id, type: 'message', role: 'assistant', model: mdl, content, stop_reason: stopReason, stop_sequence: null,
                usage: { input_tokens: usageIn, output_tokens: outTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
            });
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_standin_${seq}` });
        sse(res, 'message_start', {
            type: 'message_start',
            message: { id, type: 'message', role: 'assistant', model: mdl, content: [], stop_reason: null, stop_sequence: null,
                usage: { input_tokens: usageIn, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
        });
        sse(res, 'ping', { type: 'ping' });
        if (step.hang) return hang(req, res, entry, () => res.write(': keep-alive\n\n'));
        let index = 0;
        if (texts.length || !tool) {
            sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
            for (const t of texts) {
                if (step.delay_ms) await sleep(step.delay_ms);
                if (!sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } })) return;
            }
            sse(res, 'content_block_stop', { type: 'content_block_stop', index });
            index++;
        }
        if (tool) {
            sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} } });
            const args = JSON.stringify(tool.input);
            const half = Math.floor(args.length / 2);
            for (const part of [args.slice(0, half), args.slice(half)]) {
                if (step.delay_ms) await sleep(step.delay_ms);
                sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
            }
            sse(res, 'content_block_stop', { type: 'content_block_stop', index });
        }
        sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outTokens } });
        sse(res, 'message_stop', { type: 'message_stop' });
        res.end();
        entry.completed = true;
    }

    // --- OpenAI Responses ----------------------------------------------------------------------
    async function openaiReply(req, res, body, step, entry) {
        if (step.status) {
            return json(res, step.status, { error: { type: step.status >= 500 ? 'server_error' : 'invalid_request_error', code: null, message: step.message ?? 'stand-in failure' } });
        }
        const respId = `resp_standin_${seq}`;
        const mdl = body?.model ?? model;
        const created = Math.floor(Date.now() / 1000);
        const texts = step.text ? [].concat(step.text) : [];
        const outText = texts.join('');
        const usageIn = approxTokens(JSON.stringify(body?.input ?? ''));
        let n = 0;
        const send = (type, data) => sse(res, type, { type, sequence_number: n++, ...data });
        const response = (status, output, usage) => ({
            id: respId, object: 'response', created_at: created, status, model: mdl, output, usage: usage ?? null,
            parallel_tool_calls: true, tool_choice: 'auto', tools: [], error: null, incomplete_details: null,
        });
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': `req_standin_${seq}` });
        send('response.created', { response: response('in_progress', []) });
        send('response.in_progress', { response: response('in_progress', []) });
        if (step.hang) return hang(req, res, entry, () => res.write(': keep-alive\n\n'));

        const output = [];
        let oi = 0;
        if (texts.length || !step.tool) {
            const itemId = `msg_standin_${seq}`;
            send('response.output_item.added', { output_index: oi, item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
            send('response.content_part.added', { item_id: itemId, output_index: oi, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
            for (const t of texts) {
                if (step.delay_ms) await sleep(step.delay_ms);
                if (!send('response.output_text.delta', { item_id: itemId, output_index: oi, content_index: 0, delta: t, logprobs: [] })) return;
            }
            send('response.output_text.done', { item_id: itemId, output_index: oi, content_index: 0, text: outText, logprobs: [] });
            const part = { type: 'output_text', text: outText, annotations: [] };
            send('response.content_part.done', { item_id: itemId, output_index: oi, content_index: 0, part });
            const item = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
            send('response.output_item.done', { output_index: oi, item });
            output.push(item);
            oi++;
        }
        if (step.tool) {
            // An MCP tool is called by its name inside the server's namespace ("mcp__<server>");
            // a step may give "namespace" itself, or a name "mcp__<server>/<tool>" or
            // "mcp__<server>__<tool>" that is split here.
            let { name, namespace } = step.tool;
            if (!namespace && name.includes('/')) [namespace, name] = name.split('/');
            else if (!namespace && name.startsWith('mcp__') && name.indexOf('__', 5) > 0) {
                const cut = name.indexOf('__', 5);
                namespace = name.slice(0, cut);
                name = name.slice(cut + 2);
            }
            const callId = `call_standin_${seq}`;
            entry.tool_use_id = callId;
            const args = JSON.stringify(step.tool.input ?? {});
            const itemId = `fc_standin_${seq}`;
            const base = { id: itemId, type: 'function_call', call_id: callId, name, ...(namespace ? { namespace } : {}) };
            send('response.output_item.added', { output_index: oi, item: { ...base, status: 'in_progress', arguments: '' } });
            if (step.delay_ms) await sleep(step.delay_ms);
            send('response.function_call_arguments.delta', { item_id: itemId, output_index: oi, delta: args });
            send('response.function_call_arguments.done', { item_id: itemId, output_index: oi, arguments: args });
            const item = { ...base, status: 'completed', arguments: args };
            send('response.output_item.done', { output_index: oi, item });
            output.push(item);
        }
        const outTokens = approxTokens(outText + (step.tool ? JSON.stringify(step.tool.input ?? {}) : ''));
        send('response.completed', {
            response: response('completed', output, {
                input_tokens: usageIn, input_tokens_details: { cached_tokens: 0 },
                output_tokens: outTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usageIn + outTokens,
            }),
        });
        res.end();
        entry.completed = true;
    }

    // Keeps the stream open with keep-alive comments until the client goes away (an interrupted CLI).
    function hang(req, res, entry, keepalive) {
        entry.hung = true;
        return new Promise((resolve) => {
            const timer = setInterval(() => { if (!res.destroyed) keepalive(); }, KEEPALIVE_MS);
            res.on('close', () => {
                clearInterval(timer);
                record({ kind: 'disconnected', of: entry.seq, api: entry.api });
                resolve();
            });
        });
    }

    function json(res, status, doc) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(doc));
    }

    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, resolve);
    });
    const addr = server.address();
    const url = `http://${host}:${addr.port}`;
    return {
        url,
        port: addr.port,
        requests,
        // Turn requests of one API, in order.
        turns(api) { return requests.filter((r) => r.kind === 'turn' && (!api || r.api === api)); },
        remainingSteps() { return steps.filter((s) => !s.taken).length; },
        async close() {
            for (const s of open) s.destroy();
            await new Promise((r) => server.close(() => r()));
            if (logStream) await new Promise((r) => logStream.end(r));
        },
    };
}

function stepSummary(step) {
    if (step.status) return { status: step.status };
    if (step.hang) return { hang: true };
    return { text: step.text ? [].concat(step.text).join('') : undefined, tool: step.tool?.name };
}

// Headers worth asserting on, without the credentials the CLIs send.
function pickHeaders(h) {
    const out = {};
    for (const [k, v] of Object.entries(h)) {
        if (k === 'authorization' || k === 'x-api-key' || k === 'cookie') { out[k] = '(redacted)'; continue; }
        out[k] = v;
    }
    return out;
}

// --- program ----------------------------------------------------------------------------------
if (import.meta.url === `file://${process.argv[1]}`) {
    const args = process.argv.slice(2);
    const opt = (name) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : undefined; };
    const script = opt('script') ? JSON.parse(fs.readFileSync(opt('script'), 'utf8')) : [];
    const s = await startStandin({ script, logFile: opt('log') ?? null, port: Number(opt('port') ?? 0) });
    process.stdout.write(JSON.stringify({ url: s.url }) + '\n');
    const stop = async () => { await s.close(); process.exit(0); };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
}
