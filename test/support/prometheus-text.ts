/**
 * A strict parser of Prometheus' text exposition format (version 0.0.4), for tests of
 * `/metrics`: it throws on the first line a scraper could misread. It checks the metric and
 * label name charsets, the escaping of HELP text and label values, that a family's HELP and TYPE
 * come once and before its samples, that a family's samples are contiguous, and that every
 * histogram series has ascending cumulative `_bucket`s ending at `le="+Inf"`, a `_sum`, and a
 * `_count` equal to its `+Inf` bucket. prom-client writes the format but has no parser.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string | undefined;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function parseValue(raw: string, line: string): number {
  if (raw === '+Inf') return Number.POSITIVE_INFINITY;
  if (raw === '-Inf') return Number.NEGATIVE_INFINITY;
  if (raw === 'NaN') return Number.NaN;
  if (!FLOAT.test(raw)) throw new Error(`not a value: "${raw}" in ${line}`);
  return Number(raw);
}

/** HELP text: only `\\` and `\n` are escapes. */
function unescapeHelp(text: string, line: string): string {
  return text.replace(/\\(.?)/g, (_, next: string) => {
    if (next === '\\') return '\\';
    if (next === 'n') return '\n';
    throw new Error(`bad escape in HELP: ${line}`);
  });
}

/** `{a="x",b="y"}` (a trailing comma allowed); label values escape `\\`, `\"` and `\n`. */
function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let at = 0;
  while (at < text.length) {
    const eq = text.indexOf('=', at);
    if (eq === -1) throw new Error(`bad labels: ${line}`);
    const name = text.slice(at, eq);
    if (!LABEL_NAME.test(name) || name.startsWith('__')) {
      throw new Error(`bad label name "${name}": ${line}`);
    }
    if (name in labels) throw new Error(`label "${name}" twice: ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`label value not quoted: ${line}`);
    let value = '';
    let i = eq + 2;
    for (;;) {
      const c = text[i];
      if (c === undefined) throw new Error(`unterminated label value: ${line}`);
      if (c === '"') break;
      if (c === '\n') throw new Error(`raw newline in label value: ${line}`);
      if (c === '\\') {
        const next = text[i + 1];
        if (next === '\\' || next === '"') value += next;
        else if (next === 'n') value += '\n';
        else throw new Error(`bad escape in label value: ${line}`);
        i += 2;
        continue;
      }
      value += c;
      i += 1;
    }
    labels[name] = value;
    at = i + 1;
    if (text[at] === ',') at += 1;
    else if (at !== text.length) throw new Error(`bad label separator: ${line}`);
  }
  return labels;
}

/** The family a sample belongs to: a histogram's `_bucket`, `_sum`, `_count` are its own. */
function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(sample);
  if (direct !== undefined) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const family = families.get(sample.slice(0, -suffix.length));
    if (
      family &&
      (family.type === 'histogram' || (family.type === 'summary' && suffix !== '_bucket'))
    ) {
      return family;
    }
  }
  return undefined;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const one = series.get(key) ?? { buckets: [] };
    series.set(key, one);
    if (sample.name === `${family.name}_bucket`) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      one.buckets.push([parseValue(le, le), sample.value]);
    } else if (sample.name === `${family.name}_sum`) one.sum = sample.value;
    else if (sample.name === `${family.name}_count`) one.count = sample.value;
    else throw new Error(`${family.name}: stray sample ${sample.name}`);
  }
  for (const [key, one] of series) {
    const where = `${family.name}${key}`;
    if (one.buckets.length === 0) throw new Error(`${where}: no buckets`);
    for (let i = 1; i < one.buckets.length; i++) {
      const [le, count] = one.buckets[i] as [number, number];
      const [previousLe, previousCount] = one.buckets[i - 1] as [number, number];
      if (!(le > previousLe)) throw new Error(`${where}: le not ascending`);
      if (count < previousCount) throw new Error(`${where}: buckets not cumulative`);
    }
    const [lastLe, lastCount] = one.buckets.at(-1) as [number, number];
    if (lastLe !== Number.POSITIVE_INFINITY) throw new Error(`${where}: no le="+Inf" bucket`);
    if (one.sum === undefined) throw new Error(`${where}: no _sum`);
    if (one.count !== lastCount) throw new Error(`${where}: _count is not the +Inf bucket`);
  }
}

export function parsePrometheusText(text: string): Map<string, Family> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition does not end in \\n');
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  let current: Family | undefined;
  const declare = (name: string, line: string): Family => {
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name "${name}": ${line}`);
    let family = families.get(name);
    if (family === undefined) {
      if (closed.has(name)) throw new Error(`family ${name} declared again: ${line}`);
      family = { name, type: 'untyped', help: undefined, samples: [] };
      families.set(name, family);
    } else if (family.samples.length > 0) {
      throw new Error(`HELP or TYPE of ${name} after its samples: ${line}`);
    }
    if (current !== undefined && current !== family) closed.add(current.name);
    current = family;
    return family;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const help = /^# HELP (\S+) ?(.*)$/.exec(line);
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (help) {
        const family = declare(help[1] as string, line);
        if (family.help !== undefined) throw new Error(`HELP twice: ${line}`);
        family.help = unescapeHelp(help[2] as string, line);
      } else if (type) {
        const family = declare(type[1] as string, line);
        if (!TYPES.has(type[2] as string)) throw new Error(`unknown type: ${line}`);
        if (family.samples.length > 0 || family.type !== 'untyped') {
          throw new Error(`TYPE twice or late: ${line}`);
        }
        family.type = type[2] as MetricType;
      }
      continue;
    }
    const match = /^([^\s{]+)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const name = match[1] as string;
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name "${name}": ${line}`);
    const sample: Sample = {
      name,
      labels: parseLabels(match[2] ?? '', line),
      value: parseValue(match[3] as string, line),
    };
    let family = familyOf(name, families);
    if (family === undefined) family = declare(name, line);
    if (family !== current) {
      if (closed.has(family.name) || family.samples.length > 0) {
        throw new Error(`samples of ${family.name} are not contiguous: ${line}`);
      }
      if (current !== undefined) closed.add(current.name);
      current = family;
    }
    if (family.type === 'counter' && !(sample.value >= 0)) {
      throw new Error(`negative counter: ${line}`);
    }
    const key = `${name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (
      family.samples.some(
        (s) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}` === key,
      )
    ) {
      throw new Error(`series written twice: ${line}`);
    }
    family.samples.push(sample);
  }
  for (const family of families.values()) {
    if (family.type === 'histogram') checkHistogram(family);
  }
  return families;
}
