import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import type { Actor } from '../activities/context';
import { createEnterprise } from '../activities/enterprise/enterprises.activity';
import { recordBusinessEvent } from '../activities/events/record-business-event';
import { Money } from '../domain/money';
import { inTransaction } from '../db/transaction';
import { benchActivityContext, withBenchDatabase } from './bench-database';
import { percentile } from './load';
import { ratioLine, round, type Benchmark } from './benchmark';
import type { PgbenchReference } from './pgbench';

const writers = 8;
const warmupSeconds = 1;
const measuredSeconds = 5;

/**
 * Business events posted per second through recordBusinessEvent (event row, rule lookup, account checks, entry and
 * lines in one statement, deferred balance check at commit) by 8 concurrent writers, beside a pgbench tpcb-like
 * transaction (3 updates, 1 select, 1 insert) run by 8 writers through the same driver on the same server.
 */
export const ledgerPostingBenchmark: Benchmark = {
  name: 'ledger-posting',
  run: () => withBenchDatabase(measure, writers + 2),
};

/** Deposit events posted through recordBusinessEvent by `concurrency` writers: the raw ledger rate. */
export function measureLedgerPosting(knex: Knex, enterpriseId: string, concurrency = writers) {
  const now = new Date();
  let sequence = 0;
  const postEvent = () =>
    inTransaction(knex, (trx) =>
      recordBusinessEvent(trx, now, {
        enterpriseId,
        branchId: null,
        kind: 'deposit',
        amount: new Money(1000 + (sequence % 5000)),
        payload: {},
        idempotencyKey: `bench-${(sequence += 1)}`,
        actorId: null,
      }),
    );
  return load(postEvent, concurrency);
}

/** Statements one posting sends to the server, BEGIN and COMMIT included: each is a round trip. */
async function roundTripsPerPosting(knex: Knex, enterpriseId: string): Promise<number> {
  let statements = 0;
  const count = () => (statements += 1);
  knex.on('query', count);
  try {
    await inTransaction(knex, (trx) =>
      recordBusinessEvent(trx, new Date(), {
        enterpriseId,
        branchId: null,
        kind: 'deposit',
        amount: new Money(1000),
        payload: {},
        idempotencyKey: 'bench-round-trips',
        actorId: null,
      }),
    );
  } finally {
    knex.off('query', count);
  }
  return statements;
}

async function measure(knex: Knex, _url: string, pgbench: PgbenchReference) {
  const enterpriseId = await newEnterprise(knex);
  const roundTrips = await roundTripsPerPosting(knex, enterpriseId);
  const ledger = await measureLedgerPosting(knex, enterpriseId);
  await prepareTpcb(knex);
  const tpcb = await load(() => tpcbTransaction(knex));
  const unbalanced = await knex('journal_lines').first(knex.raw('(sum(debit) - sum(credit))::text AS difference'));
  const result = {
    name: 'ledger-posting',
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.availableParallelism(),
    writers,
    measuredSeconds,
    recordBusinessEvent: { ...ledger, roundTrips },
    tpcbLike: tpcb,
    ratio: { throughput: round(ledger.perSecond / tpcb.perSecond, 3) },
    booksDifference: unbalanced.difference,
    notes: [
      'Both loads: 8 async writers in one Node process on a pool of 10 connections, against one embedded ' +
        'PostgreSQL (default settings) on loopback, after a warm-up second.',
      'tpcbLike: the pgbench tpcb-like transaction replayed through knex by the same 8 writers (what the driver ' +
        'and pool cost); the reference of the ratio in the table is pgbench itself (`pgbench`).',
    ],
  };
  const summary =
    `recordBusinessEvent ${ledger.perSecond}/s (p50 ${ledger.p50Ms} ms, p99 ${ledger.p99Ms} ms) vs tpcb-like ` +
    `${tpcb.perSecond}/s: ratio ${result.ratio.throughput}`;
  return {
    result,
    summary,
    lines: [
      ratioLine(`recordBusinessEvent, ${writers} writers`, ledger.perSecond, pgbench, 0.9, `, p99 ${ledger.p99Ms} ms`),
    ],
  };
}

export async function newEnterprise(knex: Knex): Promise<string> {
  const context = benchActivityContext(knex);
  const [user] = await knex('users')
    .insert({ username: 'bench', password_hash: 'unused', full_name: 'Benchmark' })
    .returning('id');
  const actor: Actor = {
    userId: user.id,
    grants: [{ role: 'admin', enterpriseId: null, branchId: null }],
    requestId: 'bench',
  };
  const enterprise = await createEnterprise(context, actor, {
    code: 'BENCH',
    name: 'Bench',
    legalForm: 'C',
    country: 'CM',
    timeZone: 'Africa/Douala',
    headOffice: { code: 'HQ', name: 'HQ', address: '', city: '' },
  });
  return enterprise.id;
}

/** `concurrency` loops running `transaction` back to back; counts and times those that end in the measured window. */
async function load(transaction: () => Promise<unknown>, concurrency = writers) {
  const start = performance.now();
  const measureFrom = start + warmupSeconds * 1000;
  const stopAt = measureFrom + measuredSeconds * 1000;
  const latencies: number[] = [];
  let failures = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < stopAt) {
        const began = performance.now();
        try {
          await transaction();
          if (began >= measureFrom) latencies.push(performance.now() - began);
        } catch {
          failures += 1;
        }
      }
    }),
  );
  const sorted = latencies.sort((a, b) => a - b);
  return {
    transactions: sorted.length,
    failures,
    perSecond: round(sorted.length / measuredSeconds, 1),
    p50Ms: round(percentile(sorted, 0.5), 2),
    p99Ms: round(percentile(sorted, 0.99), 2),
  };
}

const accounts = 100_000;
const tellers = 10;

async function prepareTpcb(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE bench_branches (bid int PRIMARY KEY, bbalance int NOT NULL, filler char(88));
    CREATE TABLE bench_tellers (tid int PRIMARY KEY, bid int NOT NULL, tbalance int NOT NULL, filler char(84));
    CREATE TABLE bench_accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL, filler char(84));
    CREATE TABLE bench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
    INSERT INTO bench_branches VALUES (1, 0, '');
    INSERT INTO bench_tellers SELECT t, 1, 0, '' FROM generate_series(1, ${tellers}) t;
    INSERT INTO bench_accounts SELECT a, 1, 0, '' FROM generate_series(1, ${accounts}) a;`);
  await knex.raw('VACUUM ANALYZE'); // alone: VACUUM refuses to run inside the multi-statement batch above
}

/** pgbench's built-in tpcb-like script, with its random choices. */
async function tpcbTransaction(knex: Knex): Promise<void> {
  const aid = 1 + Math.floor(Math.random() * accounts);
  const tid = 1 + Math.floor(Math.random() * tellers);
  const delta = Math.floor(Math.random() * 10001) - 5000;
  await knex.transaction(async (trx) => {
    await trx.raw('UPDATE bench_accounts SET abalance = abalance + ? WHERE aid = ?', [delta, aid]);
    await trx.raw('SELECT abalance FROM bench_accounts WHERE aid = ?', [aid]);
    await trx.raw('UPDATE bench_tellers SET tbalance = tbalance + ? WHERE tid = ?', [delta, tid]);
    await trx.raw('UPDATE bench_branches SET bbalance = bbalance + ? WHERE bid = 1', [delta]);
    await trx.raw('INSERT INTO bench_history (tid, bid, aid, delta, mtime) VALUES (?, 1, ?, ?, CURRENT_TIMESTAMP)', [
      tid,
      aid,
      delta,
    ]);
  });
}
