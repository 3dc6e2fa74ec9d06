import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import { hashPassword } from '../activities/auth/passwords';
import type { Actor } from '../activities/context';
import { ratioLine, round, type Benchmark, type BenchmarkReport, type TableLine } from './benchmark';
import { withBenchDatabase } from './bench-database';
import { measureLedgerPosting, newEnterprise } from './ledger-posting.bench';
import { runLoad, type LoadOptions, type LoadResult } from './load';
import type { PgbenchReference } from './pgbench';
import { postgresCpuReader } from './process-cpu';
import { startServerProcess, type ServerProcess } from './server-process';

const clients = 16;
// A server process runs its first seconds on code V8 has not optimised yet: what a long-running API costs per deposit
// is measured once that is over (back to back, 1.97 ms of API CPU per deposit after 1 s of warm-up, 1.38 ms after 5 s).
const warmupMs = 5000;
const durationMs = 5000;
export const tellerPassword = 'bench password 123';

/**
 * Cash deposits per second through the HTTP API (authentication from the database, validation, account
 * lock, balance, event, entry, all in the real app in its own process) with 16 concurrent clients, each
 * on its own member account, against the real pgbench on the same server; beside the raw recordBusinessEvent
 * rate with 16 writers on the same database in the same run. Afterwards the books are checked: balanced, and
 * every member account's balance equal to its ledger lines (the API's own reconciliation).
 */
export const depositsApiBenchmark: Benchmark = {
  name: 'deposits-api',
  run: () => withBenchDatabase(measure, clients + 4),
};

async function measure(knex: Knex, url: string, pgbench: PgbenchReference): Promise<BenchmarkReport> {
  const enterpriseId = await newEnterprise(knex);
  const { accounts } = await seedAccounts(knex, enterpriseId, clients);
  await seedDirector(knex, enterpriseId);
  const jwtSecret = randomBytes(32).toString('hex');
  const server = await startServerProcess('servers/koa-app.ts', {
    BENCH_DATABASE_URL: url,
    BENCH_JWT_SECRET: jwtSecret,
  });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const headers = { authorization: `Bearer ${await signIn(base, 'teller')}` };
    const deposit = (connection: number) => `${base}/api/v1/members/accounts/${accounts[connection]}/deposits/`;
    const body = JSON.stringify({ amount: '2500', reference: 'bench' });
    const probe = await fetch(deposit(0), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
    if (probe.status !== 201) throw new Error(`a deposit failed: ${probe.status} ${await probe.text()}`);
    const { api, cpuMicros, rss } = await loadServer(server, await postgresCpuReader(knex), {
      url: deposit,
      method: 'POST',
      headers,
      body,
      connections: clients,
      warmupMs,
      durationMs,
      requestTimeoutMs: 5000,
      maxSamples: 200_000,
    });
    const perDeposit = (micros: number) => round(micros / Math.max(1, api.requests) / 1000, 3);
    const cpuMsPerDeposit = cpuMicros.api / Math.max(1, api.requests) / 1000;
    const ledger = await measureLedgerPosting(knex, enterpriseId, clients);
    const books = await checkBooks(knex, base, enterpriseId);
    const result = {
      name: 'deposits-api',
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.availableParallelism(),
      clients,
      api: {
        deposits: api.requests,
        errors: api.errors,
        perSecond: round(api.rps, 1),
        p50Ms: round(api.p50Ms, 2),
        p99Ms: round(api.p99Ms, 2),
        serverCpuMicrosPerDeposit: round(cpuMsPerDeposit * 1000, 0),
        serverRssMb: { peak: round(rss.peak / 2 ** 20, 1), end: round(rss.end / 2 ** 20, 1) },
        cpuMsPerDeposit: {
          api: perDeposit(cpuMicros.api),
          clients: perDeposit(cpuMicros.clients),
          postgres: perDeposit(cpuMicros.postgres),
        },
      },
      ledger: { perSecond: ledger.perSecond, p50Ms: ledger.p50Ms, p99Ms: ledger.p99Ms, failures: ledger.failures },
      ratio: { pgbench: round(api.rps / pgbench.tps, 3), ledger: round(api.rps / ledger.perSecond, 3) },
      books,
      notes,
    };
    const summary =
      `API deposits ${result.api.perSecond}/s = ${result.ratio.pgbench} × pgbench (p50 ${result.api.p50Ms} ms, p99 ` +
      `${result.api.p99Ms} ms, API process ${result.api.serverCpuMicrosPerDeposit} µs CPU each, RSS ≤ ` +
      `${result.api.serverRssMb.peak} MB) vs ledger ${ledger.perSecond}/s; books balanced: ${books.balanced}, ` +
      `accounts out of balance: ${books.accountsOutOfBalance}`;
    return { result, summary, lines: tableLines(api, cpuMsPerDeposit, rss.peak, pgbench) };
  } finally {
    await server.stop();
  }
}

/** The JSON's notes: how the figures were taken. */
const notes = [
  'API: the production app (createApp, info-level logging to /dev/null) in its own Node process; ' +
    '16 keep-alive clients in this process, each depositing on its own account, Bearer token, no Idempotency-Key.',
  "CPU per deposit: the API process's CPU time (user + system) over the measured period (after 5 s of warm-up), " +
    'over the deposits answered in it; cpuMsPerDeposit gives the same for this process (the 16 HTTP clients) and ' +
    'the whole PostgreSQL server (NaN where /proc cannot be read). RSS: sampled every 250 ms during the load.',
  'ledger: recordBusinessEvent with 16 writers in this process, same database, right after.',
  'books: debit minus credit over every line (0), entries that do not balance (0), and ' +
    'GET /api/v1/members/reconciliation/ (accounts whose balance differs from their ledger lines: none).',
  'One embedded PostgreSQL (default settings) for pgbench, the API and the ledger, on the same 2-core machine: ' +
    'the processes compete for CPU.',
];

function tableLines(api: LoadResult, cpuMsPerDeposit: number, rssPeak: number, pgbench: PgbenchReference): TableLine[] {
  const work = `deposits through the API, ${clients} clients`;
  const rssMb = rssPeak / 2 ** 20;
  return [
    ratioLine(work, api.rps, pgbench, 0.8, `, p50 ${round(api.p50Ms, 1)} ms`),
    { work: `${work}: p99`, measured: `${round(api.p99Ms, 1)} ms`, target: '≤ 40 ms', met: api.p99Ms <= 40 },
    {
      work: `${work}: API process CPU per deposit`,
      measured: `${round(cpuMsPerDeposit, 2)} ms`,
      target: '≤ 1 ms',
      met: cpuMsPerDeposit <= 1,
    },
    { work: `${work}: API process RSS`, measured: `${round(rssMb, 0)} MB`, target: '≤ 250 MB', met: rssMb <= 250 },
  ];
}

/**
 * The load, with the CPU time of the server, of this process (the clients) and of PostgreSQL read when the
 * warm-up ends and when the last answer is in (the period rps is counted over), and the server's RSS sampled
 * throughout.
 */
async function loadServer(server: ServerProcess, postgresCpu: (() => number) | null, options: LoadOptions) {
  const cpu = async () => {
    const own = process.cpuUsage();
    return { api: await server.cpuMicros(), clients: own.user + own.system, postgres: postgresCpu?.() ?? Number.NaN };
  };
  let cpuAtMeasureStart: ReturnType<typeof cpu> | undefined;
  const warmedUp = setTimeout(() => (cpuAtMeasureStart = cpu()), options.warmupMs);
  let peak = 0;
  const sampler = setInterval(
    () =>
      void server.rssBytes().then(
        (rss) => (peak = Math.max(peak, rss)),
        () => undefined,
      ),
    250,
  );
  try {
    const api = await runLoad(options);
    const cpuAtEnd = await cpu();
    const end = await server.rssBytes();
    if (cpuAtMeasureStart === undefined) throw new Error('The load ended before its warm-up did.');
    const start = await cpuAtMeasureStart;
    const cpuMicros = {
      api: cpuAtEnd.api - start.api,
      clients: cpuAtEnd.clients - start.clients,
      postgres: cpuAtEnd.postgres - start.postgres,
    };
    return { api, cpuMicros, rss: { peak: Math.max(peak, end), end } };
  } finally {
    clearTimeout(warmedUp);
    clearInterval(sampler);
  }
}

/** A Bearer token of `username` (the bench's users share one password unless told). */
export async function signIn(base: string, username: string, password = tellerPassword): Promise<string> {
  const token = await fetch(`${base}/api/v1/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!token.ok) throw new Error(`sign-in failed: ${token.status} ${await token.text()}`);
  return ((await token.json()) as { access: string }).access;
}

/** A director of the enterprise: who may read the reconciliation. */
export async function seedDirector(knex: Knex, enterpriseId: string): Promise<void> {
  const [director] = await knex('users')
    .insert({ username: 'director', password_hash: await hashPassword(tellerPassword), full_name: 'Director' })
    .returning('id');
  await knex('role_grants').insert({
    user_id: director.id,
    role: 'direction',
    enterprise_id: enterpriseId,
    branch_id: null,
  });
}

/** The books after the run: balanced overall and entry by entry, and no member account apart from its ledger lines. */
export async function checkBooks(knex: Knex, base: string, enterpriseId: string) {
  const totals = await knex.raw(`
    SELECT (SELECT coalesce(sum(debit) - sum(credit), 0) FROM journal_lines)::text AS difference,
           (SELECT count(*)
              FROM (SELECT 1 FROM journal_lines GROUP BY entry_id HAVING sum(debit) <> sum(credit)) unbalanced
           )::int AS unbalanced_entries,
           (SELECT count(*)
              FROM business_event_logs
             WHERE kind = 'deposit' AND subject_id IS NOT NULL)::int AS deposits`);
  const row = totals.rows[0] as { difference: string; unbalanced_entries: number; deposits: number };
  const headers = { authorization: `Bearer ${await signIn(base, 'director')}` };
  const answer = await fetch(`${base}/api/v1/members/reconciliation/?enterprise=${enterpriseId}`, { headers });
  if (!answer.ok) throw new Error(`reconciliation failed: ${answer.status} ${await answer.text()}`);
  const gaps = (await answer.json()) as { count: number };
  return {
    debitMinusCredit: row.difference,
    unbalancedEntries: row.unbalanced_entries,
    accountDeposits: row.deposits,
    accountsOutOfBalance: gaps.count,
    balanced: Number(row.difference) === 0 && row.unbalanced_entries === 0 && gaps.count === 0,
  };
}

/** A teller (cashier of the whole enterprise), a savings product on 373, and one member with `count` open accounts. */
export async function seedAccounts(
  knex: Knex,
  enterpriseId: string,
  count: number,
): Promise<{ accounts: string[]; teller: Actor }> {
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id', 'code')) as {
    id: string;
    code: string;
  };
  const [teller] = await knex('users')
    .insert({ username: 'teller', password_hash: await hashPassword(tellerPassword), full_name: 'Teller' })
    .returning('id');
  await knex('role_grants').insert({
    user_id: teller.id,
    role: 'cashier',
    enterprise_id: enterpriseId,
    branch_id: null,
  });
  const [product] = await knex('savings_products')
    .insert({
      enterprise_id: enterpriseId,
      code: 'EPA',
      name: 'Épargne',
      kind: 'demand_deposit',
      deposit_account_code: '373',
      interest_expense_account_code: '613',
      accrued_interest_account_code: '37800',
    })
    .returning('id');
  const [client] = await knex('client_profiles')
    .insert({
      enterprise_id: enterpriseId,
      branch_id: branch.id,
      member_number: 'BENCH-1',
      kind: 'natural_person',
      first_name: 'Bench',
      last_name: 'Member',
      id_document_type: 'national_id',
      id_document_number: 'BENCH1',
      birth_date: '1990-01-01',
      membership_date: '2026-01-01',
      created_by: teller.id,
    })
    .returning('id');
  const rows = await knex('comptes_clients')
    .insert(
      Array.from({ length: count }, (_, index) => ({
        enterprise_id: enterpriseId,
        branch_id: branch.id,
        client_id: client.id,
        product_id: product.id,
        number: `${branch.code}-EPA-${index}`,
        opened_on: '2026-01-01',
      })),
    )
    .returning('id');
  return {
    accounts: rows.map((row) => row.id as string),
    teller: {
      userId: teller.id as string,
      grants: [{ role: 'cashier', enterpriseId, branchId: null }],
      requestId: 'bench',
    },
  };
}
