// The stand-in alone, over plain HTTP: the SSE event sequences of both APIs for text, a tool call,
// a 500, count_tokens and the request log. Fast; no CLI involved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startStandin } from '../standin.mjs';

function post(url, body) {
    return new Promise((resolve, reject) => {
        const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d) => { text += d; });
            res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], text }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(body));
    });
}

// [{event, data}] from an SSE body.
function events(text) {
    return text.split('\n\n').filter((b) => b.includes('data: ')).map((b) => {
        const ev = /^event: (.*)$/m.exec(b)?.[1];
        return { event: ev, data: JSON.parse(/^data: (.*)$/m.exec(b)[1]) };
    });
}

test('anthropic: text deltas, then a tool_use block with stop_reason tool_use', async () => {
    const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'standin-')), 'requests.jsonl');
    const s = await startStandin({ logFile: log, script: [
        { text: ['a', 'b'] },
        { text: ['c'], tool: { name: 'mcp__coffer__x', input: { q: 1 } } },
    ] });
    try {
        const tools = [{ name: 'mcp__coffer__x', input_schema: { type: 'object' } }];
        const one = await post(`${s.url}/v1/messages`, { model: 'm', stream: true, tools, messages: [{ role: 'user', content: 'hi' }] });
        assert.equal(one.type, 'text/event-stream');
        const ev1 = events(one.text);
        assert.deepEqual(ev1.map((e) => e.event), ['message_start', 'ping', 'content_block_start', 'content_block_delta',
            'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
        assert.deepEqual(ev1.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text), ['a', 'b']);
        assert.equal(ev1.find((e) => e.event === 'message_delta').data.delta.stop_reason, 'end_turn');

        const two = events((await post(`${s.url}/v1/messages`, { model: 'm', stream: true, tools, messages: [{ role: 'user', content: 'again' }] })).text);
        const start = two.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block);
        assert.deepEqual(start.map((b) => b.type), ['text', 'tool_use']);
        assert.equal(start[1].name, 'mcp__coffer__x');
        const json = two.filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json).join('');
        assert.deepEqual(JSON.parse(json), { q: 1 });
        assert.equal(two.find((e) => e.event === 'message_delta').data.delta.stop_reason, 'tool_use');

        const count = await post(`${s.url}/v1/messages/count_tokens`, { model: 'm', messages: [] });
        assert.equal(typeof JSON.parse(count.text).input_tokens, 'number');
        // A non-streamed request is answered with a whole message, without taking a step.
        const whole = JSON.parse((await post(`${s.url}/v1/messages`, { model: 'm', messages: [{ role: 'user', content: 'x' }] })).text);
        assert.equal(whole.type, 'message');
        assert.equal(s.turns('anthropic').length, 2);
        assert.equal(s.remainingSteps(), 0);
    } finally {
        await s.close();
    }
    const logged = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(logged.map((l) => l.kind), ['turn', 'turn', 'count_tokens', 'side']);
    assert.deepEqual(logged[1].step, { text: 'c', tool: 'mcp__coffer__x' });
});

test('openai: output_text deltas, a namespaced function_call, and the output in the next input', async () => {
    const s = await startStandin({ script: [
        { tool: { name: 'mcp__coffer__search', input: { q: 'x' } } },
        { text: ['do', 'ne'] },
    ] });
    try {
        const one = events((await post(`${s.url}/v1/responses`, { model: 'm', stream: true, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] })).text);
        assert.deepEqual(one.map((e) => e.event), ['response.created', 'response.in_progress', 'response.output_item.added',
            'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done', 'response.completed']);
        const call = one.find((e) => e.event === 'response.output_item.done').data.item;
        assert.equal(call.type, 'function_call');
        assert.equal(call.namespace, 'mcp__coffer');
        assert.equal(call.name, 'search');
        assert.deepEqual(JSON.parse(call.arguments), { q: 'x' });
        assert.deepEqual(one.map((e) => e.data.sequence_number), [0, 1, 2, 3, 4, 5, 6]);

        const two = events((await post(`${s.url}/v1/responses`, { model: 'm', stream: true, input: [
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
            call,
            { type: 'function_call_output', call_id: call.call_id, output: 'result text' },
        ] })).text);
        assert.deepEqual(two.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta), ['do', 'ne']);
        const completed = two.at(-1);
        assert.equal(completed.event, 'response.completed');
        assert.equal(completed.data.response.output[0].content[0].text, 'done');
        assert.ok(completed.data.response.usage.total_tokens > 0);
        assert.deepEqual(s.turns('openai')[1].tool_results, [{ id: call.call_id, content: 'result text' }]);
    } finally {
        await s.close();
    }
});

test('a status step fails the request with that status in each API\'s error shape', async () => {
    const s = await startStandin({ script: [{ status: 500, message: 'boom' }, { status: 500, message: 'bang', api: 'openai' }] });
    try {
        const a = await post(`${s.url}/v1/messages`, { model: 'm', stream: true, tools: [{ name: 't' }], messages: [] });
        assert.equal(a.status, 500);
        assert.deepEqual(JSON.parse(a.text), { type: 'error', error: { type: 'api_error', message: 'boom' } });
        const o = await post(`${s.url}/v1/responses`, { model: 'm', stream: true, input: [] });
        assert.equal(o.status, 500);
        assert.equal(JSON.parse(o.text).error.message, 'bang');
    } finally {
        await s.close();
    }
});
