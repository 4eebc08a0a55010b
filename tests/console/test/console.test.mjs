// The web console end to end, in Debian's chromium driven by playwright-core (issue 17): log in
// through `coffer open`; toggle a tool and see an MCP client's tools/list change; watch an
// invocation appear live; send a chat message to coffer-fake-agent and watch it stream; interrupt
// a turn. Also: the session cookie is HttpOnly and the login link works once; a page of another
// origin cannot use the session; the assets' weight and the first page's load time are measured
// and written to <artefacts>/measurements.json with the screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

import { chromium } from 'playwright-core';

import { Vault, bins, httpClient, waitFor } from '../../e2e/lib/harness.mjs';

const artefacts = process.env.COFFER_CONSOLE_ARTIFACTS || path.resolve('console-artifacts');
const fakeAgent = process.env.COFFER_FAKE_AGENT;
const browserPath = process.env.COFFER_CHROMIUM || '/usr/bin/chromium';
fs.mkdirSync(artefacts, { recursive: true });

let vault;
let browser;
let page;
const measured = {};

async function shot(name) {
  await page.screenshot({ path: path.join(artefacts, `${name}.png`), fullPage: true });
}

async function loginUrl() {
  const r = await vault.cli(['open', '--no-browser']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.opened, false);
  assert.match(r.json.url, /^http:\/\/127\.0\.0\.1:\d+\/console\/login\?code=[0-9a-f]{64}$/);
  assert.ok(!r.json.url.includes(vault.token), 'the API token is never in the URL');
  return r.json.url;
}

async function show(hash, ready) {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForSelector(`#main[data-ready="${ready}"]`);
}

before(async () => {
  assert.ok(fakeAgent && fs.existsSync(fakeAgent), `coffer-fake-agent not found (${fakeAgent})`);
  assert.ok(fs.existsSync(browserPath), `chromium not found at ${browserPath} (scripts/install-deps.sh installs it)`);
  vault = await Vault.create('console');
  await vault.start();
  await vault.cliOk(['mcp', 'add', 'up', '--stdio', bins.upstream]);
  await vault.cliOk(['agent', 'add', 'fake', '--driver', 'claude_code', '--command', fakeAgent]);
  browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

after(async () => {
  fs.writeFileSync(path.join(artefacts, 'measurements.json'), `${JSON.stringify(measured, null, 2)}\n`);
  console.log('console measurements:', JSON.stringify(measured));
  await browser?.close();
  await vault?.cleanup();
});

test('coffer open logs the browser in with a one-time code; the cookie is HttpOnly and the link works once', async () => {
  const url = await loginUrl();
  await page.goto(url);
  await page.waitForSelector('#main[data-ready="resources"]');
  assert.equal(new URL(page.url()).pathname, '/console/');
  assert.equal(new URL(page.url()).search, '', 'the code is gone from the address bar');
  assert.equal(await page.evaluate(() => document.cookie), '', 'the session cookie is HttpOnly');
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name.startsWith('coffer_console_'));
  assert.ok(session?.httpOnly);
  assert.equal(session.sameSite, 'Strict');
  assert.ok(await page.isVisible('tr[data-resource="mcp_server/up"]'));
  await shot('01-resources');

  // The same link again: refused, and a fresh browser without a session sees no data.
  const other = await browser.newPage();
  const again = await other.goto(url);
  assert.equal(again.status(), 401);
  await other.goto(new URL('/console/', url).href);
  await other.waitForSelector('text=Not logged in');
  const api = await other.evaluate(async () => (await fetch('/api/v1/resources')).status);
  assert.equal(api, 401);
  await other.close();
});

test('the first page is light and quick (measured, written to measurements.json)', async () => {
  const base = new URL(page.url()).origin;
  let raw = 0;
  let gz = 0;
  for (const file of ['', 'app.js', 'app.css']) {
    const body = Buffer.from(await (await fetch(`${base}/console/${file}`)).arrayBuffer());
    raw += body.length;
    gz += zlib.gzipSync(body, { level: 9 }).length;
  }
  measured.assets_bytes = raw;
  measured.assets_gzip_bytes = gz;
  assert.ok(gz <= 300 * 1024, `assets weigh ${gz} bytes gzipped`);
  const loads = [];
  for (let i = 0; i < 5; i++) {
    await page.goto('about:blank');
    await page.goto(`${base}/console/`);
    await page.waitForSelector('#main[data-ready="resources"]');
    loads.push(await page.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0];
      // load: the page and its script and style; ready: the resources page drawn with live data
      return { load: n.loadEventEnd - n.startTime, ready: performance.now() - n.startTime };
    }));
  }
  const round = (x) => Math.round(x * 10) / 10;
  measured.first_page_load_ms = loads.map((l) => round(l.load));
  measured.first_page_with_data_ms = loads.map((l) => round(l.ready));
});

test('a page of another origin cannot use the session; a change without the CSRF token is refused', async () => {
  const base = new URL(page.url()).origin;
  const [cookie] = (await page.context().cookies()).filter((c) => c.name.startsWith('coffer_console_'));
  const headers = { Cookie: `${cookie.name}=${cookie.value}` };
  assert.equal((await fetch(`${base}/api/v1/resources`, { headers })).status, 200);
  assert.equal((await fetch(`${base}/api/v1/resources`, { headers: { ...headers, Origin: 'http://127.0.0.1:1' } })).status, 403);
  assert.equal((await fetch(`${base}/api/v1/resources`, { headers: { ...headers, 'Sec-Fetch-Site': 'same-site' } })).status, 403);
  const refused = await fetch(`${base}/api/v1/resources/mcp_server/up/disable`, { method: 'POST', headers });
  assert.equal(refused.status, 403);
  const still = await vault.rest('GET', '/api/v1/resources/mcp_server/up');
  assert.equal(still.json.resource.enabled, true, 'nothing changed');
  // The cookie is no way onto /mcp or /metrics.
  assert.equal((await fetch(`${base}/metrics`, { headers })).status, 401);
});

test('toggling a tool in the console changes what an MCP client lists', async () => {
  const client = await httpClient(vault);
  try {
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    assert.ok((await names()).includes('up__echo'));
    await show('mcp?server=up', 'mcp');
    const toggle = page.locator('tr[data-tool="echo"] input.tool-toggle');
    assert.equal(await toggle.isChecked(), true);
    await toggle.uncheck();
    await page.waitForSelector('tr[data-tool="echo"][data-enabled="false"]');
    await waitFor('tools/list without up__echo', async () => !(await names()).includes('up__echo'));
    await shot('02-tool-disabled');
    const audit = await vault.rest('GET', '/api/v1/audit?limit=20');
    const ev = audit.json.events.find((e) => e.event_type === 'capability_disabled');
    assert.equal(ev.actor, 'ui');
    await page.locator('tr[data-tool="echo"] input.tool-toggle').check();
    await page.waitForSelector('tr[data-tool="echo"][data-enabled="true"]');
    await waitFor('tools/list with up__echo again', async () => (await names()).includes('up__echo'));
  } finally {
    await client.close();
  }
});

test('an invocation appears live, with its latency', async () => {
  await show('invocations', 'invocations');
  await page.waitForSelector('#stream-state:text("live")');
  const before = await page.locator('tr.invocation.live').count();
  const client = await httpClient(vault);
  try {
    await client.callTool({ name: 'up__search', arguments: { query: 'live' } });
    const row = page.locator('tr.invocation.live[data-target="up__search"]').first();
    await row.waitFor();
    assert.equal(await page.locator('tr.invocation.live').count(), before + 1);
    assert.match(await row.locator('td.latency').textContent(), /^\d+ ms$/);
    assert.equal(await row.locator('td').nth(3).textContent(), 'ok');
    await shot('03-invocation-live');
  } finally {
    await client.close();
  }
});

test('a chat message streams into the page, a queued one shows as a chip, and interrupt stops the turn', async () => {
  await show('chat', 'chat');
  await page.selectOption('#new-agent', 'fake');
  await page.fill('#new-cwd', vault.work);
  await page.fill('#new-title', 'console test');
  await page.click('form button[type="submit"]:text("New chat")');
  await page.waitForSelector('#chat-log');
  await page.waitForSelector('#main[data-ready="chat"]');

  // Streamed: the deltas arrive one by one (sleep between lines), the turn ends ok.
  await page.fill('#chat-text', 'hello console chunks=6 sleep=150');
  await page.click('#chat-send');
  await page.waitForSelector('#turn-state:text("running")');
  const bubble = page.locator('.msg.assistant').last();
  await waitFor('a first delta', async () => (await bubble.textContent()).length > 0, { timeout: 15000 });
  const partial = await bubble.textContent();
  await shot('04-chat-streaming');
  await page.waitForSelector('[data-turn-status="ok"]', { timeout: 30000 });
  const full = await bubble.textContent();
  assert.ok(full.length > partial.length, `the text grew while streaming (${partial.length} → ${full.length})`);
  await shot('05-chat-done');

  // A long turn, a second message queued behind it (a chip), then interrupt.
  await page.fill('#chat-text', 'please wait hang=60000');
  await page.click('#chat-send');
  await page.waitForSelector('#turn-state:text("running")');
  await page.fill('#chat-text', 'queued behind');
  await page.click('#chat-send');
  await page.waitForSelector('#queue .chip');
  assert.match(await page.locator('#queue .chip').first().textContent(), /queued behind/);
  await shot('06-chat-queued');
  await page.click('#chat-interrupt');
  await page.waitForSelector('[data-turn-status="interrupted"]', { timeout: 20000 });
  await page.waitForSelector('#resume');  // interrupt pauses the queue
  await shot('07-chat-interrupted');
  const { json } = await vault.rest('GET', '/api/v1/conversations');
  const conv = json.conversations.find((c) => c.title === 'console test');
  assert.equal(conv.state.running, false);
  assert.equal(conv.state.paused, true);
  assert.equal(conv.state.pending, 1);
});

test('credentials (names only), audit filters, knowledge-base search and skill drift work from their pages', async () => {
  // Credentials: set through the form (the value never comes back), then delete.
  await show('credentials', 'credentials');
  await page.fill('#cred-ref', 'console-secret');
  await page.fill('#cred-value', 's3cr3t-value-from-the-console');
  await page.click('form button[type="submit"]:text("Save")');
  await page.waitForSelector('#main[data-ready="credentials"] tr[data-ref="console-secret"]');
  assert.ok(!(await page.content()).includes('s3cr3t-value-from-the-console'), 'the value is not shown');
  const stored = await vault.rest('GET', '/api/v1/credentials/console-secret');
  assert.equal(stored.json.credential.value, 's3cr3t-value-from-the-console');
  await shot('08-credentials');
  await page.click('tr[data-ref="console-secret"] button.danger');
  await waitFor('the credential row to go', async () => (await page.locator('tr[data-ref="console-secret"]').count()) === 0);
  assert.equal((await vault.rest('GET', '/api/v1/credentials/console-secret/exists')).json.exists, false);

  // Audit: filtered to what the console did.
  await show('audit', 'audit');
  await page.selectOption('#audit-type', 'credential_set');
  await page.selectOption('#audit-actor', 'ui');
  const rows = page.locator('tr.audit-row');
  assert.equal(await rows.count(), 1);
  assert.match(await rows.first().textContent(), /console-secret/);
  await page.fill('#audit-text', 'no-such-target-anywhere');
  assert.equal(await rows.count(), 0);
  await shot('09-audit');

  // Knowledge base search.
  const notes = path.join(vault.dir, 'notes');
  fs.mkdirSync(notes);
  fs.writeFileSync(path.join(notes, 'garden.md'), '# Garden\n\nThe heliotrope blooms in the console garden.\n');
  const kb = await vault.rest('POST', '/api/v1/resources', { kind: 'knowledge_base', name: 'notes', config: { path: notes } });
  assert.equal(kb.status, 201, kb.text);
  await vault.rest('POST', '/api/v1/resources/knowledge_base/notes/actions/reindex', { wait: true });
  await show('kb', 'kb');
  await page.fill('#kb-query', 'heliotrope');
  await page.click('form button[type="submit"]:text("Search")');
  await page.waitForSelector('.kb-hit');
  assert.match(await page.locator('.kb-hit').first().textContent(), /garden\.md/);
  await shot('10-knowledge');

  // A skill with no targets shows its state; "Check drift" reports.
  const src = path.join(vault.dir, 'skill-src');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'SKILL.md'), '---\nname: tidy\ndescription: Helps with tidy tasks.\n---\n# tidy\n');
  const sk = await vault.rest('POST', '/api/v1/resources', { kind: 'skill', name: 'tidy', config: { source: src, targets: [] } });
  assert.equal(sk.status, 201, sk.text);
  await show('skills', 'skills');
  assert.ok(await page.isVisible('tr[data-skill="tidy"] .drift'));
  await page.click('button:text("Check drift")');
  await page.waitForSelector('#skill-report:not([hidden])');
  await shot('11-skills');
});

test('a resource is disabled and enabled again from the resources page, with its status shown', async () => {
  await show('resources', 'resources');
  const row = 'tr[data-resource="mcp_server/up"]';
  assert.ok((await page.locator(`${row} td.state`).textContent()).length > 0);
  await page.click(`${row} button.toggle:text("Disable")`);
  await page.waitForSelector(`${row} button.toggle:text("Enable")`);
  assert.equal((await vault.rest('GET', '/api/v1/resources/mcp_server/up')).json.resource.enabled, false);
  assert.equal(await page.locator(`${row} td.enabled`).textContent(), 'no');
  await shot('12-resource-disabled');
  await page.click(`${row} button.toggle:text("Enable")`);
  await page.waitForSelector(`${row} button.toggle:text("Disable")`);
  assert.equal((await vault.rest('GET', '/api/v1/resources/mcp_server/up')).json.resource.enabled, true);
  const audit = await vault.rest('GET', '/api/v1/audit?limit=50');
  assert.ok(audit.json.events.some((e) => e.event_type === 'resource_disabled' && e.actor === 'ui'));
});

test('with a graphical session, coffer open hands xdg-open a private redirect page, never the code on a command line', async () => {
  const bin = path.join(vault.dir, 'fake-bin');
  fs.mkdirSync(bin, { recursive: true });
  const argvLog = path.join(vault.dir, 'xdg-open.args');
  // Written aside and renamed, so the test never reads the file between its creation and its words.
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvLog}.tmp' && mv '${argvLog}.tmp' '${argvLog}'\n`, { mode: 0o755 });
  const { execFile } = await import('node:child_process');
  const out = await new Promise((resolve) => {
    execFile(bins.coffer, ['--json', 'open'], { env: vault.env({ DISPLAY: ':99', PATH: `${bin}:${process.env.PATH}` }) },
      (err, stdout, stderr) => resolve({ err, stdout, stderr }));
  });
  assert.equal(out.err, null, out.stderr);
  const r = JSON.parse(out.stdout);
  assert.equal(r.opened, true);
  await waitFor('xdg-open to run', () => fs.existsSync(argvLog));
  const args = fs.readFileSync(argvLog, 'utf8').trim().split('\n');
  assert.deepEqual(args, [path.join(vault.home, 'console-login.html')]);
  assert.ok(!args.join(' ').includes('code='), 'no code on the command line');
  const st = fs.statSync(args[0]);
  assert.equal(st.mode & 0o777, 0o600);
  assert.ok(fs.readFileSync(args[0], 'utf8').includes(r.url.replace(/&/g, '&amp;')), 'the page redirects to the login URL');
});
