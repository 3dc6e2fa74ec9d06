import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import type { Actor } from '../activities/context';
import { createShareType } from '../activities/shares/share-types.activity';
import { subscribeShares } from '../activities/shares/share-subscriptions.activity';
import { Money } from '../domain/money';
import { ratioLine, round, type Benchmark, type BenchmarkReport, type TableLine } from './benchmark';
import { benchActivityContext, withBenchDatabase } from './bench-database';
import { seedAccounts, signIn } from './deposits-api.bench';
import { newEnterprise } from './ledger-posting.bench';
import { runLoad, type LoadResult } from './load';
import type { PgbenchReference } from './pgbench';
import { startServerProcess } from './server-process';

const clients = 16;

/**
 * Share subscriptions and payments (libérations) per second through the HTTP API with 16 concurrent clients,
 * each for its own member, beside cash deposits through the same server on the same database in the same run.
 * A subscription posts two entries (the subscription and its payment) and takes two gap-free numbers of the
 * enterprise's ShareSequence; a payment posts one and takes one. Afterwards the books are checked against the
 * register and the numbering for gaps and duplicates.
 */
export const sharesApiBenchmark: Benchmark = {
  name: 'shares-api',
  run: () => withBenchDatabase(measure, clients + 4),
};

async function measure(knex: Knex, url: string, pgbench: PgbenchReference): Promise<BenchmarkReport> {
  const enterpriseId = await newEnterprise(knex);
  const { accounts, teller } = await seedAccounts(knex, enterpriseId, clients);
  const { members, ordinary, partial } = await seedShares(knex, enterpriseId, teller);
  const server = await startServerProcess('servers/koa-app.ts', {
    BENCH_DATABASE_URL: url,
    BENCH_JWT_SECRET: randomBytes(32).toString('hex'),
  });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const headers = { authorization: `Bearer ${await signIn(base, 'teller')}` };
    const load = async (path: string | ((connection: number) => string), body: (connection: number) => string) => {
      const cpuBefore = await server.cpuMicros();
      const result = await runLoad({
        url: typeof path === 'string' ? `${base}${path}` : (connection) => `${base}${path(connection)}`,
        method: 'POST',
        headers,
        body,
        connections: clients,
        warmupMs: 1000,
        durationMs: 5000,
        requestTimeoutMs: 5000,
        maxSamples: 200_000,
      });
      // Includes the warm-up second: an upper bound of the API process's own CPU per operation.
      return { ...result, cpuMicros: ((await server.cpuMicros()) - cpuBefore) / Math.max(1, result.requests) };
    };
    const deposits = await load(
      (connection) => `/api/v1/members/accounts/${accounts[connection]}/deposits/`,
      () => JSON.stringify({ amount: '2500', reference: 'bench' }),
    );
    const subscriptions = await load('/api/v1/shares/subscriptions/', (connection) =>
      JSON.stringify({ client: members[connection], share_type: ordinary, shares: 1 }),
    );
    const payments = await load('/api/v1/shares/payments/', (connection) =>
      JSON.stringify({ subscription: partial[connection], amount: '100' }),
    );
    const books = await checkBooks(knex, enterpriseId);
    const result = {
      name: 'shares-api',
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.availableParallelism(),
      clients,
      deposits: figures(deposits),
      subscriptions: figures(subscriptions),
      payments: figures(payments),
      ratio: {
        subscriptionsToDeposits: round(subscriptions.rps / deposits.rps, 3),
        paymentsToDeposits: round(payments.rps / deposits.rps, 3),
      },
      books,
      notes,
    };
    const line = (what: string, shown: ReturnType<typeof figures>) =>
      `${what} ${shown.perSecond}/s (p50 ${shown.p50Ms} ms, p99 ${shown.p99Ms} ms, ` +
      `${shown.serverCpuMicrosPerOperation} µs API CPU)`;
    const summary =
      `${line('deposits', result.deposits)}; ${line('subscriptions', result.subscriptions)}; ` +
      `${line('payments', result.payments)}; books tie out: ${books.tieOut}, numbering gap-free: ${books.gapFree}`;
    return { result, summary, lines: tableLines(subscriptions, payments, books.tieOut && books.gapFree, pgbench) };
  } finally {
    await server.stop();
  }
}

/** A load's figures in the JSON. */
function figures(load: MeasuredLoad) {
  return {
    operations: load.requests,
    errors: load.errors,
    perSecond: round(load.rps, 1),
    p50Ms: round(load.p50Ms, 2),
    p99Ms: round(load.p99Ms, 2),
    serverCpuMicrosPerOperation: round(load.cpuMicros, 0),
  };
}

/** The run's targets; a line whose books do not check is not met, however fast. */
function tableLines(
  subscriptions: MeasuredLoad,
  payments: MeasuredLoad,
  booksCheck: boolean,
  pgbench: PgbenchReference,
): TableLine[] {
  const books = booksCheck ? '' : ' (books do not check)';
  const line = (work: string, load: MeasuredLoad, operation: string): TableLine => ({
    ...ratioLine(
      `${work} through the API, ${clients} clients`,
      load.rps,
      pgbench,
      0.3,
      `, p50 ${round(load.p50Ms, 1)} ms, ` +
        `API process CPU ${round(load.cpuMicros / 1000, 2)} ms per ${operation}${books}`,
    ),
    ...(booksCheck ? {} : { met: false }),
  });
  return [line('share subscriptions', subscriptions, 'subscription'), line('share payments', payments, 'payment')];
}

/** A load's figures with the API process's CPU per operation. */
type MeasuredLoad = LoadResult & { cpuMicros: number };

/** The JSON's notes: how the figures were taken. */
const notes = [
  'The production app (createApp) in its own Node process; 16 keep-alive clients in this process, Bearer token, ' +
    'no Idempotency-Key; deposits, then subscriptions, then payments, one after the other.',
  'Deposits: each client on its own account. Subscriptions: one share of 1 000 XAF paid in full, each client for ' +
    'its own member. Payments: 100 XAF on a partly paid subscription of its own member.',
  'Subscriptions and payments take gap-free numbers of one counter per enterprise and year: concurrent ones queue ' +
    'on it, by design.',
  'One embedded PostgreSQL (default settings) on the same 2-core machine.',
];

/** One member per client; an ordinary type paid in full, and a partly paid subscription per member to pay up. */
async function seedShares(knex: Knex, enterpriseId: string, teller: Actor) {
  const context = benchActivityContext(knex);
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')) as { id: string };
  const rows = await knex('client_profiles')
    .insert(
      Array.from({ length: clients }, (_, index) => ({
        enterprise_id: enterpriseId,
        branch_id: branch.id,
        member_number: `BS-${index}`,
        kind: 'natural_person',
        first_name: 'Bench',
        last_name: `Shareholder ${index}`,
        id_document_type: 'national_id',
        id_document_number: `BS${index}`,
        birth_date: '1990-01-01',
        membership_date: '2026-01-01',
        created_by: teller.userId,
      })),
    )
    .returning('id');
  const members = rows.map((row) => row.id as string);
  const ordinary = await createShareType(context, teller, enterpriseId, '002', {
    nominalValue: '1000',
    maxShares: 1_000_000,
  });
  const honorary = await createShareType(context, teller, enterpriseId, '003', {
    nominalValue: '1000000',
    maxShares: 1000,
    partialPaymentAllowed: true,
  });
  const partial: string[] = [];
  for (const member of members) {
    const { subscription } = await subscribeShares(context, teller, {
      clientId: member,
      shareTypeId: honorary.id,
      shares: 1000,
      initialPayment: new Money('250000000'),
      channel: 'cash',
      accountId: null,
      reference: '',
      idempotencyKey: null,
    });
    partial.push(subscription.id);
  }
  return { members, ordinary: ordinary.id, partial };
}

/** The capital accounts against the subscriptions' totals, and the ShareSequence numbers of each kind. */
async function checkBooks(knex: Knex, enterpriseId: string) {
  const row = (
    await knex.raw(
      `SELECT (SELECT sum(debit) - sum(credit) FROM journal_lines)::text AS difference,
              (SELECT sum(l.credit - l.debit)
                 FROM journal_lines l
                 JOIN company_chart_entries c ON c.id = l.chart_entry_id
                WHERE c.code = '10000')::text AS ledger_paid,
              (SELECT sum(paid_amount - withdrawn_paid)
                 FROM share_subscriptions
                WHERE enterprise_id = :enterpriseId)::text AS register_paid,
              (SELECT sum(l.credit - l.debit)
                 FROM journal_lines l
                 JOIN company_chart_entries c ON c.id = l.chart_entry_id
                WHERE c.code = '10010')::text AS ledger_unpaid,
              (SELECT sum(amount - paid_amount - withdrawn_unpaid)
                 FROM share_subscriptions
                WHERE enterprise_id = :enterpriseId)::text AS register_unpaid,
              (SELECT count(*) = count(DISTINCT number) AND count(*) = max(right(number, 6)::int)
                 FROM share_subscriptions) AND
              (SELECT count(*) = count(DISTINCT number) AND count(*) = max(right(number, 6)::int)
                 FROM share_payments) AS gap_free,
              (SELECT count(*) FROM share_subscriptions)::int AS subscriptions,
              (SELECT count(*) FROM share_payments)::int AS payments`,
      { enterpriseId },
    )
  ).rows[0];
  return {
    debitMinusCredit: row.difference as string,
    paid: { ledger: row.ledger_paid as string, register: row.register_paid as string },
    unpaid: { ledger: row.ledger_unpaid as string, register: row.register_unpaid as string },
    tieOut:
      row.ledger_paid === row.register_paid && row.ledger_unpaid === row.register_unpaid && row.difference === '0',
    gapFree: row.gap_free as boolean,
    subscriptionRows: row.subscriptions as number,
    paymentRows: row.payments as number,
  };
}
