// A strict parser of the Prometheus text exposition format (version 0.0.4), written against the
// format's rules (https://prometheus.io/docs/instrumenting/exposition_formats/) so a scrape that a
// Prometheus server would refuse fails the test:
//   - `# HELP name text` and `# TYPE name counter|gauge|histogram|summary|untyped`, at most one of
//     each per family, TYPE before the family's first sample; other `#` lines are comments;
//   - samples `name{label="value",…} value [timestamp]`: metric names [a-zA-Z_:][a-zA-Z0-9_:]*,
//     label names [a-zA-Z_][a-zA-Z0-9_]*, values with \\, \" and \n escapes only, no label twice;
//   - values are Go floats (NaN, +Inf, -Inf included);
//   - a family's samples are contiguous, and no series (name + label set) appears twice;
//   - histograms: _bucket with an `le` label, cumulative and non-decreasing, ending in le="+Inf"
//     whose count equals _count; _sum present.
// Returns Map<familyName, {type, help, samples:[{name, labels, value}]}>.

const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(s, line) {
  if (s === 'NaN') return NaN;
  if (s === '+Inf' || s === 'Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new Error(`bad value '${s}' in: ${line}`);
  return Number(s);
}

function familyOf(name, families) {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      const f = families.get(base);
      if (f && (f.type === 'histogram' || f.type === 'summary')) return base;
    }
  }
  return name;
}

function parseLabels(text, line) {
  const labels = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`label without '=' in: ${line}`);
    const name = text.slice(i, eq).trim();
    if (!LABEL.test(name)) throw new Error(`bad label name '${name}' in: ${line}`);
    if (name in labels) throw new Error(`label '${name}' twice in: ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`label value not quoted in: ${line}`);
    let j = eq + 2;
    let value = '';
    for (;;) {
      if (j >= text.length) throw new Error(`unterminated label value in: ${line}`);
      const c = text[j];
      if (c === '\\') {
        const n = text[j + 1];
        if (n === '\\') value += '\\';
        else if (n === '"') value += '"';
        else if (n === 'n') value += '\n';
        else throw new Error(`bad escape '\\${n}' in: ${line}`);
        j += 2;
      } else if (c === '"') {
        j++;
        break;
      } else {
        value += c;
        j++;
      }
    }
    labels[name] = value;
    if (j < text.length) {
      if (text[j] !== ',') throw new Error(`expected ',' after label '${name}' in: ${line}`);
      j++;
    }
    i = j;
  }
  return labels;
}

export function parsePrometheusText(text) {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const families = new Map();
  const seenSeries = new Set();
  const closed = new Set();  // families whose samples ended (another family's began)
  let current = null;
  const family = (name) => {
    if (!families.has(name)) families.set(name, { type: 'untyped', help: null, samples: [], typed: false });
    return families.get(name);
  };
  for (const line of text.split('\n').slice(0, -1)) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!m) continue;  // a comment
      const [, kind, name, rest = ''] = m;
      if (!METRIC.test(name)) throw new Error(`bad metric name in: ${line}`);
      const f = family(name);
      if (kind === 'HELP') {
        if (f.help !== null) throw new Error(`second HELP for ${name}`);
        f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      } else {
        if (f.typed) throw new Error(`second TYPE for ${name}`);
        if (f.samples.length) throw new Error(`TYPE for ${name} after its samples`);
        if (!TYPES.has(rest.trim())) throw new Error(`unknown type '${rest}' for ${name}`);
        f.type = rest.trim();
        f.typed = true;
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const [, name, labelText = '', valueText] = m;
    const labels = parseLabels(labelText, line);
    const value = parseValue(valueText, line);
    const base = familyOf(name, families);
    if (current !== base) {
      if (closed.has(base)) throw new Error(`samples of ${base} are not contiguous`);
      if (current) closed.add(current);
      current = base;
    }
    const key = name + JSON.stringify(Object.entries(labels).sort());
    if (seenSeries.has(key)) throw new Error(`series twice: ${line}`);
    seenSeries.add(key);
    family(base).samples.push({ name, labels, value });
  }
  for (const [name, f] of families) if (f.type === 'histogram') checkHistogram(name, f);
  return families;
}

function checkHistogram(name, f) {
  const groups = new Map();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    if (!groups.has(key)) groups.set(key, { buckets: [], sum: null, count: null });
    const g = groups.get(key);
    if (s.name === `${name}_bucket`) {
      if (le === undefined) throw new Error(`${name}_bucket without le`);
      g.buckets.push({ le: parseValue(le, le), value: s.value });
    } else if (s.name === `${name}_sum`) g.sum = s.value;
    else if (s.name === `${name}_count`) g.count = s.value;
    else throw new Error(`unexpected sample ${s.name} in histogram ${name}`);
  }
  for (const [key, g] of groups) {
    if (g.sum === null || g.count === null) throw new Error(`histogram ${name}${key} lacks _sum or _count`);
    const last = g.buckets[g.buckets.length - 1];
    if (!last || last.le !== Infinity) throw new Error(`histogram ${name}${key} does not end with le="+Inf"`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (!(g.buckets[i].le > g.buckets[i - 1].le)) throw new Error(`histogram ${name}: le not increasing`);
      if (g.buckets[i].value < g.buckets[i - 1].value) throw new Error(`histogram ${name}: buckets not cumulative`);
    }
    if (last.value !== g.count) throw new Error(`histogram ${name}: +Inf bucket ${last.value} != _count ${g.count}`);
  }
}

// The value of one series (labels must match exactly the given ones, others ignored), or undefined.
export function sampleValue(families, family, name, labels = {}) {
  const f = families.get(family);
  if (!f) return undefined;
  const s = f.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s?.value;
}
