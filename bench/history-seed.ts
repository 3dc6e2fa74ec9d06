import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createKnex, migrateToLatest, type Knex } from '../db/knex';
import { startEmbeddedPostgres } from '../runtime/embedded-postgres';
import { freePort } from '../runtime/free-port';
import { round } from './benchmark';
import { seedDirector } from './deposits-api.bench';
import { newEnterprise } from './ledger-posting.bench';
import { createBenchProduct, seedPortfolio } from './loan-seed';
import type { Actor } from '../activities/context';
import { depositCash } from '../activities/members/cash-operations.activity';
import { Money } from '../domain/money';
import { benchActivityContext } from './bench-database';

/**
 * A cooperative's whole history (issue 32), seeded once and kept between runs: its members, accounts, loans with
 * their schedules and five years of postings, at `BENCH_HISTORY_SCALE` of the size (default 0.02, 1 for
 * the whole). The cluster lives in a cache folder outside the repository, named after the migrations, this seed's
 * version and the size: a folder whose seeding did not finish, or of other migrations, is never reused.
 */
const seedVersion = 3;
const fullSize = { members: 50_000, accounts: 80_000, loans: 10_000, years: 5, linesPerYear: 1_000_000 };
/** The five years end with the current one, which the enterprise was created with: the reports read year 5. */
export const historyYears = [2022, 2023, 2024, 2025, 2026] as const;
/** The database the history is in; benchmarks that write work on a copy (`copyOfHistory`). */
const historyDatabase = 'history';

export interface HistorySize {
  scale: number;
  members: number;
  accounts: number;
  loans: number;
  linesPerYear: number;
}

function historySize(): HistorySize {
  const scale = Number(process.env.BENCH_HISTORY_SCALE ?? '0.02');
  if (!(scale > 0 && scale <= 1)) throw new Error('BENCH_HISTORY_SCALE must be a fraction in (0, 1]');
  const scaled = (count: number) => Math.max(10, Math.round(count * scale));
  return {
    scale,
    members: scaled(fullSize.members),
    accounts: scaled(fullSize.accounts),
    loans: scaled(fullSize.loans),
    linesPerYear: scaled(fullSize.linesPerYear),
  };
}

/** What the seeding left, as recorded in the folder's `seeded.json` once it finished. */
export interface HistoryFacts {
  size: HistorySize;
  enterpriseId: string;
  chartId: string;
  /** The account most lines hit (cash): the general ledger's. */
  busyAccount: string;
  journalLines: number;
  seedSeconds: Record<string, number>;
  seededAt: string;
}

export interface SeededHistory {
  facts: HistoryFacts;
  folder: string;
  /** True when the cluster was found seeded; false when this run seeded it. */
  reused: boolean;
  /** The maintenance database (pgbench's) and the history's. */
  serverUrl: string;
  url: string;
  stop(): Promise<void>;
}

/** Starts the cached cluster of the current size, seeding it first when there is none or it is not valid. */
export async function openHistory(): Promise<SeededHistory> {
  const size = historySize();
  const folder = path.join(cacheRoot(), `bench-history-${cacheKey(size)}`);
  const marker = path.join(folder, 'seeded.json');
  const reused = fs.existsSync(marker);
  if (!reused) {
    fs.rmSync(folder, { recursive: true, force: true });
    fs.mkdirSync(folder, { recursive: true, mode: 0o755 });
    fs.chmodSync(folder, 0o755);
    fs.writeFileSync(path.join(folder, 'password'), randomBytes(16).toString('hex'), { mode: 0o600 });
  }
  const password = fs.readFileSync(path.join(folder, 'password'), 'utf8');
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(folder, 'pg'), port: await freePort(), password });
  try {
    const url = databaseUrl(postgres.url, historyDatabase);
    if (!reused) {
      process.stdout.write(`history: seeding ${JSON.stringify(size)} in ${folder}\n`);
      const facts = await seedHistory(postgres.url, url, size);
      fs.writeFileSync(marker, `${JSON.stringify(facts, null, 2)}\n`);
      process.stdout.write(`history: seeded in ${JSON.stringify(facts.seedSeconds)} s\n`);
    }
    const facts = JSON.parse(fs.readFileSync(marker, 'utf8')) as HistoryFacts;
    return { facts, folder, reused, serverUrl: postgres.url, url, stop: () => postgres.stop() };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}

/**
 * A fresh copy of the history database (PostgreSQL copies its files), for a benchmark that writes: the cached
 * history stays as seeded. Nothing may be connected to the history meanwhile. Dropped by `drop`.
 */
export async function copyOfHistory(
  history: SeededHistory,
  name: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const server = createKnex(history.serverUrl, { poolMax: 1 });
  try {
    await server.raw(`DROP DATABASE IF EXISTS ${name}`);
    await server.raw(`CREATE DATABASE ${name} TEMPLATE ${historyDatabase}`);
  } finally {
    await server.destroy();
  }
  return {
    url: databaseUrl(history.serverUrl, name),
    async drop() {
      const again = createKnex(history.serverUrl, { poolMax: 1 });
      try {
        await again.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await again.destroy();
      }
    },
  };
}

function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * BENCH_HISTORY_CACHE, else ~/.cache/coopbank when the `postgres` user can reach it (embedded PostgreSQL runs as
 * that user under root, and root's home is usually closed), else /var/tmp/coopbank: both outlive a reboot of /tmp.
 */
function cacheRoot(): string {
  const root =
    process.env.BENCH_HISTORY_CACHE ??
    (process.getuid?.() !== 0 || (fs.statSync(os.homedir()).mode & 0o001) !== 0
      ? path.join(os.homedir(), '.cache', 'coopbank')
      : '/var/tmp/coopbank');
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  return root;
}

/** The migrations' names, this seed's version and the size: any change gives another folder. */
function cacheKey(size: HistorySize): string {
  const migrations = fs.readdirSync(path.join(__dirname, '..', 'db', 'migrations')).sort();
  const hash = createHash('sha256')
    .update(JSON.stringify({ migrations, seedVersion, size }))
    .digest('hex')
    .slice(0, 12);
  return `${size.scale}-${hash}`;
}

async function seedHistory(serverUrl: string, url: string, size: HistorySize): Promise<HistoryFacts> {
  const server = createKnex(serverUrl, { poolMax: 1 });
  try {
    await server.raw(`CREATE DATABASE ${historyDatabase}`);
  } finally {
    await server.destroy();
  }
  const knex = createKnex(url, { poolMax: 4 });
  const seedSeconds: Record<string, number> = {};
  const timed = async <T>(step: string, work: () => Promise<T>): Promise<T> => {
    const began = performance.now();
    const result = await work();
    seedSeconds[step] = round((performance.now() - began) / 1000, 1);
    process.stdout.write(`history: ${step} ${seedSeconds[step]} s\n`);
    return result;
  };
  try {
    await timed('migrations', () => migrateToLatest(knex));
    const enterpriseId = await timed('enterprise', () => seedEnterprise(knex));
    await timed('loans', () => seedLoans(knex, enterpriseId, size.loans));
    await timed('members and accounts', () => seedMembersAndAccounts(knex, enterpriseId, size));
    await timed('deposits', () => seedDeposits(knex, enterpriseId));
    const busyAccount = await timed('postings', () => seedPostings(knex, enterpriseId, size.linesPerYear));
    await timed('vacuum', () => knex.raw('VACUUM ANALYZE'));
    seedSeconds.total = round(
      Object.values(seedSeconds).reduce((sum, seconds) => sum + seconds, 0),
      1,
    );
    const chart = await knex('company_charts').where({ enterprise_id: enterpriseId }).first('id');
    const lines = await knex('journal_lines').first(knex.raw('count(*)::int AS count'));
    return {
      size,
      enterpriseId,
      chartId: chart.id as string,
      busyAccount,
      journalLines: lines.count as number,
      seedSeconds,
      seededAt: new Date().toISOString(),
    };
  } finally {
    await knex.destroy();
  }
}

/**
 * The enterprise as the platform creates it (its year is the current one, year 5) and its four earlier years,
 * open as a cooperative's are until the year-end closing; a director (`director`) who reads the reports.
 */
async function seedEnterprise(knex: Knex): Promise<string> {
  const enterpriseId = await newEnterprise(knex);
  const earlier = historyYears.slice(0, -1).map((year) => ({
    enterprise_id: enterpriseId,
    code: String(year),
    start_date: `${year}-01-01`,
    end_date: `${year}-12-31`,
  }));
  await knex('exercices_comptables').insert(earlier);
  await seedDirector(knex, enterpriseId);
  return enterpriseId;
}

/** The loans of bench/loan-seed.ts (one member each, 12 monthly installments from February of year 5). */
async function seedLoans(knex: Knex, enterpriseId: string, loans: number): Promise<void> {
  const user = (await knex('users').where({ username: 'bench' }).first('id')).id as string;
  const actor = {
    userId: user,
    grants: [{ role: 'admin' as const, enterpriseId: null, branchId: null }],
    requestId: 'bench',
  };
  const product = await createBenchProduct(benchActivityContext(knex), actor, enterpriseId);
  await seedPortfolio(knex, { enterpriseId, productId: product.id, userId: user, loans, arrearsShare: 10 });
}

/**
 * The members beyond the borrowers and the accounts, set-based as bench/loan-seed.ts writes its borrowers: a
 * savings product at 3 % a year on 373 and the accounts spread over every member, opened in year 1.
 */
async function seedMembersAndAccounts(knex: Knex, enterpriseId: string, size: HistorySize): Promise<void> {
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id', 'code')) as {
    id: string;
    code: string;
  };
  const user = (await knex('users').where({ username: 'bench' }).first('id')).id as string;
  await knex.raw(
    `
    INSERT INTO client_profiles (enterprise_id, branch_id, member_number, kind, first_name, last_name,
                                 id_document_type, id_document_number, birth_date, membership_date, created_by)
    SELECT ?, ?, 'M-' || n, 'natural_person', 'Member', 'Number ' || n, 'national_id', 'M' || n,
           '1980-01-01', '2022-01-03', ?
    FROM generate_series(1, ?) n`,
    [enterpriseId, branch.id, user, Math.max(0, size.members - size.loans)],
  );
  const [product] = await knex('savings_products')
    .insert({
      enterprise_id: enterpriseId,
      code: 'EPA',
      name: 'Épargne',
      kind: 'demand_deposit',
      interest_rate: '0.03',
      deposit_account_code: '373',
      interest_expense_account_code: '613',
      accrued_interest_account_code: '37800',
    })
    .returning('id');
  // The rate in force since year 1: the interest reads the product's rate history, not its column.
  await knex('savings_product_rates').insert({
    enterprise_id: enterpriseId,
    product_id: product.id,
    effective_from: '2022-01-01',
    annual_rate: '0.03',
    reason: 'history',
  });
  await knex.raw(
    `
    INSERT INTO comptes_clients (enterprise_id, branch_id, client_id, product_id, number, opened_on)
    SELECT ?, ?, m.id, ?, ? || '-EPA-' || a.n, '2022-01-03'
    FROM generate_series(1, ?) a(n)
    JOIN (SELECT id, row_number() OVER (ORDER BY member_number) AS k FROM client_profiles WHERE enterprise_id = ?) m
      ON m.k = 1 + (a.n - 1) % ?`,
    [enterpriseId, branch.id, product.id, branch.code, size.accounts, enterpriseId, size.members],
  );
}

/** Deposits made at once, each by the deposit activity in its own transaction. */
const depositsInFlight = 4;

/**
 * One cash deposit on every account, by a teller through the deposit activity the API calls (the account locked,
 * its balance, the event and its entry): the savings interest of year 5 then has balances to earn on. Made with the
 * business date at 1 June of year 5, then given back to the calendar.
 */
async function seedDeposits(knex: Knex, enterpriseId: string): Promise<void> {
  const [teller] = await knex('users')
    .insert({ username: 'history_teller', password_hash: 'unused', full_name: 'Teller' })
    .returning('id');
  await knex('role_grants').insert({
    user_id: teller.id,
    role: 'cashier',
    enterprise_id: enterpriseId,
    branch_id: null,
  });
  const actor: Actor = {
    userId: teller.id as string,
    grants: [{ role: 'cashier', enterpriseId, branchId: null }],
    requestId: 'bench',
  };
  const accounts = (
    await knex('comptes_clients').where({ enterprise_id: enterpriseId }).orderBy('number').select('id')
  ).map((row) => row.id as string);
  await knex('enterprise_configurations')
    .where({ enterprise_id: enterpriseId })
    .update({ business_date: '2026-06-01' });
  const context = benchActivityContext(knex);
  let next = 0;
  await Promise.all(
    Array.from({ length: depositsInFlight }, async () => {
      for (let index = next++; index < accounts.length; index = next++) {
        const amount = new Money(String(10_000 + (index % 50) * 5_000));
        await depositCash(context, actor, {
          accountId: accounts[index]!,
          amount,
          channel: 'cash',
          reference: 'history',
          idempotencyKey: null,
        });
      }
    }),
  );
  await knex('enterprise_configurations').where({ enterprise_id: enterpriseId }).update({ business_date: null });
}

/** Entries of two lines, spread evenly over each year's days, in transactions of this many entries. */
const entriesPerBatch = 2_000;

/**
 * `linesPerYear` journal lines in each of the five years, posted by the posting function itself
 * (coopbank_post_entry, called from SQL in bulk: the checks, the journal and its numbering at commit, as every
 * posting of the product): cash receipts to income, expenses paid in cash, cash to and from the bank, in turn.
 * Answers the cash account, on which four entries in five have a line.
 */
async function seedPostings(knex: Knex, enterpriseId: string, linesPerYear: number): Promise<string> {
  const leafUnder = async (prefix: string) => {
    const row = await knex('company_chart_entries as c')
      .join('company_chart_leaves as l', 'l.id', 'c.id')
      .where({ 'c.enterprise_id': enterpriseId, 'c.is_active': true })
      .where('c.code', 'like', `${prefix}%`)
      .orderBy('c.code')
      .first('c.code');
    if (row === undefined) throw new Error(`no leaf account under ${prefix}`);
    return row.code as string;
  };
  const [cash, bank, income, otherIncome, expense] = [
    await leafUnder('571'),
    await leafUnder('56'),
    await leafUnder('7417'),
    await leafUnder('7551'),
    await leafUnder('63'),
  ];
  // Debit and credit account of the n-th entry's pattern (n mod 5).
  const patterns = [
    [cash, income],
    [cash, otherIncome],
    [expense, cash],
    [bank, cash],
    [cash, bank],
  ];
  const user = (await knex('users').where({ username: 'bench' }).first('id')).id as string;
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')).id as string;
  const entriesPerYear = Math.ceil(linesPerYear / 2);
  for (const year of historyYears) {
    for (let first = 1; first <= entriesPerYear; first += entriesPerBatch) {
      const last = Math.min(entriesPerYear, first + entriesPerBatch - 1);
      await knex.raw(
        `
        SELECT count(coopbank_post_entry(?::uuid, ?::uuid, d.day, jsonb_build_array(
                 jsonb_build_object('account', p.debit, 'debit', a.amount, 'credit', '0'),
                 jsonb_build_object('account', p.credit, 'debit', '0', 'credit', a.amount)),
               'history', NULL, NULL, NULL, ?::uuid, NULL))
        FROM generate_series(?::int, ?::int) n
        CROSS JOIN LATERAL (
          SELECT (make_date(?, 1, 1)
                  + ((n - 1)::bigint * (make_date(?, 12, 31) - make_date(?, 1, 1) + 1) / ?)::int) AS day
        ) d
        CROSS JOIN LATERAL (SELECT ((?::jsonb)->(n % 5)->>0) AS debit, ((?::jsonb)->(n % 5)->>1) AS credit) p
        CROSS JOIN LATERAL (SELECT (1000 + (n::bigint * 7919) % 250000)::text AS amount) a`,
        [
          enterpriseId,
          branch,
          user,
          first,
          last,
          year,
          year,
          year,
          entriesPerYear,
          JSON.stringify(patterns),
          JSON.stringify(patterns),
        ],
      );
    }
    process.stdout.write(`history: year ${year} posted\n`);
  }
  return cash;
}
