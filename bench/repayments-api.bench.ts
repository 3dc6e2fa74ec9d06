import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import { round, type Benchmark } from './benchmark';
import { withBenchDatabase } from './bench-database';
import { newEnterprise } from './ledger-posting.bench';
import { benchPassword, seedLending } from './loan-seed';
import { runLoad } from './load';
import { startServerProcess } from './server-process';

const clients = 16;

/**
 * Loan repayments per second through the HTTP API with 16 concurrent clients, each repaying its own loan
 * (loan lock, penalty accrual, allocation, installments, three posted events, the repayment row), in the
 * real app in its own process. Afterwards the books are checked: balanced, and the portfolio account equal
 * to the loans' outstanding principal.
 */
export const repaymentsApiBenchmark: Benchmark = {
  name: 'repayments-api',
  run: () => withBenchDatabase(measure, clients + 4),
};

async function measure(knex: Knex, url: string) {
  const enterpriseId = await newEnterprise(knex);
  const lending = await seedLending(knex, enterpriseId);
  // 24 monthly installments of about 500 000 XAF: 100 XAF repayments never exhaust what is payable.
  const loans: string[] = [];
  for (let index = 0; index < clients; index += 1) loans.push(await lending.disbursedLoan('10000000'));
  const jwtSecret = randomBytes(32).toString('hex');
  const server = await startServerProcess('servers/koa-app.ts', { BENCH_DATABASE_URL: url, BENCH_JWT_SECRET: jwtSecret });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const token = await fetch(`${base}/api/v1/token/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench_cashier', password: benchPassword }) });
    if (!token.ok) throw new Error(`sign-in failed: ${token.status} ${await token.text()}`);
    const { access } = (await token.json()) as { access: string };
    const headers = { authorization: `Bearer ${access}` };
    const probe = await fetch(`${base}/api/v1/loans/repayments/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ loan: loans[0], amount: '100' }) });
    if (probe.status !== 201) throw new Error(`a repayment failed: ${probe.status} ${await probe.text()}`);
    const cpuBefore = await server.cpuMicros();
    const api = await runLoad({
      url: `${base}/api/v1/loans/repayments/`,
      method: 'POST',
      headers,
      body: (connection) => JSON.stringify({ loan: loans[connection], amount: '100', reference: 'bench' }),
      connections: clients,
      warmupMs: 1000,
      durationMs: 5000,
      requestTimeoutMs: 5000,
      maxSamples: 200_000,
    });
    const serverCpuMicrosPerRepayment = ((await server.cpuMicros()) - cpuBefore) / Math.max(1, api.requests);
    const books = await knex.raw(`
      SELECT (SELECT sum(debit) - sum(credit) FROM journal_lines)::text AS difference,
             (SELECT sum(l.debit - l.credit) FROM journal_lines l JOIN company_chart_entries c ON c.id = l.chart_entry_id WHERE c.code = '3221')::text AS portfolio,
             (SELECT sum(outstanding_principal) FROM loans)::text AS outstanding,
             (SELECT count(*) FROM loan_repayments)::int AS repayments`);
    const check = books.rows[0] as { difference: string; portfolio: string; outstanding: string; repayments: number };
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
        serverCpuMicrosPerRepayment: round(serverCpuMicrosPerRepayment, 0),
      },
      books: { debitMinusCredit: check.difference, portfolioEqualsOutstanding: check.portfolio === check.outstanding, repaymentRows: check.repayments },
      notes: [
        'The production app (createApp) in its own Node process; 16 keep-alive clients in this process, each on its own disbursed loan, Bearer token, no Idempotency-Key.',
        'Each repayment of 100 XAF goes to the interest of the first installment: one posted event per repayment (interest).',
        'One embedded PostgreSQL (default settings) on the same 2-core machine.',
      ],
    };
    const summary = `API repayments ${result.api.perSecond}/s (p50 ${result.api.p50Ms} ms, p99 ${result.api.p99Ms} ms, API process ${result.api.serverCpuMicrosPerRepayment} µs CPU each); books difference ${check.difference}, portfolio = outstanding: ${result.books.portfolioEqualsOutstanding}`;
    return { result, summary };
  } finally {
    await server.stop();
  }
}
