import os from 'node:os';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Actor } from '../activities/context';
import { createEnterprise } from '../activities/enterprise/enterprises.activity';
import { provisionRowsAt, startProvisioningRun } from '../activities/loans/provisioning.activity';
import { doubtfulAccounts, provisionAccounts } from '../domain/loans/doubtful-accounts';
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
 * worker's memory (the worker runs in this process: its heap and RSS are sampled during each run, and during
 * a third run with a full collection before each sample, which is what it holds). Beside it, the floor that
 * set-based SQL allows: one statement computing every loan's days past due.
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
  const floor = await ageQuery(
    knex,
    portfolios.find((candidate) => candidate.loans === 100_000)!,
  );
  const runs = await withTemporalWorker(knex, async ({ address, taskQueue }) => {
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection });
      const measured = [];
      for (const { loans, enterpriseId, seedSeconds } of portfolios) {
        const first = await timedRun(knex, client, taskQueue, enterpriseId, firstDay);
        const next = await timedRun(knex, client, taskQueue, enterpriseId, nextDay);
        measured.push({
          loans,
          seedSeconds,
          firstDay: first,
          nextDay: next,
          liveMemory: await liveMemoryRun(knex, client, taskQueue, enterpriseId),
        });
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
      'The run: provisioningRun workflow on a local Temporal dev server, batches of the workflow default size, ' +
        'each one transaction (facts query, classification and provisions in the domain, LoanProvision rows where ' +
        'a position changed, loan updates, one entry per branch, kind and account pair, cursor).',
      'Memory: the worker runs in the benchmark process, collected in full before each run. peakHeapMb and ' +
        'peakRssMb: sampled every 100 ms during the timed runs, garbage included (how high it piles up before V8 ' +
        'collects it depends on how long the run lasts, not on what the worker keeps). liveMemory: a rerun of the ' +
        'next day through the same workflow (every loan decided again, nothing to write), with a full collection ' +
        'before each sample every 200 ms: what the worker holds, at its highest.',
      "The floor: one SELECT of every loan's oldest unpaid due date (the ages), nothing written.",
      'One embedded PostgreSQL (default settings), the worker and the dev server on the same machine.',
    ],
  };
  const summary =
    runs
      .map(
        (run) =>
          `${run.loans} loans: first day ${run.firstDay.loansPerSecond} loans/s, next day ` +
          `${run.nextDay.loansPerSecond} loans/s, peak heap ${run.nextDay.peakHeapMb} MB`,
      )
      .join('; ') +
    `; books balanced ${books.debitMinusCredit === '0'}, 39x = provisions ` +
    `${books.provisionsAccountEqualsPositions}, class accounts = principal by class ` +
    `${books.classAccountsEqualPrincipal}`;
  return { result, summary, lines: tableLines(runs, pgbench, books) };
}

type Measured = {
  loans: number;
  firstDay: Awaited<ReturnType<typeof timedRun>>;
  nextDay: Awaited<ReturnType<typeof timedRun>>;
  liveMemory: Awaited<ReturnType<typeof liveMemoryRun>>;
};

function tableLines(
  runs: readonly Measured[],
  pgbench: PgbenchReference,
  books: Awaited<ReturnType<typeof booksCheck>>,
): TableLine[] {
  const at100k = runs.find((run) => run.loans === 100_000)!;
  const biggest = runs[runs.length - 1]!;
  // Without the million, the scaling compares 100 000 with 10 000.
  const reference = biggest === at100k ? runs[0]! : at100k;
  const perLoan = (run: Measured) => (run.firstDay.seconds + run.nextDay.seconds) / run.loans;
  const timeRatio = perLoan(biggest) / perLoan(reference);
  // The live memory's peak RSS: the timed runs' peaks hold the garbage V8 lets pile up, more of it the longer a run
  // lasts (bench/README.md).
  const rssRatio = biggest.liveMemory.peakRssMb / reference.liveMemory.peakRssMb;
  const lazyPeak = (run: Measured) => Math.max(run.firstDay.peakRssMb, run.nextDay.peakRssMb);
  const booksTrue =
    books.debitMinusCredit === '0' && books.provisionsAccountEqualsPositions && books.classAccountsEqualPrincipal;
  const beside = `, pgbench ${round(pgbench.tps, 0)} tps${booksTrue ? '' : ', **books not true**'}`;
  const size = (loans: number) => loans.toLocaleString('en').replaceAll(',', ' ');
  return [
    {
      work: 'provisioning, 100 000 loans, first day (10 % in arrears)',
      measured: `${at100k.firstDay.loansPerSecond} loans/s (${at100k.firstDay.seconds} s)${beside}`,
      target: '≥ 50 000 loans/s',
      met: booksTrue && at100k.firstDay.loansPerSecond >= 50_000,
    },
    {
      work: 'provisioning, next day (nothing changed)',
      measured: `${at100k.nextDay.loansPerSecond} loans/s (${at100k.nextDay.seconds} s)${beside}`,
      target: '≥ 100 000 loans/s',
      met: booksTrue && at100k.nextDay.loansPerSecond >= 100_000,
    },
    {
      work: `provisioning scaling, ${size(biggest.loans)} vs ${size(reference.loans)} loans`,
      measured:
        `per-loan time × ${round(timeRatio, 2)}, worker peak RSS × ${round(rssRatio, 2)} collected ` +
        `(${biggest.liveMemory.peakRssMb} MB vs ${reference.liveMemory.peakRssMb} MB, ` +
        `heap ${biggest.liveMemory.peakHeapMb} MB vs ${reference.liveMemory.peakHeapMb} MB); uncollected ` +
        `${lazyPeak(biggest)} MB vs ${lazyPeak(reference)} MB`,
      target: 'per-loan time ≤ 1.3 ×, worker RSS ≤ 1.3 ×',
      met: timeRatio <= 1.3 && rssRatio <= 1.3,
    },
  ];
}

/** An enterprise of its own with its product and `loans` loans. */
async function portfolio(knex: Knex, loans: number): Promise<Portfolio> {
  const context = benchActivityContext(knex);
  const [user] = await knex('users')
    .insert({ username: `bench-provisioning-${loans}`, password_hash: 'unused', full_name: 'Benchmark' })
    .returning('id');
  const actor: Actor = {
    userId: user.id,
    grants: [{ role: 'admin', enterpriseId: null, branchId: null }],
    requestId: 'bench',
  };
  const enterprise = await createEnterprise(context, actor, {
    code: `P${loans}`,
    name: `Portfolio of ${loans}`,
    legalForm: 'C',
    country: 'CM',
    timeZone: 'Africa/Douala',
    headOffice: { code: 'HQ', name: 'HQ', address: '', city: '' },
  });
  const product = await createBenchProduct(context, actor, enterprise.id);
  const seeding = performance.now();
  await seedPortfolio(knex, {
    enterpriseId: enterprise.id,
    productId: product.id,
    userId: user.id,
    loans,
    arrearsShare,
  });
  return { loans, enterpriseId: enterprise.id, seedSeconds: round((performance.now() - seeding) / 1000, 1) };
}

/** One run of the workflow for `asOf`, timed from its start to its end, with the process's memory sampled meanwhile. */
async function timedRun(knex: Knex, client: Client, taskQueue: string, enterpriseId: string, asOf: string) {
  // Each run starts from the memory the worker holds, not from the seeding's or the previous run's garbage.
  collectGarbage();
  const { runId, seconds, peak } = await sampledRun(
    { knex, client, taskQueue, enterpriseId, asOf },
    100,
    () => undefined,
  );
  const row = await knex('provisioning_runs').where({ id: runId }).first();
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

/**
 * What the worker holds during a whole run, whatever the collector's timing: the next day again (every loan
 * read and decided, nothing left to write), each sample taken after a full collection. Not timed: the
 * collections slow it down.
 */
async function liveMemoryRun(knex: Knex, client: Client, taskQueue: string, enterpriseId: string) {
  collectGarbage();
  const { runId, peak } = await sampledRun(
    { knex, client, taskQueue, enterpriseId, asOf: nextDay },
    200,
    collectGarbage,
  );
  const row = await knex('provisioning_runs').where({ id: runId }).first();
  if (row.provisions_changed !== 0 || row.loans_reclassified !== 0)
    throw new Error('the rerun of the next day changed provisions');
  return {
    loansProcessed: row.loans_processed as number,
    peakHeapMb: round(peak.heap / 2 ** 20, 0),
    peakRssMb: round(peak.rss / 2 ** 20, 0),
  };
}

type RunOf = { knex: Knex; client: Client; taskQueue: string; enterpriseId: string; asOf: string };

/**
 * One run of the workflow for `asOf` to its end, the process's peak heap and RSS sampled every `everyMs` (after
 * `beforeSample`).
 */
async function sampledRun(
  { knex, client, taskQueue, enterpriseId, asOf }: RunOf,
  everyMs: number,
  beforeSample: () => void,
) {
  await knex('enterprise_configurations').where({ enterprise_id: enterpriseId }).update({ business_date: asOf });
  const run = await startProvisioningRun(knex, new Date(), { enterpriseId, asOf, trigger: 'api', requestedBy: null });
  const peak = { heap: 0, rss: 0 };
  const sample = () => {
    beforeSample();
    const memory = process.memoryUsage();
    peak.heap = Math.max(peak.heap, memory.heapUsed);
    peak.rss = Math.max(peak.rss, memory.rss);
  };
  const sampler = setInterval(sample, everyMs);
  const began = performance.now();
  try {
    await client.workflow.execute('provisioningRun', {
      taskQueue,
      workflowId: `provisioning-run-${run.id}`,
      args: [{ enterpriseId, runId: run.id }],
    });
  } finally {
    clearInterval(sampler);
  }
  // Once more at the end: a run shorter than the interval (10 000 loans on a quiet machine) has no sample otherwise.
  sample();
  return { runId: run.id, seconds: (performance.now() - began) / 1000, peak };
}

let fullCollection: (() => void) | undefined;

/**
 * A full collection on demand, without starting node with --expose-gc: the flag set for the moment it takes to
 * get the function from a fresh context, then unset, so that no other context (the workflows') sees it.
 */
function collectGarbage(): void {
  if (fullCollection === undefined) {
    v8.setFlagsFromString('--expose-gc');
    fullCollection = vm.runInNewContext('gc') as () => void;
    v8.setFlagsFromString('--no-expose-gc');
  }
  fullCollection();
}

/**
 * Balanced; the provision accounts (39100, 392x, 393x) together equal the provisions of the positions; 3221, 3312
 * and the doubtful accounts of every cover (3332, 3342, 3352) hold the principal of each class.
 */
async function booksCheck(knex: Knex) {
  const balanceOf = (codes: readonly string[]) =>
    knex('journal_lines as l')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .whereIn('c.code', codes)
      .first(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  const difference = (await knex('journal_lines').first(knex.raw('(sum(debit) - sum(credit))::text AS difference')))
    .difference as string;
  const positions = await knex
    .from(provisionRowsAt(knex, nextDay).as('positions'))
    .first(knex.raw('COALESCE(sum(amount), 0)::text AS total'));
  const provisions = (await balanceOf(provisionAccounts)).balance as string;
  let classAccountsEqualPrincipal = true;
  for (const [loanClass, codes] of [
    ['performing', ['3221']],
    ['overdue', ['3312']],
    ['doubtful', doubtfulAccounts],
  ] as const) {
    const principal = await knex('loans')
      .where({ classification: loanClass })
      .first(knex.raw('COALESCE(sum(outstanding_principal), 0)::text AS total'));
    classAccountsEqualPrincipal &&= (await balanceOf(codes)).balance === principal.total;
  }
  const provisionsAccountEqualsPositions = BigInt(provisions) === -BigInt(positions.total as string);
  return {
    debitMinusCredit: difference,
    provisionsAccount: provisions,
    provisionsAccountEqualsPositions,
    classAccountsEqualPrincipal,
  };
}

async function ageQuery(knex: Knex, portfolio: Portfolio): Promise<number> {
  const began = performance.now();
  const result = await knex.raw(
    `
    SELECT l.id, ?::date - min(i.due_date) AS days_past_due
    FROM loans l LEFT JOIN loan_installments i ON i.loan_id = l.id AND i.paid_on IS NULL AND i.due_date < ?
    WHERE l.status = 'active' AND l.enterprise_id = ? GROUP BY l.id`,
    [firstDay, firstDay, portfolio.enterpriseId],
  );
  if (result.rows.length !== portfolio.loans) throw new Error(`the age query saw ${result.rows.length} loans`);
  return (performance.now() - began) / 1000;
}
