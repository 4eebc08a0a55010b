// Coffer web console: plain JavaScript over the daemon's REST API, authenticated by the session
// cookie (set at /console/login) plus the session's CSRF token on every change. Text from the
// daemon is always inserted as text (textContent), never as HTML.
'use strict';

const state = { csrf: null, streams: [] };

// ---- helpers -------------------------------------------------------------------------------
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'checked' || k === 'value' || k === 'disabled') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
  return el;
}
const $ = (sel) => document.querySelector(sel);
const enc = encodeURIComponent;

async function api(method, path, body) {
  const headers = { 'X-Coffer-Actor': 'ui' };
  if (method !== 'GET') headers['X-Coffer-CSRF'] = state.csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!res.ok) {
    const msg = json?.error?.message || json?.error || `${res.status} ${res.statusText}`;
    if (res.status === 401) loggedOut();
    throw new Error(msg);
  }
  return json;
}

function notice(text) {
  const n = $('#notice');
  n.textContent = text || '';
  n.hidden = !text;
}
const guard = (fn) => async (...a) => { try { notice(''); await fn(...a); } catch (e) { notice(e.message); } };
const fmtTime = (ms) => new Date(ms).toLocaleTimeString();
const statusOf = (r) => r.status?.plugin?.health || r.status?.state || (r.enabled ? 'enabled' : 'disabled');

function openStream(path, handlers) {
  const es = new EventSource(path, { withCredentials: true });
  for (const [type, fn] of Object.entries(handlers)) es.addEventListener(type, (e) => fn(JSON.parse(e.data), e));
  state.streams.push(es);
  return es;
}
function closeStreams() { for (const s of state.streams) s.close(); state.streams = []; }

function loggedOut() {
  closeStreams();
  $('#logout').hidden = true;
  $('#main').replaceChildren(h('h2', {}, 'Not logged in'),
    h('p', {}, 'Run ', h('code', {}, 'coffer open'), ' in a terminal and follow the link it prints.'));
}

// ---- pages ---------------------------------------------------------------------------------
const pages = {};

pages.resources = async (main) => {
  const { resources } = await api('GET', '/api/v1/resources');
  // Each resource's live status, asked for all at once.
  const shown = await Promise.all(resources.map((r) => api('GET', `/api/v1/resources/${enc(r.kind)}/${enc(r.name)}`)
    .then((x) => x.resource, () => r)));
  const rows = resources.map((r, i) => (
    h('tr', { 'data-resource': `${r.kind}/${r.name}` },
      h('td', {}, r.kind), h('td', {}, r.name),
      h('td', { class: 'enabled' }, r.enabled ? 'yes' : 'no'),
      h('td', { class: 'state' }, h('span', { class: 'pill' }, statusOf(shown[i]))),
      h('td', {}, h('button', { type: 'button', class: 'toggle', onclick: guard(async () => {
        await api('POST', `/api/v1/resources/${enc(r.kind)}/${enc(r.name)}/${r.enabled ? 'disable' : 'enable'}`);
        await render();
      }) }, r.enabled ? 'Disable' : 'Enable')))));
  main.replaceChildren(h('h2', {}, 'Resources'),
    rows.length ? h('table', {}, h('thead', {}, h('tr', {}, ['Kind', 'Name', 'Enabled', 'Status', ''].map((t) => h('th', {}, t)))), h('tbody', {}, rows))
      : h('p', { class: 'muted' }, 'No resources yet.'));
};

pages.mcp = async (main, params) => {
  const { resources } = await api('GET', '/api/v1/resources?kind=mcp_server');
  const server = params.get('server') || resources[0]?.name;
  const select = h('select', { id: 'server', onchange: (e) => { location.hash = `mcp?server=${enc(e.target.value)}`; } },
    resources.map((r) => h('option', { value: r.name, selected: r.name === server ? true : undefined }, r.name)));
  if (server) select.value = server;
  main.replaceChildren(h('h2', {}, 'MCP servers and their tools'), h('div', { class: 'row' }, h('label', {}, 'Server ', select)));
  if (!server) return main.append(h('p', { class: 'muted' }, 'No MCP server is registered (coffer mcp add …).'));
  const caps = await api('GET', `/api/v1/mcp/servers/${enc(server)}/capabilities`);
  const section = (type, items) => h('section', {},
    h('h3', {}, `${type[0].toUpperCase()}${type.slice(1)}`),
    items.length ? h('table', { id: `${type}-table` }, h('tbody', {}, items.map((c) => h('tr', { 'data-tool': c.name },
      h('td', {}, h('input', { type: 'checkbox', class: 'tool-toggle', checked: c.enabled, 'aria-label': `enable ${c.name}`,
        onchange: guard(async (e) => {
          const on = e.target.checked;
          await api('POST', `/api/v1/mcp/servers/${enc(server)}/${type}/${on ? 'enable' : 'disable'}`, { name: c.name });
          e.target.closest('tr').dataset.enabled = String(on);
        }) })),
      h('td', {}, h('code', {}, c.exposed_name || c.name)),
      h('td', { class: 'muted' }, c.description || '')))))
      : h('p', { class: 'muted' }, 'none'));
  main.append(h('p', { class: 'muted' }, caps.live ? 'Listed live by the server.' : `Stored preferences (server not running${caps.live_error ? `: ${caps.live_error}` : ''}).`),
    section('tools', caps.tools), section('prompts', caps.prompts), section('resources', caps.resources),
    section('templates', caps.templates || []));
};

pages.invocations = async (main) => {
  const tbody = h('tbody', {});
  const row = (i, live) => h('tr', { class: live ? 'invocation live' : 'invocation', 'data-target': i.target },
    h('td', {}, fmtTime(typeof i.ts === 'number' ? i.ts : Date.parse(i.ts))), h('td', {}, i.server), h('td', {}, h('code', {}, i.target)),
    h('td', { class: i.outcome === 'ok' ? 'ok' : 'bad' }, i.outcome), h('td', { class: 'latency' }, `${i.duration_ms} ms`), h('td', { class: 'muted' }, i.agent || ''));
  const live = h('span', { id: 'stream-state', class: 'pill' }, 'connecting');
  main.replaceChildren(h('h2', {}, 'Invocations ', live),
    h('table', {}, h('thead', {}, h('tr', {}, ['Time', 'Server', 'Target', 'Outcome', 'Latency', 'Agent'].map((t) => h('th', {}, t)))), tbody));
  const { invocations } = await api('GET', '/api/v1/mcp/invocations?limit=50');
  tbody.append(...invocations.map((i) => row(i, false)));
  const es = openStream('/api/v1/mcp/invocations/events', { invocation: (i) => tbody.prepend(row(i, true)) });
  es.onopen = () => { live.textContent = 'live'; };
  es.onerror = () => { live.textContent = 'reconnecting'; };
};

pages.audit = async (main) => {
  const { events } = await api('GET', '/api/v1/audit?limit=500');
  const types = [...new Set(events.map((e) => e.event_type))].sort();
  const actors = [...new Set(events.map((e) => e.actor))].sort();
  const type = h('select', { id: 'audit-type' }, h('option', { value: '' }, 'any event'), types.map((t) => h('option', { value: t }, t)));
  const actor = h('select', { id: 'audit-actor' }, h('option', { value: '' }, 'any actor'), actors.map((a) => h('option', { value: a }, a)));
  const text = h('input', { id: 'audit-text', type: 'search', placeholder: 'target or payload contains' });
  const tbody = h('tbody', {});
  const draw = () => {
    const q = text.value.toLowerCase();
    tbody.replaceChildren(...events
      .filter((e) => (!type.value || e.event_type === type.value) && (!actor.value || e.actor === actor.value) &&
        (!q || `${e.target} ${JSON.stringify(e.payload)}`.toLowerCase().includes(q)))
      .map((e) => h('tr', { class: 'audit-row' }, h('td', {}, e.ts), h('td', {}, e.actor), h('td', {}, e.event_type), h('td', {}, e.target),
        h('td', { class: 'muted' }, JSON.stringify(e.payload)))));
  };
  for (const c of [type, actor]) c.addEventListener('change', draw);
  text.addEventListener('input', draw);
  main.replaceChildren(h('h2', {}, 'Audit'), h('div', { class: 'row' }, type, actor, text),
    h('table', {}, h('thead', {}, h('tr', {}, ['Time', 'Actor', 'Event', 'Target', 'Payload'].map((t) => h('th', {}, t)))), tbody));
  draw();
};

pages.credentials = async (main) => {
  const { credentials } = await api('GET', '/api/v1/credentials');
  const ref = h('input', { id: 'cred-ref', placeholder: 'name', required: true, autocomplete: 'off' });
  const value = h('input', { id: 'cred-value', type: 'password', placeholder: 'value', required: true, autocomplete: 'new-password' });
  const form = h('form', { class: 'row', onsubmit: guard(async (e) => {
    e.preventDefault();
    await api('POST', '/api/v1/credentials', { ref: ref.value, value: value.value });
    value.value = '';
    await render();
  }) }, ref, value, h('button', { class: 'primary', type: 'submit' }, 'Save'));
  main.replaceChildren(h('h2', {}, 'Credentials'), h('p', { class: 'muted' }, 'Values are write-only here: names, dates and users only.'), form,
    h('table', {}, h('thead', {}, h('tr', {}, ['Name', 'Updated', 'Used by', ''].map((t) => h('th', {}, t)))),
      h('tbody', {}, credentials.map((c) => h('tr', { 'data-ref': c.ref }, h('td', {}, h('code', {}, c.ref)), h('td', {}, c.updated_at),
        h('td', {}, (c.used_by || []).join(', ')),
        h('td', {}, h('button', { type: 'button', class: 'danger', onclick: guard(async () => {
          await api('DELETE', `/api/v1/credentials/${enc(c.ref)}`);
          await render();
        }) }, 'Delete')))))));
};

pages.skills = async (main) => {
  const { resources } = await api('GET', '/api/v1/resources?kind=skill');
  const out = h('pre', { id: 'skill-report', hidden: true });
  const run = (repair) => guard(async () => {
    const { result } = await api('POST', '/api/v1/kinds/skill/actions/verify', repair ? { repair: true } : {});
    out.hidden = false;
    out.textContent = JSON.stringify(result.summary ?? result, null, 2);
    if (repair) await render();
  });
  const rows = [];
  for (const r of resources) {
    const shown = (await api('GET', `/api/v1/resources/skill/${enc(r.name)}`)).resource;
    const p = shown.status?.plugin || {};
    rows.push(h('tr', { 'data-skill': r.name }, h('td', {}, r.name), h('td', {}, h('span', { class: 'pill drift' }, p.health || statusOf(shown))),
      h('td', {}, (p.targets || []).map((t) => `${t.target}: ${t.state}`).join(', ')),
      h('td', {}, h('button', { type: 'button', onclick: guard(async () => {
        await api('POST', `/api/v1/resources/skill/${enc(r.name)}/actions/verify`, { repair: true });
        await render();
      }) }, 'Repair'))));
  }
  main.replaceChildren(h('h2', {}, 'Skills'),
    h('div', { class: 'row' }, h('button', { type: 'button', onclick: run(false) }, 'Check drift'), h('button', { type: 'button', class: 'primary', onclick: run(true) }, 'Repair all')),
    rows.length ? h('table', {}, h('thead', {}, h('tr', {}, ['Skill', 'State', 'Targets', ''].map((t) => h('th', {}, t)))), h('tbody', {}, rows))
      : h('p', { class: 'muted' }, 'No skills yet.'), out);
};

pages.kb = async (main) => {
  const q = h('input', { id: 'kb-query', type: 'search', placeholder: 'search every knowledge base', size: 50 });
  const results = h('div', { id: 'kb-results' });
  const form = h('form', { class: 'row', onsubmit: guard(async (e) => {
    e.preventDefault();
    const { result } = await api('POST', '/api/v1/kinds/knowledge_base/actions/search', { query: q.value });
    results.replaceChildren(...(result.results.length ? result.results.map((r) => h('div', { class: 'kb-hit' },
      h('div', {}, h('strong', {}, `${r.kb}: ${r.path}`), ' ', h('span', { class: 'muted' }, `${r.heading || ''} · ${r.engine} ${Number(r.score).toFixed(3)}`)),
      h('pre', {}, r.snippet))) : [h('p', { class: 'muted' }, 'No results.')]));
  }) }, q, h('button', { class: 'primary', type: 'submit' }, 'Search'));
  main.replaceChildren(h('h2', {}, 'Knowledge bases'), form, results);
};

pages.chat = async (main, params) => {
  const [{ conversations }, { agents }] = await Promise.all([api('GET', '/api/v1/conversations'), api('GET', '/api/v1/agents')]);
  const current = params.get('id');
  const list = h('ul', { class: 'convs' }, conversations.map((c) => h('li', { class: c.id === current ? 'active' : '', 'data-conversation': c.id,
    onclick: () => { location.hash = `chat?id=${enc(c.id)}`; } }, c.title || c.id.slice(0, 8), ' ', h('span', { class: 'muted' }, c.agent))));
  const agent = h('select', { id: 'new-agent' }, agents.map((a) => h('option', { value: a.name }, a.name)));
  const cwd = h('input', { id: 'new-cwd', placeholder: 'working folder (absolute)', required: true });
  const title = h('input', { id: 'new-title', placeholder: 'title' });
  const create = h('form', { onsubmit: guard(async (e) => {
    e.preventDefault();
    const { conversation } = await api('POST', '/api/v1/conversations', { agent: agent.value, cwd: cwd.value, title: title.value || undefined });
    location.hash = `chat?id=${enc(conversation.id)}`;
  }) }, h('div', { class: 'row' }, agent), h('div', { class: 'row' }, cwd), h('div', { class: 'row' }, title, h('button', { type: 'submit' }, 'New chat')));
  const right = h('div', {});
  main.replaceChildren(h('h2', {}, 'Chat'), h('div', { class: 'chat' }, h('div', {}, list, h('hr'), create), right));
  if (current) await conversationView(right, current);
};

async function conversationView(root, id) {
  const { conversation } = await api('GET', `/api/v1/conversations/${enc(id)}`);
  const log = h('div', { class: 'log', id: 'chat-log' });
  const chips = h('div', { id: 'queue' });
  const turnState = h('span', { id: 'turn-state', class: 'pill' }, 'idle');
  const add = (role, text, turn) => {
    const m = h('div', { class: `msg ${role}`, 'data-turn': turn }, text);
    log.append(m);
    log.scrollTop = log.scrollHeight;
    return m;
  };
  // Committed messages; the stream then replays the current turn, which replaces its own.
  for (const m of conversation.messages) add(m.role === 'user' ? 'user' : 'assistant', m.text, m.turn_id);
  let bubble = null;
  const drawQueue = (q) => chips.replaceChildren(...(q.pending || []).map((p) => h('span', { class: 'chip', 'data-pending': p.id }, `#${p.position} ${p.text_preview}`)),
    ...(q.paused ? [h('button', { type: 'button', id: 'resume', onclick: guard(() => api('POST', `/api/v1/conversations/${enc(id)}/queue/resume`)) }, 'Resume queue')] : []));
  const text = h('textarea', { id: 'chat-text', rows: 2, cols: 60, placeholder: 'Message the agent' });
  const send = h('form', { class: 'row', onsubmit: guard(async (e) => {
    e.preventDefault();
    if (!text.value.trim()) return;
    await api('POST', `/api/v1/conversations/${enc(id)}/messages`, { text: text.value, source: 'ui' });
    text.value = '';
  }) }, text, h('button', { class: 'primary', type: 'submit', id: 'chat-send' }, 'Send'),
    h('button', { type: 'button', class: 'danger', id: 'chat-interrupt', onclick: guard(() => api('POST', `/api/v1/conversations/${enc(id)}/interrupt`)) }, 'Interrupt'));
  root.replaceChildren(h('h3', {}, conversation.title || conversation.id, ' ', turnState), h('p', { class: 'muted' }, `${conversation.agent} in ${conversation.cwd}`), log, chips, send);
  openStream(`/api/v1/conversations/${enc(id)}/events`, {
    state: (s) => { turnState.textContent = s.running ? 'running' : 'idle'; if (s.replay === 0) bubble = null; },
    'turn.started': (e) => {
      for (const m of log.querySelectorAll('.msg')) if (m.dataset.turn === e.turn_id) m.remove();
      turnState.textContent = 'running';
      add('user', e.text, e.turn_id);
      bubble = add('assistant', '', e.turn_id);
    },
    'text.delta': (e) => { if (!bubble) bubble = add('assistant', ''); bubble.append(e.text); log.scrollTop = log.scrollHeight; },
    'tool.started': (e) => add('status', `⚙ ${e.name || e.kind}`, e.turn_id),
    'tool.completed': (e) => add('status', e.ok ? '✓ tool done' : '✗ tool failed', e.turn_id),
    warning: (e) => add('status', `warning: ${e.message}`),
    'turn.completed': (e) => {
      turnState.textContent = e.status === 'ok' ? 'idle' : e.status;
      add('status', `turn ${e.status}${e.error ? `: ${e.error}` : ''}`, e.turn_id).dataset.turnStatus = e.status;
      bubble = null;
    },
    'queue.changed': drawQueue,
    resync: () => { log.replaceChildren(); bubble = null; },
  });
  drawQueue(await api('GET', `/api/v1/conversations/${enc(id)}/queue`));
}

// ---- routing ---------------------------------------------------------------------------------
async function render() {
  closeStreams();
  const [name, query] = (location.hash.slice(1) || 'resources').split('?');
  const page = pages[name] ? name : 'resources';
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.getAttribute('href') === `#${page}`);
  const main = $('#main');
  main.dataset.page = page;
  try {
    notice('');
    await pages[page](main, new URLSearchParams(query || ''));
    main.dataset.ready = page;
  } catch (e) {
    notice(e.message);
  }
}

async function start() {
  const res = await fetch('/console/session', { credentials: 'same-origin' });
  if (!res.ok) return loggedOut();
  state.csrf = (await res.json()).csrf;
  const out = $('#logout');
  out.hidden = false;
  out.addEventListener('click', guard(async () => {
    await fetch('/console/logout', { method: 'POST', credentials: 'same-origin', headers: { 'X-Coffer-CSRF': state.csrf } });
    loggedOut();
  }));
  window.addEventListener('hashchange', render);
  await render();
}

start();
