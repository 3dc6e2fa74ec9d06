import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Benchmark, TableLine } from './benchmark';
import { depositsApiBenchmark } from './deposits-api.bench';
import { enterpriseCreationBenchmark } from './enterprise-creation.bench';
import { healthzBenchmark } from './healthz.bench';
import { historyPeriodEndsBenchmark } from './history-period-ends.bench';
import { historyReportsBenchmark } from './history-reports.bench';
import { importBenchmark } from './import.bench';
import { ledgerPostingBenchmark } from './ledger-posting.bench';
import { loanApprovalApiBenchmark } from './loan-approval-api.bench';
import { loanScheduleBenchmark } from './loan-schedule.bench';
import { provisioningBenchmark } from './provisioning.bench';
import { repaymentsApiBenchmark } from './repayments-api.bench';
import { sharesApiBenchmark } from './shares-api.bench';

/**
 * `npm run bench`: runs every benchmark (or only those named: `npm run bench -- healthz`), one at a time,
 * writes each result to bench/results/<name>.json and prints one line per benchmark.
 */
const benchmarks: readonly Benchmark[] = [
  healthzBenchmark,
  enterpriseCreationBenchmark,
  ledgerPostingBenchmark,
  depositsApiBenchmark,
  loanScheduleBenchmark,
  repaymentsApiBenchmark,
  sharesApiBenchmark,
  loanApprovalApiBenchmark,
  provisioningBenchmark,
  importBenchmark,
  historyReportsBenchmark,
  historyPeriodEndsBenchmark,
];
const resultsDir = path.join(__dirname, 'results');
// The whole run is bounded in time; this guards against a hang (a server that never starts, say). Every
// benchmark runs pgbench first and provisioning seeds 110 000 loans; a million more take a while, and so does seeding
// a cooperative's whole history (bench/history-seed.ts) at a tenth of its size or more.
const longSeed =
  process.env.BENCH_PROVISIONING_MILLION === '1' || Number(process.env.BENCH_HISTORY_SCALE ?? '0') >= 0.1;
const hardLimitMs = longSeed ? 3 * 3_600_000 : 1_800_000;

async function main(names: readonly string[]): Promise<number> {
  const unknown = names.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `Unknown benchmark(s): ${unknown.join(', ')}. Known: ${benchmarks.map((b) => b.name).join(', ')}\n`,
    );
    return 2;
  }
  const selected = names.length === 0 ? benchmarks : benchmarks.filter((benchmark) => names.includes(benchmark.name));
  fs.mkdirSync(resultsDir, { recursive: true });
  for (const benchmark of selected) {
    await untilQuiet(benchmark.name);
    const { result, summary, lines = [] } = await benchmark.run();
    const file = path.join(resultsDir, `${benchmark.name}.json`);
    fs.writeFileSync(file, `${JSON.stringify({ ...result, lines }, null, 2)}\n`);
    process.stdout.write(`${benchmark.name}: ${summary} (${path.relative(process.cwd(), file)})\n`);
  }
  writeTable();
  return 0;
}

/** Below this 1-minute load average the machine is quiet enough to measure on (2 cores). */
const quietLoad = 1;
/** How long a benchmark waits for it: the last benchmark's load takes about a minute to fall below 1. */
const quietWaitMs = 150_000;

/**
 * Waits for a quiet machine before a benchmark: each one loads both cores, and a loaded machine lowers pgbench, the
 * reference of every ratio, more than it lowers the product. Says how long it waited, and the load it starts at.
 */
async function untilQuiet(name: string): Promise<void> {
  const began = Date.now();
  while (os.loadavg()[0]! >= quietLoad && Date.now() - began < quietWaitMs) await delay(5_000);
  const waited = Math.round((Date.now() - began) / 1000);
  if (waited > 0) process.stdout.write(`${name}: waited ${waited} s for a quiet machine, load ${os.loadavg()[0]}\n`);
}

/** bench/README.md's table, between its markers, from the latest result of every benchmark. */
function writeTable(): void {
  const readme = path.join(__dirname, 'README.md');
  const rows = benchmarks.flatMap((benchmark) => {
    const file = path.join(resultsDir, `${benchmark.name}.json`);
    if (!fs.existsSync(file)) return [];
    const result = JSON.parse(fs.readFileSync(file, 'utf8')) as { date: string; lines?: TableLine[] };
    return (result.lines ?? []).map(
      (line) =>
        `| ${line.work} | ${line.measured} | ${line.target} | ${line.met ? 'met' : '**not met**'} | ` +
        `${benchmark.name}, ${result.date.slice(0, 10)} |`,
    );
  });
  const table = ['| work | measured | target | | benchmark, run |', '|---|---|---|---|---|', ...rows].join('\n');
  const text = fs.readFileSync(readme, 'utf8');
  const [before, rest] = text.split(tableStart);
  const after = rest?.split(tableEnd)[1];
  if (before === undefined || after === undefined)
    throw new Error(`bench/README.md lacks the ${tableStart} … ${tableEnd} markers`);
  fs.writeFileSync(readme, `${before}${tableStart}\n${table}\n${tableEnd}${after}`);
}

const tableStart = '<!-- results: written by npm run bench -->';
const tableEnd = '<!-- end of results -->';

// Unref'd: it ends a hung run but does not keep a finished one alive.
setTimeout(() => {
  process.stderr.write(`bench: still running after ${hardLimitMs / 1000} s, giving up\n`);
  process.exit(1);
}, hardLimitMs).unref();

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
