// A reader of the Prometheus text exposition format (version 0.0.4), written for the tests from the format's
// description, independent of prom-client: `name{label="value",...} number` lines, `#` lines skipped.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    // Prometheus reads values as Go's ParseFloat does: `NaN`, `+Inf`, `-Inf` in any letter case (prom-client writes `Nan`).
    const word = m[3].toLowerCase();
    const value = word === '+inf' || word === 'inf' ? Infinity : word === '-inf' ? -Infinity : word === 'nan' ? NaN : Number(m[3]);
    if (Number.isNaN(value) && word !== 'nan') throw new Error(`not a number in: ${line}`);
    out.push({ name: m[1], labels, value });
  }
  return out;
}

/** The samples named `name` whose labels include every label of `match`. */
export function select(samples: Sample[], name: string, match: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
}

/** The sum of the matching samples' values (0 when none: a series not yet created counts nothing). */
export function total(samples: Sample[], name: string, match: Record<string, string> = {}): number {
  return select(samples, name, match).reduce((n, s) => n + s.value, 0);
}
