import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Actor } from '../activities/context';
import { createEnterprise } from '../activities/enterprise/create-enterprise.activity';
import { provisionRowsAt, startProvisioningRun } from '../activities/loans/provisioning.activity';
import { round, type Benchmark, type TableLine } from './benchmark';
import { benchActivityContext, withBenchDatabase } from './bench-database';
import { createBenchProduct, seedPortfolio } from './loan-seed';
import type { PgbenchReference } from './pgbench';
import { withTemporalWorker } from './temporal-worker';

/** 10 000 and 100 000 loans always; 1 000 000 on demand (BENCH_PROVISIONING_MILLION=1): seeding it takes minutes. */
const sizes = [10_000, 100_000, ...(process.env.BENCH_PROVISIONING_MILLION === '1' ? [1_000_000] : [])];
/** One loan in ten is in arrears, of up to eight months. */
const arrearsShare = 10;
const firstDay = '2026-10-01';
const nextDay = '2026-10-02';

/**
 * The provisioning run through the real workflow, worker and activities (batches of the workflow's default
 * size), over portfolios of 10 000, 100 000 (and on demand 1 000 000) loans of 12 monthly installments, each
 * its own enterprise: the first day (one loan in ten in arrears: reclassifications and provisions to post)
 * and the next day (nothing changed but the days). Per-loan time must not grow with the portfolio, nor the
 * worker's memory (the worker runs in this process: its heap and RSS are sampled during each run). Beside
 * it, the floor that set-based SQL allows: one statement computing every loan's days past due.
 */
export const provisioningBenchmark: Benchmark = {
  name: 'provisioning',
  run: () => withBenchDatabase(measure, 12),
};

interface Portfolio {
  loans: number;
  enterpriseId: string;
  seedSeconds: number;
}

async function measure(knex: Knex, _url: string, pgbench: PgbenchReference) {
  const portfolios: Portfolio[] = [];
  for (const loans of sizes) portfolios.push(await portfolio(knex, loans));
  const floor = await ageQuery(knex, portfolios.find((candidate) => candidate.loans === 100_000)!);
  const runs = await withTemporalWorker(knex, async ({ address, taskQueue }) => {
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection });
      const measured = [];
      for (const { loans, enterpriseId, seedSeconds } of portfolios) {
        const first = await timedRun(knex, client, taskQueue, enterpriseId, firstDay);
        measured.push({ loans, seedSeconds, firstDay: first, nextDay: await timedRun(knex, client, taskQueue, enterpriseId, nextDay) });
      }
      return measured;
    } finally {
      await connection.close();
    }
  });
  const books = await booksCheck(knex);
  const at100k = runs.find((run) => run.loans === 100_000)!;
  const result = {
    name: 'provisioning',
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.availableParallelism(),
    arrearsShare,
    runs,
    singleAgeQuery: { loans: 100_000, seconds: round(floor, 3), loansPerSecond: round(100_000 / floor, 0) },
    ratio: { nextDayToFloor: round(at100k.nextDay.loansPerSecond / (100_000 / floor), 3) },
    books,
    notes: [
      'The run: provisioningRun workflow on a local Temporal dev server, batches of the workflow default size, each one transaction (facts query, classification and provisions in the domain, '
      + 'LoanProvision rows where a position changed, loan updates, one entry per branch, kind and account pair, cursor).',
      'Memory: the worker runs in the benchmark process; peak heap and RSS sampled every 100 ms during each run.',
      'The floor: one SELECT of every loan\'s oldest unpaid due date (the ages), nothing written.',
      'One embedded PostgreSQL (default settings), the worker and the dev server on the same machine.',
    ],
  };
  const summary = runs.map((run) => `${run.loans} loans: first day ${run.firstDay.loansPerSecond} loans/s, next day ${run.nextDay.loansPerSecond} loans/s, peak heap ${run.nextDay.peakHeapMb} MB`).join('; ')
    + `; books balanced ${books.debitMinusCredit === '0'}, 3931 = provisions ${books.provisionsAccountEqualsPositions}, class accounts = principal by class ${books.classAccountsEqualPrincipal}`;
  return { result, summary, lines: tableLines(runs, pgbench, books) };
}

type Measured = { loans: number; firstDay: Awaited<ReturnType<typeof timedRun>>; nextDay: Awaited<ReturnType<typeof timedRun>> };

function tableLines(runs: readonly Measured[], pgbench: PgbenchReference, books: Awaited<ReturnType<typeof booksCheck>>): TableLine[] {
  const at100k = runs.find((run) => run.loans === 100_000)!;
  const biggest = runs[runs.length - 1]!;
  // Without the million, the scaling compares 100 000 with 10 000.
  const reference = biggest === at100k ? runs[0]! : at100k;
  const perLoan = (run: Measured) => (run.firstDay.seconds + run.nextDay.seconds) / run.loans;
  const timeRatio = perLoan(biggest) / perLoan(reference);
  // RSS rather than the heap, whose peak moves with the collector's timing more than with the work.
  const rssRatio = Math.max(biggest.firstDay.peakRssMb, biggest.nextDay.peakRssMb) / Math.max(reference.firstDay.peakRssMb, reference.nextDay.peakRssMb);
  const booksTrue = books.debitMinusCredit === '0' && books.provisionsAccountEqualsPositions && books.classAccountsEqualPrincipal;
  const beside = `, pgbench ${round(pgbench.tps, 0)} tps${booksTrue ? '' : ', **books not true**'}`;
  const size = (loans: number) => loans.toLocaleString('en').replaceAll(',', ' ');
  return [
    { work: 'provisioning, 100 000 loans, first day (10 % in arrears)', measured: `${at100k.firstDay.loansPerSecond} loans/s (${at100k.firstDay.seconds} s)${beside}`, target: '≥ 20 000 loans/s', met: booksTrue && at100k.firstDay.loansPerSecond >= 20_000 },
    { work: 'provisioning, next day (nothing changed)', measured: `${at100k.nextDay.loansPerSecond} loans/s (${at100k.nextDay.seconds} s)${beside}`, target: '≥ 50 000 loans/s', met: booksTrue && at100k.nextDay.loansPerSecond >= 50_000 },
    {
      work: `provisioning scaling, ${size(biggest.loans)} vs ${size(reference.loans)} loans`,
      measured: `per-loan time × ${round(timeRatio, 2)}, worker peak RSS × ${round(rssRatio, 2)} (heap ${biggest.nextDay.peakHeapMb} MB vs ${reference.nextDay.peakHeapMb} MB)`,
      target: 'per-loan time ≤ 1.3 ×, worker RSS ≤ 1.3 ×',
      met: timeRatio <= 1.3 && rssRatio <= 1.3,
    },
  ];
}

/** An enterprise of its own with its product and `loans` loans. */
async function portfolio(knex: Knex, loans: number): Promise<Portfolio> {
  const context = benchActivityContext(knex);
  const [user] = await knex('users').insert({ username: `bench-provisioning-${loans}`, password_hash: 'unused', full_name: 'Benchmark' }).returning('id');
  const actor: Actor = { userId: user.id, grants: [{ role: 'admin', enterpriseId: null, branchId: null }], requestId: 'bench' };
  const enterprise = await createEnterprise(context, actor, { code: `P${loans}`, name: `Portfolio of ${loans}`, legalForm: 'C', country: 'CM', timeZone: 'Africa/Douala', headOffice: { code: 'HQ', name: 'HQ', address: '', city: '' } });
  const product = await createBenchProduct(context, actor, enterprise.id);
  const seeding = performance.now();
  await seedPortfolio(knex, { enterpriseId: enterprise.id, productId: product.id, userId: user.id, loans, arrearsShare });
  return { loans, enterpriseId: enterprise.id, seedSeconds: round((performance.now() - seeding) / 1000, 1) };
}

/** One run of the workflow for `asOf`, timed from its start to its end, with the process's memory sampled meanwhile. */
async function timedRun(knex: Knex, client: Client, taskQueue: string, enterpriseId: string, asOf: string) {
  await knex('enterprise_configurations').where({ enterprise_id: enterpriseId }).update({ business_date: asOf });
  const run = await startProvisioningRun(knex, new Date(), { enterpriseId, asOf, trigger: 'api', requestedBy: null });
  const peak = { heap: 0, rss: 0 };
  const sample = () => {
    const memory = process.memoryUsage();
    peak.heap = Math.max(peak.heap, memory.heapUsed);
    peak.rss = Math.max(peak.rss, memory.rss);
  };
  const sampler = setInterval(sample, 100);
  const began = performance.now();
  try {
    await client.workflow.execute('provisioningRun', { taskQueue, workflowId: `provisioning-run-${run.id}`, args: [{ enterpriseId, runId: run.id }] });
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - began) / 1000;
  const row = await knex('provisioning_runs').where({ id: run.id }).first();
  return {
    asOf,
    seconds: round(seconds, 2),
    loansPerSecond: round(row.loans_processed / seconds, 0),
    loansProcessed: row.loans_processed as number,
    provisionsChanged: row.provisions_changed as number,
    loansReclassified: row.loans_reclassified as number,
    amountCharged: row.amount_charged as string,
    peakHeapMb: round(peak.heap / 2 ** 20, 0),
    peakRssMb: round(peak.rss / 2 ** 20, 0),
  };
}

/** Balanced; 3931 equals the provisions of the positions; 3221, 3312 and 3352 hold the principal of each class. */
async function booksCheck(knex: Knex) {
  const balanceOf = (code: string) =>
    knex('journal_lines as l').join('company_chart_entries as c', 'c.id', 'l.chart_entry_id').where('c.code', code).first(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  const difference = (await knex('journal_lines').first(knex.raw('(sum(debit) - sum(credit))::text AS difference'))).difference as string;
  const positions = await knex.from(provisionRowsAt(knex, nextDay).as('positions')).first(knex.raw('COALESCE(sum(amount), 0)::text AS total'));
  const provisions = (await balanceOf('3931')).balance as string;
  let classAccountsEqualPrincipal = true;
  for (const [loanClass, code] of [['performing', '3221'], ['overdue', '3312'], ['doubtful', '3352']] as const) {
    const principal = await knex('loans').where({ classification: loanClass }).first(knex.raw('COALESCE(sum(outstanding_principal), 0)::text AS total'));
    classAccountsEqualPrincipal &&= (await balanceOf(code)).balance === principal.total;
  }
  const provisionsAccountEqualsPositions = BigInt(provisions) === -BigInt(positions.total as string);
  return { debitMinusCredit: difference, provisionsAccount: provisions, provisionsAccountEqualsPositions, classAccountsEqualPrincipal };
}

async function ageQuery(knex: Knex, portfolio: Portfolio): Promise<number> {
  const began = performance.now();
  const result = await knex.raw(`
    SELECT l.id, ?::date - min(i.due_date) AS days_past_due
    FROM loans l LEFT JOIN loan_installments i ON i.loan_id = l.id AND i.paid_on IS NULL AND i.due_date < ?
    WHERE l.status = 'active' AND l.enterprise_id = ? GROUP BY l.id`, [firstDay, firstDay, portfolio.enterpriseId]);
  if (result.rows.length !== portfolio.loans) throw new Error(`the age query saw ${result.rows.length} loans`);
  return (performance.now() - began) / 1000;
}
