import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import { ratioLine, round, type Benchmark, type BenchmarkReport, type TableLine } from './benchmark';
import { withBenchDatabase } from './bench-database';
import { signIn } from './deposits-api.bench';
import { newEnterprise } from './ledger-posting.bench';
import { benchPassword, seedLending } from './loan-seed';
import { runLoad, type LoadResult } from './load';
import type { PgbenchReference } from './pgbench';
import { startServerProcess } from './server-process';

const clients = 16;

/**
 * Loan repayments per second through the HTTP API with 16 concurrent clients, each repaying its own loan
 * (loan lock, penalty accrual, allocation, installments, one posted event per component, the repayment row),
 * in the real app in its own process, beside the run's pgbench. Afterwards the books are checked: balanced
 * entry by entry, and the portfolio account equal to the loans' outstanding principal.
 */
export const repaymentsApiBenchmark: Benchmark = {
  name: 'repayments-api',
  run: () => withBenchDatabase(measure, clients + 4),
};

async function measure(knex: Knex, url: string, pgbench: PgbenchReference): Promise<BenchmarkReport> {
  const enterpriseId = await newEnterprise(knex);
  const lending = await seedLending(knex, enterpriseId);
  // 24 monthly installments of about 500 000 XAF: 100 XAF repayments never exhaust what is payable.
  const loans: string[] = [];
  for (let index = 0; index < clients; index += 1) loans.push(await lending.disbursedLoan('10000000'));
  const jwtSecret = randomBytes(32).toString('hex');
  const server = await startServerProcess('servers/koa-app.ts', {
    BENCH_DATABASE_URL: url,
    BENCH_JWT_SECRET: jwtSecret,
  });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const headers = { authorization: `Bearer ${await signIn(base, 'bench_cashier', benchPassword)}` };
    const probe = await fetch(`${base}/api/v1/loans/repayments/`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ loan: loans[0], amount: '100' }),
    });
    if (probe.status !== 201) throw new Error(`a repayment failed: ${probe.status} ${await probe.text()}`);
    const load = {
      url: `${base}/api/v1/loans/repayments/`,
      method: 'POST',
      headers,
      body: (connection: number) => JSON.stringify({ loan: loans[connection], amount: '100', reference: 'bench' }),
      connections: clients,
      requestTimeoutMs: 5000,
      maxSamples: 200_000,
    } as const;
    // As the deposits benchmark: the server's first seconds run code V8 has not optimised yet; they are not measured.
    await runLoad({ ...load, warmupMs: 0, durationMs: 4000 });
    const rowsBefore = await repaymentRows(knex);
    const cpuBefore = await server.cpuMicros();
    const api = await runLoad({ ...load, warmupMs: 1000, durationMs: 5000 });
    // Over the whole measured load, its own warm-up second included, against every repayment it recorded (the rows, not
    // the answers counted in the measured period).
    const cpuMsPerRepayment =
      ((await server.cpuMicros()) - cpuBefore) / Math.max(1, (await repaymentRows(knex)) - rowsBefore) / 1000;
    const books = await checkBooks(knex);
    const result = {
      name: 'repayments-api',
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.availableParallelism(),
      clients,
      api: {
        repayments: api.requests,
        errors: api.errors,
        perSecond: round(api.rps, 1),
        p50Ms: round(api.p50Ms, 2),
        p99Ms: round(api.p99Ms, 2),
        serverCpuMicrosPerRepayment: round(cpuMsPerRepayment * 1000, 0),
      },
      ratio: { pgbench: round(api.rps / pgbench.tps, 3) },
      books,
      notes,
    };
    const summary =
      `API repayments ${result.api.perSecond}/s = ${result.ratio.pgbench} × pgbench (p50 ${result.api.p50Ms} ms, ` +
      `p99 ${result.api.p99Ms} ms, API process ${result.api.serverCpuMicrosPerRepayment} µs CPU each); books ` +
      `balanced: ${books.balanced}, portfolio = outstanding: ${books.portfolioEqualsOutstanding}`;
    return {
      result,
      summary,
      lines: tableLines(api, cpuMsPerRepayment, books.balanced && books.portfolioEqualsOutstanding, pgbench),
    };
  } finally {
    await server.stop();
  }
}

/** The JSON's notes: how the figures were taken. */
const notes = [
  'The production app (createApp) in its own Node process; 16 keep-alive clients in this process, each on its ' +
    'own disbursed loan, Bearer token, no Idempotency-Key.',
  'Each repayment of 100 XAF goes to the interest of the first installment: one posted event per repayment ' +
    '(interest).',
  "CPU per repayment: the API process's CPU time (user + system) from the start of the measured load's warm-up " +
    'second (after 4 s of unmeasured load) to the last answer, over the repayments recorded in that time.',
  'books: debit minus credit over every line (0), entries that do not balance (0), the portfolio account 3221 ' +
    "against the loans' outstanding principal (all loans performing).",
  'One embedded PostgreSQL (default settings) for pgbench and the API, on the same 2-core machine: the ' +
    'processes compete for CPU.',
];

const repaymentRows = async (knex: Knex): Promise<number> =>
  Number((await knex('loan_repayments').count({ rows: '*' }).first())!.rows);

/** The run's targets; a line whose books do not check is not met, however fast. */
function tableLines(
  api: LoadResult,
  cpuMsPerRepayment: number,
  booksCheck: boolean,
  pgbench: PgbenchReference,
): TableLine[] {
  const work = `repayments through the API, ${clients} clients`;
  const books = booksCheck ? '' : ' (books do not check)';
  return [
    {
      ...ratioLine(
        work,
        api.rps,
        pgbench,
        0.5,
        `, p50 ${round(api.p50Ms, 1)} ms, p99 ${round(api.p99Ms, 1)} ms${books}`,
      ),
      ...(booksCheck ? {} : { met: false }),
    },
    {
      work: `${work}: API process CPU per repayment`,
      measured: `${round(cpuMsPerRepayment, 2)} ms`,
      target: '≤ 2 ms',
      met: cpuMsPerRepayment <= 2,
    },
  ];
}

/** Balanced overall and entry by entry; the portfolio account equal to the disbursed loans' outstanding principal. */
export async function checkBooks(knex: Knex) {
  const totals = await knex.raw(`
    SELECT (SELECT coalesce(sum(debit) - sum(credit), 0) FROM journal_lines)::text AS difference,
           (SELECT count(*)
              FROM (SELECT 1 FROM journal_lines GROUP BY entry_id HAVING sum(debit) <> sum(credit)) unbalanced
           )::int AS unbalanced_entries,
           (SELECT sum(l.debit - l.credit)
              FROM journal_lines l
              JOIN company_chart_entries c ON c.id = l.chart_entry_id
             WHERE c.code = '3221')::text AS portfolio,
           (SELECT sum(outstanding_principal) FROM loans WHERE status <> 'awaiting_disbursement')::text AS outstanding,
           (SELECT count(*) FROM loan_repayments)::int AS repayments`);
  const row = totals.rows[0] as {
    difference: string;
    unbalanced_entries: number;
    portfolio: string;
    outstanding: string;
    repayments: number;
  };
  return {
    debitMinusCredit: row.difference,
    unbalancedEntries: row.unbalanced_entries,
    balanced: row.difference === '0' && row.unbalanced_entries === 0,
    portfolio: row.portfolio,
    outstanding: row.outstanding,
    portfolioEqualsOutstanding: row.portfolio === row.outstanding,
    repaymentRows: row.repayments,
  };
}
