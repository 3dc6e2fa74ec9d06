import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createKnex } from '../db/knex';
import { round, type Benchmark, type BenchmarkReport, type TableLine } from './benchmark';
import { openHistory, type HistoryFacts, type SeededHistory } from './history-seed';
import { directorHeaders, loadAverage, peaksBySize, rssPeaks, sizeLabel } from './history-run';
import { percentile } from './load';
import { measurePgbench, type PgbenchReference } from './pgbench';
import { startServerProcess, type ServerProcess } from './server-process';

/**
 * `npm run bench -- history-reports` (issue 32): the reports of year 5 and a year's general ledger of the busy
 * account, through the API (its own process) on the seeded history (bench/history-seed.ts, reused between runs),
 * read-only. Each report is asked `requests` times one after the other, after two unmeasured; the ledger is
 * streamed as CSV once, the API's resident set sampled every 100 ms throughout.
 */
export const historyReportsBenchmark: Benchmark = {
  name: 'history-reports',
  run: measure,
};

const requests = Number(process.env.BENCH_HISTORY_REQUESTS ?? '10');
const warmups = 2;
/** A date in year 5 (bench/history-seed.ts's last year), and the ledger's whole year 4. */
const reportDate = '2026-09-30';
const ledgerYear = { from: '2025-01-01', to: '2025-12-31' };
const reportTargetMs = 200;
const ledgerTargetLinesPerSecond = 100_000;

function reportPaths(facts: HistoryFacts): Record<string, string> {
  const chart = `/api/v1/accounts/charts/${facts.chartId}`;
  return {
    'balance sheet': `${chart}/balance-sheet/?date=${reportDate}`,
    'trial balance (6 columns)': `${chart}/trial-balance/?date=${reportDate}`,
    'income statement': `${chart}/income-statement/?date_from=2026-01-01&date_to=${reportDate}`,
    'prudential ratios': `${chart}/prudential-ratios/?date=${reportDate}`,
  };
}

async function measure(): Promise<BenchmarkReport> {
  const history = await openHistory();
  try {
    const pgbench = await pgbenchBeside(history);
    const before = loadAverage();
    process.stdout.write(`history-reports: load average before ${before.join(' ')}\n`);
    const api = await startServerProcess(
      'servers/koa-app.ts',
      { BENCH_DATABASE_URL: history.url, BENCH_JWT_SECRET: randomBytes(32).toString('hex') },
      120_000,
    );
    try {
      const base = `http://127.0.0.1:${api.port}`;
      const headers = await directorHeaders(base);
      const memory = rssPeaks({ api });
      const reports: Record<string, Awaited<ReturnType<typeof timeReport>>> = {};
      for (const [name, path] of Object.entries(reportPaths(history.facts)))
        reports[name] = await timeReport(`${base}${path}`, headers);
      const ledger = await streamLedger(base, headers, history.facts, api);
      const { peakMb } = await memory.stop();
      const after = loadAverage();
      process.stdout.write(`history-reports: load average after ${after.join(' ')}\n`);
      return report({ history, pgbench, reports, ledger, peakMb, load: { before, after } });
    } finally {
      await api.stop();
    }
  } finally {
    await history.stop();
  }
}

/** The reference of the other benchmarks, on the same server (its own database): the machine's state in this run. */
async function pgbenchBeside(history: SeededHistory): Promise<PgbenchReference> {
  const server = createKnex(history.serverUrl, { poolMax: 2 });
  try {
    return await measurePgbench(server, history.serverUrl);
  } finally {
    await server.destroy();
  }
}

async function timeReport(url: string, headers: Record<string, string>) {
  const times: number[] = [];
  let bytes = 0;
  for (let request = 0; request < warmups + requests; request += 1) {
    const began = performance.now();
    const answer = await fetch(url, { headers });
    const body = await answer.arrayBuffer();
    if (answer.status !== 200)
      throw new Error(`${url}: ${answer.status} ${Buffer.from(body).toString('utf8').slice(0, 500)}`);
    if (request >= warmups) times.push(performance.now() - began);
    bytes = body.byteLength;
  }
  const sorted = Float64Array.from(times).sort();
  return {
    p50Ms: round(percentile(sorted, 0.5), 1),
    p95Ms: round(percentile(sorted, 0.95), 1),
    maxMs: round(sorted.at(-1) ?? 0, 1),
    requests,
    bytes,
  };
}

/** The busy account's year as CSV, read as it arrives; its lines counted, the API's RSS read every 100 ms meanwhile. */
async function streamLedger(base: string, headers: Record<string, string>, facts: HistoryFacts, api: ServerProcess) {
  const url =
    `${base}/api/v1/accounts/charts/${facts.chartId}/general-ledger/` +
    `?account_from=${facts.busyAccount}&account_to=${facts.busyAccount}` +
    `&date_from=${ledgerYear.from}&date_to=${ledgerYear.to}&format=csv`;
  const memory = rssPeaks({ api });
  const began = performance.now();
  const answer = await fetch(url, { headers });
  if (answer.status !== 200 || answer.body === null)
    throw new Error(`general ledger: ${answer.status} ${await answer.text()}`);
  let lines = 0;
  let bytes = 0;
  let firstByteMs = 0;
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByteMs = performance.now() - began;
    bytes += chunk.byteLength;
    for (const byte of chunk) if (byte === 10) lines += 1;
  }
  const seconds = (performance.now() - began) / 1000;
  const { peakMb, samplesMb } = await memory.stop();
  const rss = samplesMb.api ?? [];
  return {
    account: facts.busyAccount,
    ...ledgerYear,
    csvLines: lines,
    bytes,
    seconds: round(seconds, 2),
    firstByteMs: round(firstByteMs, 0),
    linesPerSecond: round(lines / seconds, 0),
    apiRssMb: { peak: peakMb.api ?? 0, first: rss[0] ?? 0, last: rss.at(-1) ?? 0, samples: rss.length },
  };
}

type Measured = {
  history: SeededHistory;
  pgbench: PgbenchReference;
  reports: Record<string, Awaited<ReturnType<typeof timeReport>>>;
  ledger: Awaited<ReturnType<typeof streamLedger>>;
  peakMb: Record<string, number>;
  load: { before: number[]; after: number[] };
};

function report({ history, pgbench, reports, ledger, peakMb, load }: Measured): BenchmarkReport {
  const { facts } = history;
  const at = `${sizeLabel(facts)}, load ${load.before[0]} → ${load.after[0]}`;
  const memory = peaksBySize('history-reports', facts, peakMb);
  // Flat: the API holds no more at the stream's end than at its start, give or take 30 MB of garbage.
  const flat = ledger.apiRssMb.last - ledger.apiRssMb.first <= 30;
  const lines: TableLine[] = [
    ...Object.entries(reports).map(([name, figures]) => ({
      work: `${name} at a date in year 5, through the API`,
      measured: `p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms (${at})`,
      target: `p50 ≤ ${reportTargetMs} ms at full size`,
      met: facts.size.scale === 1 && figures.p50Ms <= reportTargetMs,
    })),
    {
      work: 'general ledger, the busy account over a year, CSV through the API',
      measured:
        `${ledger.linesPerSecond} lines/s (${ledger.csvLines} lines in ${ledger.seconds} s), ` +
        `API RSS ${ledger.apiRssMb.first} → ${ledger.apiRssMb.last} MB, peak ${ledger.apiRssMb.peak} MB (${at})`,
      target: `≥ ${ledgerTargetLinesPerSecond.toLocaleString('fr')} lines/s at full size, RSS flat`,
      met: facts.size.scale === 1 && ledger.linesPerSecond >= ledgerTargetLinesPerSecond && flat,
    },
    {
      work: 'API peak RSS over the reports and the ledger, by history size',
      measured: memory.line.measured,
      target: 'the largest size ≤ 1.3 × the smallest',
      met: memory.line.met,
    },
  ];
  const result = {
    name: 'history-reports',
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.availableParallelism(),
    loadAverage: load,
    pgbench,
    history: { ...facts, folder: history.folder, reused: history.reused },
    reportDate,
    reports,
    ledger,
    peakRssMb: peakMb,
    peakRssBySize: memory.bySize,
    notes: [
      'The history: bench/history-seed.ts (bench/README.md, "A cooperative\'s history"); the API is createApp in ' +
        'its own process ' +
        '(bench/servers/koa-app.ts) on the history database, signed in as its director.',
      `Each report ${warmups} times unmeasured, then ${requests} times one after the other (JSON); p50 and p95 of ` +
        `those. ` +
        'The general ledger: one CSV request, lines counted as they arrive.',
      'The machine is shared: the load average before and after is the 1-minute, 5-minute and 15-minute one.',
    ],
  };
  const p50s = Object.entries(reports)
    .map(([name, figures]) => `${name} p50 ${figures.p50Ms} ms`)
    .join(', ');
  const summary = `${sizeLabel(facts)}: ${p50s}; ledger ${ledger.linesPerSecond} lines/s; API peak ${peakMb.api} MB`;
  return { result, summary, lines };
}
