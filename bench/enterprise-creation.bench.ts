import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createCompanyChart } from '../activities/accounts/company-chart';
import type { Actor } from '../activities/context';
import { createEnterprise } from '../activities/enterprise/enterprises.activity';
import type { Knex } from '../db/knex';
import { benchActivityContext, withBenchDatabase } from './bench-database';
import { percentile } from './load';
import { round, type Benchmark } from './benchmark';

const runs = 20;
// Not timed: the first runs pay for connections, JIT and PostgreSQL's cold caches.
const warmupRuns = 3;

/**
 * Creating an enterprise through the createEnterprise activity (one transaction: the enterprise, its chart
 * of about 1,355 accounts copied from the PCEMF, branch, year, configuration, profile…), on a PostgreSQL of
 * its own; and, for comparison, the chart copy alone (createCompanyChart).
 */
export const enterpriseCreationBenchmark: Benchmark = {
  name: 'enterprise-creation',
  run: () => withBenchDatabase(measure),
};

async function measure(knex: Knex) {
  const context = benchActivityContext(knex);
  const [user] = await knex('users')
    .insert({ username: 'bench', password_hash: 'unused', full_name: 'Benchmark' })
    .returning('id');
  const actor: Actor = {
    userId: user.id,
    grants: [{ role: 'admin', enterpriseId: null, branchId: null }],
    requestId: 'bench',
  };
  const create = (index: number) =>
    createEnterprise(context, actor, {
      code: `B${index}`,
      name: `Bench ${index}`,
      legalForm: 'Coopérative',
      country: 'CM',
      timeZone: 'Africa/Douala',
      headOffice: { code: 'HQ', name: 'Siège', address: '', city: '' },
    });
  const whole = await timed((index) => stopwatch(() => create(index)));
  const chartOnly = await timed((index) => chartCopy(knex, index));
  const [last] = await knex('enterprises')
    .where({ code: `B${runs + warmupRuns - 1}` })
    .pluck('id');
  const chartRows = Number(
    (await knex('company_chart_entries').where({ enterprise_id: last }).count({ rows: '*' }).first())?.rows,
  );
  const { rows } = await knex.raw('SHOW server_version');
  const result = {
    name: 'enterprise-creation',
    date: new Date().toISOString(),
    node: process.version,
    postgres: rows[0].server_version as string,
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    runs,
    warmupRuns,
    chartRows,
    createEnterprise: figures(whole),
    companyChartOnly: figures(chartOnly),
    notes: [
      'createEnterprise: the activity called directly (no HTTP), one transaction per run, committed; enterprises ' +
        'B0, B1, … one after the other.',
      'companyChartOnly: createCompanyChart alone in its own transaction, for an enterprise row inserted just ' +
        'before it (not timed).',
      'Embedded PostgreSQL on loopback, default settings, started by the benchmark in a fresh cluster; times ' +
        'include the COMMIT.',
    ],
  };
  const summary =
    `createEnterprise p50 ${result.createEnterprise.p50Ms} ms, p95 ${result.createEnterprise.p95Ms} ms; ` +
    `chart copy alone p50 ${result.companyChartOnly.p50Ms} ms, p95 ${result.companyChartOnly.p95Ms} ms; ` +
    `${chartRows} chart rows`;
  return { result, summary };
}

/** Durations of the timed runs, after the warm-up ones; `run` gets an index unique over both and times itself. */
async function timed(run: (index: number) => Promise<number>): Promise<number[]> {
  const durations: number[] = [];
  for (let index = 0; index < warmupRuns + runs; index += 1) {
    const duration = await run(index);
    if (index >= warmupRuns) durations.push(duration);
  }
  return durations;
}

async function stopwatch(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** The chart copy for a bare enterprise (codes C…, apart from `create`'s B…), timed without the enterprise insert. */
async function chartCopy(knex: Knex, index: number): Promise<number> {
  const [enterprise] = await knex('enterprises')
    .insert({ code: `C${index}`, name: `Chart ${index}`, legal_form: 'C', country: 'CM' })
    .returning('id');
  return stopwatch(() => knex.transaction((trx) => createCompanyChart(trx, enterprise.id)));
}

function figures(durations: number[]) {
  const sorted = [...durations].sort((a, b) => a - b);
  // Nearest-rank percentiles: with 20 runs, p95 is the 19th fastest.
  return {
    p50Ms: round(percentile(sorted, 0.5), 2),
    p95Ms: round(percentile(sorted, 0.95), 2),
    minMs: round(sorted[0]!, 2),
    maxMs: round(sorted.at(-1)!, 2),
  };
}
