import fs from 'node:fs';
import path from 'node:path';
import type { Benchmark } from './benchmark';
import { depositsApiBenchmark } from './deposits-api.bench';
import { enterpriseCreationBenchmark } from './enterprise-creation.bench';
import { healthzBenchmark } from './healthz.bench';
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
const benchmarks: readonly Benchmark[] = [healthzBenchmark, enterpriseCreationBenchmark, ledgerPostingBenchmark, depositsApiBenchmark, loanScheduleBenchmark, repaymentsApiBenchmark, sharesApiBenchmark, loanApprovalApiBenchmark, provisioningBenchmark];
const resultsDir = path.join(__dirname, 'results');
// The whole run is bounded in time; this guards against a hang (a server that never starts, say).
const hardLimitMs = 900_000;

async function main(names: readonly string[]): Promise<number> {
  const unknown = names.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown benchmark(s): ${unknown.join(', ')}. Known: ${benchmarks.map((b) => b.name).join(', ')}\n`);
    return 2;
  }
  const selected = names.length === 0 ? benchmarks : benchmarks.filter((benchmark) => names.includes(benchmark.name));
  fs.mkdirSync(resultsDir, { recursive: true });
  for (const benchmark of selected) {
    const { result, summary } = await benchmark.run();
    const file = path.join(resultsDir, `${benchmark.name}.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${benchmark.name}: ${summary} (${path.relative(process.cwd(), file)})\n`);
  }
  return 0;
}

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
