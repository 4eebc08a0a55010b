// The qmd side of the keyword-path comparison (see README.md next to this file). It asks qmd's
// library (@tobilu/qmd, its BM25 full-text search: `qmd search`, no model) what Coffer's
// benchmark and evaluation ask lib/retrieval, on the same files, and prints the same figures.
//
//   node compare.mjs speed   <corpus dir> <queries.txt>  <work dir>
//   node compare.mjs quality <corpus dir> <queries.json> <work dir>
//
// speed: full index, keyword search p50/p95 over the queries (limit 10, in process, after five
// warm-up queries), re-sync with nothing changed, re-sync after editing one file, RSS growth.
// quality: recall@5, recall@1 and MRR over the judged queries, counted as the Coffer evaluation
// counts them (the first 50 distinct documents; a query is found at k when a judged document is
// among the first k). Prints one JSON object on the last line as well, for the runner.
import { createStore } from '@tobilu/qmd';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [mode, corpus, queriesPath, work] = process.argv.slice(2);
if (!['speed', 'quality'].includes(mode) || !corpus || !queriesPath || !work) {
  console.error('usage: node compare.mjs speed|quality <corpus dir> <queries> <work dir>');
  process.exit(2);
}
mkdirSync(work, { recursive: true });

const now = () => Number(process.hrtime.bigint()) / 1e6;
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const rssKb = () => {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : 0;
};
const relative = (r) => r.filepath.replace(/^qmd:\/\/kb\//, '');

const rss0 = rssKb();
const store = await createStore({
  dbPath: join(work, `qmd-${mode}.sqlite`),
  config: { collections: { kb: { path: corpus, pattern: '**/*.md' } } },
});
let t0 = now(), c0 = cpuMs();
const indexed = await store.update();
const indexMs = now() - t0, indexCpu = cpuMs() - c0;
const out = { engine: 'qmd', version: JSON.parse(readFileSync(new URL('./node_modules/@tobilu/qmd/package.json', import.meta.url))).version,
              node: process.version, mode, documents: indexed.indexed, index_s: indexMs / 1000, index_cpu_s: indexCpu / 1000 };
console.log(`qmd ${out.version} on node ${process.version}: full index ${out.index_s.toFixed(2)} s, cpu ${out.index_cpu_s.toFixed(2)} s (${indexed.indexed} documents)`);

if (mode === 'speed') {
  const qs = readFileSync(queriesPath, 'utf8').split('\n').filter((q) => q.length);
  for (const q of qs.slice(0, 5)) await store.searchLex(q, { limit: 10 });
  const ms = [], cpu = [];
  let hits = 0;
  for (const q of qs) {
    t0 = now(); c0 = cpuMs();
    const r = await store.searchLex(q, { limit: 10 });
    ms.push(now() - t0); cpu.push(cpuMs() - c0);
    hits += r.length;
  }
  Object.assign(out, { queries: qs.length, keyword_p50_ms: pct(ms, 0.5), keyword_p95_ms: pct(ms, 0.95), keyword_cpu_p50_ms: pct(cpu, 0.5),
                       hits_per_query: hits / qs.length });
  console.log(`keyword search  p50 ${out.keyword_p50_ms.toFixed(3)} ms  p95 ${out.keyword_p95_ms.toFixed(3)} ms  cpu p50 ${out.keyword_cpu_p50_ms.toFixed(3)} ms  (${qs.length} queries, ${out.hits_per_query.toFixed(1)} hits per query)`);
  t0 = now();
  await store.update();
  out.resync_unchanged_ms = now() - t0;
  const victim = join(corpus, 'dir7', 'doc7.md');
  const original = readFileSync(victim, 'utf8');
  const edits = [];
  for (let run = 0; run < 5; ++run) {
    writeFileSync(victim, original.split('\n## appended')[0] + `\n## appended\n\nedit ${run} made by the qmd comparison\n`);
    t0 = now();
    await store.update();
    edits.push(now() - t0);
  }
  writeFileSync(victim, original);
  out.resync_one_edit_p50_ms = pct(edits, 0.5);
  out.rss_growth_mb = (rssKb() - rss0) / 1024;
  console.log(`re-sync, nothing changed: ${out.resync_unchanged_ms.toFixed(1)} ms; after editing one file: p50 ${out.resync_one_edit_p50_ms.toFixed(1)} ms; RSS growth ${out.rss_growth_mb.toFixed(1)} MB`);
} else {
  const set = JSON.parse(readFileSync(queriesPath, 'utf8')).queries;
  let r5 = 0, r1 = 0, rr = 0, empty = 0;
  const by = {};
  for (const q of set) {
    const hits = await store.searchLex(q.q, { limit: 50 });
    if (!hits.length) ++empty;
    const distinct = [...new Set(hits.map(relative))];
    const i = distinct.findIndex((p) => q.relevant.includes(p));
    const rank = i < 0 ? 0 : i + 1;
    const lang = q.lang ?? (/[\u3400-\u9fff]/.test(q.q) ? 'zh' : 'en');
    for (const key of ['all', q.type, lang]) {
      const t = (by[key] ??= { n: 0, r5: 0, rr: 0 });
      ++t.n; t.r5 += rank >= 1 && rank <= 5; t.rr += rank ? 1 / rank : 0;
    }
    r5 += rank >= 1 && rank <= 5; r1 += rank === 1; rr += rank ? 1 / rank : 0;
  }
  Object.assign(out, { queries: set.length, recall5: r5 / set.length, recall1: r1 / set.length, mrr: rr / set.length, empty_answers: empty, by: {} });
  for (const [k, t] of Object.entries(by)) out.by[k] = { n: t.n, recall5: t.r5 / t.n, mrr: t.rr / t.n };
  console.log(`keyword (qmd search): recall@5 ${out.recall5.toFixed(3)}  recall@1 ${out.recall1.toFixed(3)}  MRR ${out.mrr.toFixed(3)}  (${set.length} queries, ${empty} empty answers)`);
  for (const [k, t] of Object.entries(out.by)) if (k !== 'all') console.log(`  ${k.padEnd(11)} n=${String(t.n).padStart(3)}  recall@5 ${t.recall5.toFixed(3)}  MRR ${t.mrr.toFixed(3)}`);
}
await store.close?.();
console.log(JSON.stringify(out));
