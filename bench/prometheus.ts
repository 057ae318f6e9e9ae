// The Prometheus text exposition format (what an aiplane process serves on /metrics), parsed
// into samples, and the sums the benchmarks read from it.

/** One sample line: a metric name, its labels and its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const UNESCAPE: Record<string, string> = { n: '\n', '\\': '\\', '"': '"' };

function value(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** The samples of a /metrics text (comments, HELP and TYPE lines and blank lines skipped). */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line.trim());
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (m[2] ?? '').matchAll(LABEL)) {
      labels[key as string] = (raw as string).replace(/\\(.)/g, (e, c: string) => UNESCAPE[c] ?? e);
    }
    samples.push({ name: m[1] as string, labels, value: value(m[3] as string) });
  }
  return samples;
}

/** The samples a process serves on http://127.0.0.1:<port>/metrics. */
export async function scrape(port: number): Promise<Sample[]> {
  return parsePrometheus(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
}

/**
 * The values of metric `name` whose labels include `where`, summed by the value of label `by`
 * (`unknown` where a sample has no such label).
 */
export function sumBy(
  samples: Sample[],
  name: string,
  where: Record<string, string>,
  by: string,
): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(where).some(([k, v]) => s.labels[k] !== v)) continue;
    const key = s.labels[by] ?? 'unknown';
    totals[key] = (totals[key] ?? 0) + s.value;
  }
  return totals;
}

/** The sum of every value of a record (of {@link sumBy}, say). */
export function total(values: Record<string, number>): number {
  return Object.values(values).reduce((a, b) => a + b, 0);
}
