import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import type { ActivityContext, Actor } from '../../activities/context';
import { depositCash } from '../../activities/members/cash-operations.activity';
import { accountMovements } from '../../activities/members/account-ledger';
import { seedAccounts } from '../../bench/deposits-api.bench';
import { seedLending } from '../../bench/loan-seed';
import { createKnex, migrateToLatest } from '../../db/knex';
import { Money } from '../../domain/money';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../runtime/embedded-postgres';
import { freePort } from '../../runtime/free-port';
import { backupInstallation, restoreInstallation } from '../../runtime/installation-backup';
import { embeddedDatabaseName } from '../../runtime/services';
import { activitySetting } from '../helpers/activity-setting';

/**
 * npm run backup / npm run restore on an installation of the test's own: a data directory laid out as
 * `npm start` keeps it (pg/, pg-password), its own PostgreSQL, members, loans and accounts written by the
 * activities. The backup is taken while four writers deposit; the restore goes into a fresh data directory.
 */
const writers = 4;

interface Cluster {
  server: EmbeddedPostgres;
  knex: Knex;
}

/** PostgreSQL on `dataDir`/pg, as npm start runs it, and a pool on its `coopbank` database (created if `create`). */
async function startCluster(dataDir: string, port: number, password: string, create = false): Promise<Cluster> {
  const server = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port, password });
  if (create) {
    const maintenance = createKnex(server.url);
    await maintenance.raw(`CREATE DATABASE ${embeddedDatabaseName}`);
    await maintenance.destroy();
  }
  const url = new URL(server.url);
  url.pathname = `/${embeddedDatabaseName}`;
  return { server, knex: createKnex(url.toString(), { poolMax: writers + 2 }) };
}

async function stopCluster({ server, knex }: Cluster): Promise<void> {
  await knex.destroy();
  await server.stop();
}

/** Deposits by `writers` concurrent tellers' sessions until stopped; the events acknowledged so far, by id. */
function depositLoad(context: ActivityContext, accounts: string[], teller: Actor) {
  const acknowledged = new Set<string>();
  let stopping = false;
  let failure: unknown;
  const running = Promise.all(
    accounts.slice(0, writers).map(async (accountId, writer) => {
      for (let n = 0; !stopping; n += 1) {
        const deposit = await depositCash(context, teller, {
          accountId,
          amount: new Money(1000 + n),
          channel: 'cash',
          reference: `w${writer}-${n}`,
          idempotencyKey: `w${writer}-${n}`,
        });
        acknowledged.add(deposit.id);
      }
    }),
  ).catch((error: unknown) => {
    failure = error;
  });
  return {
    acknowledged,
    async reach(count: number): Promise<void> {
      while (acknowledged.size < count && failure === undefined)
        await new Promise((resolve) => setTimeout(resolve, 20));
      if (failure !== undefined) throw failure;
    },
    async stop(): Promise<void> {
      stopping = true;
      await running;
      if (failure !== undefined) throw failure;
    },
  };
}

/** Each row of `table` as text, by id: what "identical" means below. */
async function rowsOf(knex: Knex, table: string): Promise<Map<string, string>> {
  const { rows } = await knex.raw<{ rows: { id: string; row: string }[] }>(
    `SELECT id::text, t::text AS row FROM ${table} t`,
  );
  return new Map(rows.map(({ id, row }) => [id, row]));
}

/** Rows of `restored` absent from `source` or different there. */
function strayRows(restored: Map<string, string>, source: Map<string, string>): string[] {
  return [...restored].filter(([id, row]) => source.get(id) !== row).map(([id]) => id);
}

/** Member accounts whose balance differs from the sum of their ledger lines. */
async function accountsOffLedger(knex: Knex): Promise<number> {
  const ledger = accountMovements(knex)
    .groupBy('m.account')
    .select('m.account as id', knex.raw('sum(m.amount) AS total'));
  const rows = await knex('comptes_clients as a')
    .leftJoin(ledger.as('g'), 'g.id', 'a.id')
    .whereRaw('a.balance <> coalesce(g.total, 0)')
    .select('a.id');
  return rows.length;
}

test(
  'a backup taken while deposits are written restores into a fresh data directory with the books, ' +
    'members and loans as they were',
  async (t) => {
    // Under /tmp and world-traversable: when run as root, PostgreSQL runs as the `postgres` user.
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-backup-'));
    fs.chmodSync(workDir, 0o755);
    t.teardown(() => fs.rmSync(workDir, { recursive: true, force: true }));
    const [sourceDir, backupDir, restoredDir] = ['source', 'backups/one', 'restored'].map((name) =>
      path.join(workDir, name),
    ) as [string, string, string];
    fs.mkdirSync(sourceDir, { mode: 0o755 });
    const password = randomBytes(16).toString('hex');
    fs.writeFileSync(path.join(sourceDir, 'pg-password'), `${password}\n`, { mode: 0o600 });
    const sourcePort = await freePort();
    const source = await startCluster(sourceDir, sourcePort, password, true);
    t.teardown(() => stopCluster(source));
    await migrateToLatest(source.knex);

    const { context, newEnterprise } = await activitySetting(source.knex);
    const enterpriseId = await newEnterprise('BKP');
    const lending = await seedLending(source.knex, enterpriseId);
    for (let loan = 0; loan < 3; loan += 1) await lending.disbursedLoan('1000000');
    const { accounts, teller } = await seedAccounts(source.knex, enterpriseId, writers);

    const load = depositLoad(context, accounts, teller);
    await load.reach(40);
    const acknowledgedBefore = [...load.acknowledged];
    const started = Date.now();
    const manifest = await backupInstallation(sourceDir, sourcePort, backupDir);
    const backupMs = Date.now() - started;
    const writtenDuring = load.acknowledged.size - acknowledgedBefore.length;
    await load.stop();
    t.log(
      `backup ${backupMs} ms, ${manifest.postgres.walSegments} WAL segment(s), ` +
        `${writtenDuring} deposits acknowledged while it ran`,
    );
    t.true(writtenDuring > 0, 'the deposits went on during the backup');
    t.false(manifest.temporal, 'no Temporal state in this data directory');
    t.deepEqual(manifest.secrets, ['pg-password']);

    const check = await restoreInstallation(backupDir, restoredDir);
    t.is(check.unbalancedEntries, 0);
    await t.throwsAsync(
      restoreInstallation(backupDir, restoredDir),
      { message: /is not empty/ },
      'a restore never overwrites a data directory',
    );

    const restored = await startCluster(restoredDir, await freePort(), password);
    t.teardown(() => stopCluster(restored));
    for (const table of ['journal_entries', 'journal_lines', 'business_event_logs']) {
      const [copy, original] = await Promise.all([rowsOf(restored.knex, table), rowsOf(source.knex, table)]);
      t.deepEqual(strayRows(copy, original), [], `every restored row of ${table} is the source's`);
      if (table === 'journal_entries') t.is(copy.size, check.journalEntries);
    }
    const restoredEvents = await rowsOf(restored.knex, 'business_event_logs');
    t.deepEqual(
      acknowledgedBefore.filter((id) => !restoredEvents.has(id)),
      [],
      'every deposit acknowledged before the backup is restored',
    );
    for (const table of ['client_profiles', 'loans', 'loan_installments', 'loan_applications', 'share_subscriptions']) {
      t.deepEqual(await rowsOf(restored.knex, table), await rowsOf(source.knex, table), `${table} identical`);
    }
    t.is(await accountsOffLedger(restored.knex), 0, 'each restored account balance equals its restored ledger lines');
    const totals = await restored
      .knex('journal_lines')
      .first(restored.knex.raw('(sum(debit) - sum(credit))::text AS difference'));
    t.true(new Money(totals.difference).isZero(), 'the restored books balance');
  },
);
