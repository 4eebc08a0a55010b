// Tasks (MCP 2025-11-25) through the gateway (issue 15 item 3): the official SDK client, through
// coffer-mcp-shim and straight to /mcp, against server-everything's simulate-research-query (a
// tool that requires task-augmented execution) over stdio. A task-augmented call creates a task
// named <server>__<id>; tasks/get, tasks/list, tasks/result and tasks/cancel reach the upstream
// that owns it (and only for the session that created it); its status notifications arrive with
// the same name; a client that does not use tasks (2025-11-25 without `task`, or 2025-06-18)
// still gets the plain result.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskPayloadResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { Vault, bins, nodeBin, everythingJs, shimClient, httpClient, rawShim, waitFor } from '../lib/harness.mjs';

const TOOL = 'ev__simulate-research-query';
let vault;
let viaShim;
let viaHttp;

before(async () => {
  vault = await Vault.create('tasks');
  await vault.start();
  await vault.cliOk(['mcp', 'add', 'ev', '--stdio', `${nodeBin} ${everythingJs} stdio`]);
  await vault.cliOk(['mcp', 'add', 'a', '--stdio', bins.upstream]);  // a server without tasks beside it
  viaShim = await shimClient(vault, { agent: 'e2e-tasks' });
  viaHttp = await httpClient(vault);
});

after(async () => {
  await viaShim?.close().catch(() => {});
  await viaHttp?.close().catch(() => {});
  await vault?.cleanup();
});

test('the gateway offers tasks and relays the tool\'s task support', async () => {
  for (const client of [viaShim, viaHttp]) {
    const caps = client.getServerCapabilities();
    assert.ok(caps.tasks, 'tasks capability');
    assert.ok(caps.tasks.requests?.tools?.call, 'task-augmented tools/call');
    assert.ok(caps.tasks.list && caps.tasks.cancel);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === TOOL);
    assert.ok(tool, `${TOOL} listed`);
    assert.equal(tool.execution?.taskSupport, 'required');
  }
});

test('a task-augmented call: created, polled, listed, status notifications, result', async () => {
  for (const client of [viaShim, viaHttp]) {
    const statuses = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => { statuses.push(n.params); });
    const created = await client.request(
      { method: 'tools/call', params: { name: TOOL, arguments: { topic: 'coffer gateways' }, task: { ttl: 60000 } } },
      CreateTaskResultSchema);
    const id = created.task.taskId;
    assert.match(id, /^ev__./, 'the task is named after its server');
    assert.ok(['working', 'input_required', 'completed'].includes(created.task.status), created.task.status);

    const got = await client.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
    assert.equal(got.taskId, id);
    const listed = await client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
    assert.ok(listed.tasks.some((t) => t.taskId === id), `tasks/list has ${id}: ${JSON.stringify(listed.tasks)}`);

    const result = await client.request({ method: 'tasks/result', params: { taskId: id } }, GetTaskPayloadResultSchema,
      { timeout: 60000 });
    const text = result.content?.[0]?.text ?? '';
    assert.match(text, /Research Report: coffer gateways/);
    const done = await client.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
    assert.equal(done.status, 'completed');
    // The upstream's status notifications came through, under the exposed id.
    await waitFor('status notifications', () => statuses.some((s) => s.taskId === id));
    assert.ok(statuses.filter((s) => s.taskId === id).every((s) => s.taskId.startsWith('ev__')));
    assert.ok(statuses.some((s) => s.taskId === id && s.status === 'working'), JSON.stringify(statuses));
  }
});

test('tasks/cancel reaches the owning upstream; unknown task ids are refused', async () => {
  const created = await viaHttp.request(
    { method: 'tools/call', params: { name: TOOL, arguments: { topic: 'to be cancelled' }, task: { ttl: 60000 } } },
    CreateTaskResultSchema);
  // Another session (the shim's) can neither see nor touch it: the upstream sees one client.
  await assert.rejects(
    viaShim.request({ method: 'tasks/get', params: { taskId: created.task.taskId } }, GetTaskResultSchema),
    /Unknown task/);
  const others = await viaShim.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
  assert.ok(!others.tasks.some((t) => t.taskId === created.task.taskId));
  const cancelled = await viaHttp.request({ method: 'tasks/cancel', params: { taskId: created.task.taskId } },
    CancelTaskResultSchema);
  assert.equal(cancelled.taskId, created.task.taskId);
  assert.equal(cancelled.status, 'cancelled');
  await assert.rejects(
    viaHttp.request({ method: 'tasks/get', params: { taskId: 'nosuchserver__x' } }, GetTaskResultSchema),
    /Unknown task/);
  await assert.rejects(
    viaHttp.request({ method: 'tasks/get', params: { taskId: 'no-server-part' } }, GetTaskResultSchema),
    /Unknown task/);
});

test('a client that does not use tasks gets the plain result of a tool that requires them', async () => {
  // 2025-11-25 without `task` (the SDK's callTool refuses such a tool, so the request is sent as is).
  const plain = await viaShim.request({ method: 'tools/call', params: { name: TOOL, arguments: { topic: 'plain' } } },
    CallToolResultSchema, { timeout: 60000 });
  assert.match(plain.content[0].text, /Research Report: plain/);
  assert.equal(plain.task, undefined);

  // 2025-06-18 over raw stdio: no tasks capability is offered, the call still completes.
  const raw = rawShim(vault, { agent: 'e2e-tasks-raw' });
  try {
    const init = await raw.initialize('2025-06-18');
    assert.equal(init.result.capabilities.tasks, undefined);
    await raw.request(1, 'tools/list', {});
    const line = await raw.request(2, 'tools/call', { name: TOOL, arguments: { topic: 'older client' } }, 60000);
    const v = JSON.parse(line);
    assert.match(v.result.content[0].text, /Research Report: older client/, line);
  } finally {
    await raw.close();
  }
});
