// bench/results/SUMMARY.md and one SVG chart per benchmark, from the results files
// (bench/results/<name>.json): each headline figure next to its goal (issues 17–21) and whether
// the last run met it. `make bench` writes it after the benchmarks; `node --import tsx
// bench/summary.ts` rewrites it from the files alone.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@aiplane/hack';

/** One headline figure: where it is in the results file, and its goal when it has one. */
interface Figure {
  label: string;
  path: string;
  unit: string;
  /** The goal: at most (`max`) or at least (`min`) this value. */
  goal?: { max: number } | { min: number };
}

interface BenchmarkSummary {
  name: string;
  issue: string;
  figures: Figure[];
}

/** The operator's figures at a scale (issue 21), with a bound on the time to every status. */
function operatorFigures(statusesGoal?: { max: number }): Figure[] {
  const none = { max: 0 };
  return [
    {
      label: 'time until every status is written',
      path: 'allStatusesMs',
      unit: 'ms',
      ...(statusesGoal ? { goal: statusesGoal } : {}),
    },
    {
      label: 'reconciles per object',
      path: 'reconciles.perObjectAtEnd',
      unit: '',
      goal: { max: 2 },
    },
    { label: 'update conflicts', path: 'reconciles.atEnd.conflict', unit: '', goal: none },
    { label: 'reconciles in an idle minute', path: 'idle.reconciles', unit: '', goal: none },
    { label: 'writes in an idle minute', path: 'idle.writes', unit: '', goal: none },
    { label: 'operator peak RSS', path: 'operatorMemoryMiB.peakRss', unit: 'MiB' },
  ];
}

const BENCHMARKS: BenchmarkSummary[] = [
  {
    name: 'messages',
    issue: '17',
    figures: [
      {
        label: 'added to time to first token, p50 (API in its own process)',
        path: 'timeToFirstTokenMs.addedAtP50',
        unit: 'ms',
        goal: { max: 1 },
      },
      {
        label: 'added by a minimal Node.js proxy in the same run, p50',
        path: 'floorProxy.timeToFirstTokenMs.addedAtP50',
        unit: 'ms',
      },
      {
        label: 'API CPU per request (main thread)',
        path: 'cpuPerRequestMs.api.mainThread',
        unit: 'ms',
      },
      {
        label: 'added with the API in the benchmark process, p50',
        path: 'apiInTheBenchmarkProcess.timeToFirstTokenMs.addedAtP50',
        unit: 'ms',
      },
    ],
  },
  {
    name: 'collection-search',
    issue: '18',
    figures: [
      {
        label: 'search with access and filters at 100k chunks, p50',
        path: 'at100k.access+in+==.p50',
        unit: 'ms',
        goal: { max: 20 },
      },
      { label: 'the same, p99', path: 'at100k.access+in+==.p99', unit: 'ms' },
    ],
  },
  {
    name: 'embeddings',
    issue: '18',
    figures: [
      {
        label: 'chunks embedded per second (best batch)',
        path: 'best.chunksPerSecond',
        unit: '/s',
      },
      { label: 'query embedding while idle, p50', path: 'queryMs.idle.p50', unit: 'ms' },
    ],
  },
  {
    name: 'speech',
    issue: '19',
    figures: [
      {
        label: 'end of speech to final transcript at a pause, p50',
        path: 'latencyMs.endOfSpeechToFinalAtPause.p50',
        unit: 'ms',
      },
      {
        label: 'end message to final transcript, p50',
        path: 'latencyMs.endMessageToFinal.p50',
        unit: 'ms',
      },
    ],
  },
  {
    name: 'gateway',
    issue: '21',
    figures: [
      {
        label: 'added to a tools/call, p50',
        path: 'latencyMs.added.p50',
        unit: 'ms',
        goal: { max: 0.3 },
      },
      {
        label: 'added to a tools/call, p99',
        path: 'latencyMs.added.p99',
        unit: 'ms',
        goal: { max: 1 },
      },
      ...[1, 16, 64].map((clients, i) => ({
        label: `throughput vs direct (${clients} client${clients > 1 ? 's' : ''})`,
        path: `throughputCallsPerSecond.byConcurrency.${i}.ratio`,
        unit: '×',
        goal: { min: 0.85 },
      })),
      {
        label: 'gateway CPU per call (all threads, sequential)',
        path: 'gatewayCpuPerCallMs.allThreads',
        unit: 'ms',
      },
      {
        label: 'gateway heap per open SSE session',
        path: 'memoryPerSseSession.heapBytesPerSession',
        unit: 'B',
      },
    ],
  },
  { name: 'mcp-servers', issue: '21', figures: operatorFigures() },
  {
    name: 'mcp-servers-1000',
    issue: '21',
    figures: operatorFigures({ max: 20_000 }),
  },
  {
    name: 'tenant-lifecycle',
    issue: '21',
    figures: [
      {
        label: 'POST → Ready, p50 (one at a time)',
        path: 'postToReadyMs.sequential.p50',
        unit: 'ms',
      },
      {
        label: 'POST → Ready, p95 (one at a time)',
        path: 'postToReadyMs.sequential.p95',
        unit: 'ms',
      },
      { label: '20 at once, all Ready', path: 'postToReadyMs.concurrent20.wallMs', unit: 'ms' },
      { label: '200 at once, all Ready', path: 'postToReadyMs.concurrent200.wallMs', unit: 'ms' },
    ],
  },
  {
    name: 'runtime-reconcile',
    issue: '21',
    figures: [{ label: 'every object reconciled', path: 'allReconciledMs', unit: 'ms' }],
  },
];

/** The value at a dotted path; keys may themselves hold dots' neighbours (`access+in+==`). */
function at(result: Record<string, unknown>, path: string): number | undefined {
  let here: unknown = result;
  for (const key of path.split('.')) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  // A count the run never saw (no conflict at all) is absent from the totals: zero.
  if (here === undefined && path.startsWith('reconciles.atEnd.')) return 0;
  return typeof here === 'number' ? here : undefined;
}

function met(value: number, goal: Figure['goal']): boolean | undefined {
  if (!goal) return undefined;
  return 'max' in goal ? value <= goal.max : value >= goal.min;
}

function goalText(goal: Figure['goal'], unit: string): string {
  if (!goal) return '';
  return 'max' in goal
    ? `≤ ${goal.max}${unit ? ` ${unit}` : ''}`
    : `≥ ${goal.min}${unit ? ` ${unit}` : ''}`;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Bars of each figure with a goal, as a fraction of the goal (the goal line at 100 %). */
function chart(name: string, rows: Array<{ f: Figure; value: number }>): string | undefined {
  const scored = rows.filter((r) => r.f.goal && ('max' in r.f.goal ? r.f.goal.max > 0 : true));
  if (scored.length === 0) return undefined;
  const width = 640;
  const barX = 300;
  const barW = 280;
  const rowH = 28;
  const height = 40 + scored.length * rowH;
  const bars = scored.map(({ f, value }, i) => {
    const goal = f.goal as { max: number } | { min: number };
    const target = 'max' in goal ? goal.max : goal.min;
    const fraction = Math.min(value / target, 2);
    const ok = met(value, goal) === true;
    const y = 30 + i * rowH;
    return [
      `<text x="8" y="${y + 14}" font-size="11">${escape(f.label)}</text>`,
      `<rect x="${barX}" y="${y + 3}" width="${Math.max(1, (fraction / 2) * barW)}" height="16" fill="${ok ? '#2e7d32' : '#c62828'}"/>`,
      `<text x="${barX + barW + 4}" y="${y + 14}" font-size="11">${value} ${escape(f.unit)}</text>`,
    ].join('');
  });
  const goalX = barX + barW / 2;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width + 60}" height="${height}" font-family="sans-serif">`,
    `<text x="8" y="18" font-size="13" font-weight="bold">${escape(name)}: each figure as a share of its goal (line = goal; green = met)</text>`,
    ...bars,
    `<line x1="${goalX}" y1="26" x2="${goalX}" y2="${height - 4}" stroke="#000" stroke-dasharray="4 3"/>`,
    '</svg>',
    '',
  ].join('\n');
}

export function writeSummary(): void {
  const dir = join(repoRoot, 'bench', 'results');
  const lines = [
    '# Benchmark summary',
    '',
    'Generated by `bench/summary.ts` from the results files of this directory (the last run of each',
    'benchmark: its date, commit and the machine’s load average are in its file). Figures are',
    'measured on the same 2-core machine as everything else they run beside; latency moves with',
    'the load, counts do not. Goals are the issues’.',
    '',
  ];
  for (const b of BENCHMARKS) {
    const file = join(dir, `${b.name}.json`);
    if (!existsSync(file)) continue;
    const result = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & {
      date?: string;
      commit?: string;
    };
    const machine = result.machine as { loadAverage?: number } | undefined;
    lines.push(
      `## ${b.name} (issue ${b.issue})`,
      '',
      `Run ${(result.date ?? '?').slice(0, 16).replace('T', ' ')} UTC at ${result.commit ?? '?'}` +
        (machine?.loadAverage !== undefined ? `, load average ${machine.loadAverage}` : '') +
        ` — [${b.name}.json](${b.name}.json)`,
      '',
      '| Figure | Value | Goal | Met |',
      '| --- | --- | --- | --- |',
    );
    const rows: Array<{ f: Figure; value: number }> = [];
    for (const f of b.figures) {
      const value = at(result, f.path);
      if (value === undefined) {
        lines.push(`| ${f.label} | not measured | ${goalText(f.goal, f.unit)} | |`);
        continue;
      }
      rows.push({ f, value });
      const ok = met(value, f.goal);
      lines.push(
        `| ${f.label} | ${value}${f.unit ? ` ${f.unit}` : ''} | ${goalText(f.goal, f.unit)} | ${ok === undefined ? '' : ok ? 'yes' : '**no**'} |`,
      );
    }
    const svg = chart(b.name, rows);
    if (svg) {
      writeFileSync(join(dir, `${b.name}.svg`), svg);
      lines.push('', `![${b.name}](${b.name}.svg)`);
    }
    lines.push('');
  }
  writeFileSync(join(dir, 'SUMMARY.md'), lines.join('\n'));
}

if (process.argv[1]?.endsWith('summary.ts')) writeSummary();
