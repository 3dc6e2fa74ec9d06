import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import type { Actor } from '../../activities/context';
import { createEnterprise } from '../../activities/enterprise/enterprises.activity';
import { openAccount } from '../../activities/members/member-accounts.activity';
import { createSavingsProduct } from '../../activities/members/savings-products.activity';
import { createKnex, migrateToLatest, type Knex } from '../../db/knex';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../runtime/embedded-postgres';
import { startTestApp, testActivityContext, type TestApp, type TestResponse } from '../helpers/app';
import { insertClient } from '../helpers/mothers';
import { freePort } from '../helpers/ports';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';

/** A PostgreSQL of the test's own, which it stops and starts again on the same data and port. */
async function ownPostgres(t: import('ava').ExecutionContext) {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-outage-'));
  fs.chmodSync(parent, 0o755); // reachable by the postgres user when the tests run as root
  const options = {
    dataDir: path.join(parent, 'pg'),
    port: await freePort(),
    password: randomBytes(8).toString('hex'),
  };
  let server: EmbeddedPostgres | undefined = await startEmbeddedPostgres(options);
  t.teardown(async () => {
    await server?.stop();
    fs.rmSync(parent, { recursive: true, force: true });
  });
  const maintenance = new pg.Client({ connectionString: server.url });
  await maintenance.connect();
  await maintenance.query('CREATE DATABASE coopbank');
  await maintenance.end();
  const url = new URL(server.url);
  url.pathname = '/coopbank';
  return {
    url: url.toString(),
    stop: async () => {
      await server?.stop();
      server = undefined;
    },
    start: async () => {
      server = await startEmbeddedPostgres(options);
    },
  };
}

async function depositSetting(knex: Knex, accounts: number) {
  const rootId = await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const root: Actor = {
    userId: rootId,
    grants: [{ role: 'admin', enterpriseId: null, branchId: null }],
    requestId: 'test',
  };
  const context = testActivityContext(knex);
  const enterprise = await createEnterprise(context, root, {
    code: 'PGO',
    name: 'Coop PGO',
    legalForm: 'C',
    country: 'CM',
    timeZone: 'Africa/Douala',
    headOffice: { code: 'HQ', name: 'HQ', address: '', city: '' },
  });
  const headOffice = (await knex('branches').where({ enterprise_id: enterprise.id }).first('id')).id as string;
  await createUser(knex, 'cashier', [{ role: 'cashier', enterpriseId: enterprise.id, branchId: headOffice }]);
  const product = await createSavingsProduct(context, root, enterprise.id, {
    code: 'EPA',
    name: 'Épargne',
    kind: 'demand_deposit',
    minimumOpeningBalance: '0',
    minimumBalance: '0',
    withdrawalsAllowed: true,
    interestRate: '0',
    depositAccountCode: '3711',
  });
  const accountIds: string[] = [];
  for (let n = 0; n < accounts; n += 1) {
    const clientId = await insertClient(knex, enterprise.id, headOffice, rootId);
    accountIds.push(
      (
        await openAccount(context, root, {
          clientId,
          productId: product.id,
          initialDeposit: null,
          idempotencyKey: null,
        })
      ).account.id,
    );
  }
  return { enterpriseId: enterprise.id, accountIds };
}

interface Answer {
  key: string;
  status: number;
  code: string | undefined;
  contentType: string | null;
  retryAfter: string | null;
  /** When it was asked, from the start of the load, and how long it took, in ms. */
  at: number;
  ms: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// The API's pool as a process gets it from its configuration (DATABASE_ACQUIRE_TIMEOUT_MS…), narrower for the test.
const pool = { poolMax: 4, acquireTimeoutMs: 2000, statementTimeoutMs: 5000, onWarning: () => undefined };
const outageMs = 10_000;

/** During the outage, readiness names the database and every refusal is a quick 503; then the API is ready again. */
function assertRefusedWithoutDelay(
  t: ExecutionContext,
  {
    readiness,
    refused,
    during,
    readinessAfter,
  }: Record<'readiness' | 'readinessAfter', TestResponse> & Record<'refused' | 'during', Answer[]>,
) {
  t.like(
    readiness,
    { status: 503, body: { status: 'unavailable', checks: { database: 'unreachable', temporal: 'ok' } } },
    'readiness names the database',
  );
  t.true(refused.length > 0, 'deposits were refused during the outage');
  for (const answer of refused) {
    t.like(
      answer,
      { status: 503, code: 'database_unavailable', contentType: 'application/problem+json', retryAfter: '5' },
      `deposit ${answer.key}`,
    );
  }
  t.true(
    Math.max(...during.map((answer) => answer.ms)) < pool.acquireTimeoutMs + pool.statementTimeoutMs,
    "no request waits on the database beyond the pool's bounds",
  );
  t.like(readinessAfter, { status: 200, body: { status: 'ok' } });
}

async function assertRetriesRecordedOnce(
  t: ExecutionContext,
  knex: Knex,
  {
    enterpriseId,
    accountIds,
    answers,
    refused,
    keysOf,
    deposit,
  }: {
    enterpriseId: string;
    accountIds: readonly string[];
    answers: Answer[];
    refused: Answer[];
    keysOf: Map<string, string>;
    deposit: (account: string, key: string) => Promise<TestResponse>;
  },
) {
  // A teller retries every refused deposit with its key: each is then recorded once (or answered again if its
  // commit went through).
  const retried = await Promise.all(
    accountIds.map(async (account) => {
      const statuses: number[] = [];
      for (const answer of refused.filter((one) => keysOf.get(one.key) === account))
        statuses.push((await deposit(account, answer.key)).status);
      return statuses;
    }),
  );
  t.deepEqual(new Set(retried.flat()), new Set([201]), 'every retry recorded or answered again');
  const breaches = await ledgerBreaches(
    knex,
    enterpriseId,
    [...keysOf.keys()].filter((key) => answers.some((answer) => answer.key === key)),
  );
  t.deepEqual(breaches, []);
}

test(
  'PostgreSQL stopped for 10 s during a deposit load: 503s without delay, then the API and a worker ' +
    'carry on, and the books hold exactly what was answered',
  async (t) => {
    const began = Date.now();
    const database = await ownPostgres(t);
    t.log(`own PostgreSQL up in ${Date.now() - began} ms`);
    const knex = createKnex(database.url, { applicationName: 'outage-api', ...pool });
    const workerKnex = createKnex(database.url, { applicationName: 'outage-worker', ...pool });
    t.teardown(async () => {
      await knex.destroy();
      await workerKnex.destroy();
    });
    await migrateToLatest(knex);
    t.log(`migrated at ${Date.now() - began} ms`);
    const taskQueue = newTaskQueue();
    const app: TestApp = await startTestApp(t, { knex, taskQueue });
    const { enterpriseId, accountIds } = await depositSetting(knex, 4);
    const cashier = await bearer(app, 'cashier');
    const deposit = (account: string, key: string) =>
      app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, {
        headers: { ...cashier, 'idempotency-key': key },
        json: { amount: '1000', reference: key },
      });

    await withWorker(
      workerKnex,
      async ({ client }) => {
        t.log(`load starts at ${Date.now() - began} ms`);
        const { answers, keysOf, loadStarted, load, restarted } = tellers(accountIds, deposit);
        await sleep(1000);

        const stopping = Date.now();
        await database.stop();
        const stopped = Date.now() - loadStarted;
        // The daily Schedule fires now: its run's first activity fails until the database is back, and is retried.
        const run = await client.workflow.start('provisioningRun', {
          taskQueue,
          workflowId: `outage-run-${enterpriseId}`,
          args: [{ enterpriseId }],
        });
        const asked = Date.now();
        const readiness = await app.request('GET', '/readyz');
        const readinessMs = Date.now() - asked;
        await sleep(Math.max(0, stopping + outageMs - Date.now()));
        const starting = Date.now() - loadStarted;
        await database.start();
        const restartedAt = restarted();
        await load;
        const readinessAfter = await app.request('GET', '/readyz');
        t.log(`load ends at ${Date.now() - began} ms`);

        const during = answers.filter(
          (answer) => answer.at + answer.ms > stopping - loadStarted && answer.at < restartedAt - loadStarted,
        );
        const refused = answers.filter((answer) => answer.status !== 201);
        t.log(
          `stop ${stopped - (stopping - loadStarted)} ms at ${stopping - loadStarted} ms, ` +
            `start at ${starting} ms (${restartedAt - loadStarted - starting} ms); ` +
            `${answers.length} deposits, ${refused.length} refused; ` +
            `answers during the outage: ${summary(during)}; ` +
            `readiness ${readiness.status} ${JSON.stringify(readiness.body)} in ${readinessMs} ms`,
        );

        assertRefusedWithoutDelay(t, { readiness, refused, during, readinessAfter });
        t.like(await run.result(), { status: 'completed' }, 'the worker carried the run through the outage');

        await assertRetriesRecordedOnce(t, knex, { enterpriseId, accountIds, answers, refused, keysOf, deposit });
        t.log(`checked at ${Date.now() - began} ms`);
      },
      taskQueue,
    );
  },
);

/**
 * Tellers deposit in a loop, each on an account of their own, until each has been served after the outage
 * (`restarted()` marks its end).
 */
function tellers(accountIds: readonly string[], deposit: (account: string, key: string) => Promise<TestResponse>) {
  const answers: Answer[] = [];
  const keysOf = new Map<string, string>();
  const loadStarted = Date.now();
  let restartedAt = Number.POSITIVE_INFINITY;
  const teller = async (account: string, teller: number) => {
    for (let n = 0; ; n += 1) {
      const key = `t${teller}-${n}`;
      keysOf.set(key, account);
      const at = Date.now();
      const response = await deposit(account, key);
      answers.push({
        key,
        status: response.status,
        code: response.body?.code,
        contentType: response.headers.get('content-type'),
        retryAfter: response.headers.get('retry-after'),
        at: at - loadStarted,
        ms: Date.now() - at,
      });
      if (response.status === 201 && at > restartedAt) return;
      if (response.status !== 201) await sleep(250); // a teller's pace after a refusal
      if (Date.now() - loadStarted > outageMs + 30_000) return;
    }
  };
  const restarted = () => (restartedAt = Date.now());
  return { answers, keysOf, loadStarted, load: Promise.all(accountIds.map(teller)), restarted };
}

function summary(answers: readonly Answer[]): string {
  const byKind = new Map<string, { n: number; maxMs: number }>();
  for (const answer of answers) {
    const kind = `${answer.status} ${answer.code ?? ''}`.trim();
    const seen = byKind.get(kind) ?? { n: 0, maxMs: 0 };
    byKind.set(kind, { n: seen.n + 1, maxMs: Math.max(seen.maxMs, answer.ms) });
  }
  return [...byKind].map(([kind, { n, maxMs }]) => `${n} × ${kind} (≤ ${maxMs} ms)`).join(', ');
}

/**
 * What an auditor finds wrong after the outage: a key recorded other than once, an event without its one entry,
 * an entry that does not balance, an account whose balance is not its deposits, a deposit account that is not
 * the sum of the members' accounts.
 */
async function ledgerBreaches(knex: Knex, enterpriseId: string, keys: readonly string[]): Promise<string[]> {
  const events: { key: string; entries: string }[] = (
    await knex.raw(
      `
    SELECT e.idempotency_key AS key, count(j.id)::text AS entries
    FROM business_event_logs e LEFT JOIN journal_entries j ON j.event_id = e.id
    WHERE e.enterprise_id = ? AND e.kind = 'deposit' GROUP BY e.id, e.enterprise_id`,
      [enterpriseId],
    )
  ).rows;
  const breaches = events
    .filter((event) => event.entries !== '1')
    .map((event) => `event ${event.key} has ${event.entries} entries`);
  const recorded = new Map<string, number>();
  for (const event of events) {
    const key = event.key.slice(event.key.lastIndexOf(':') + 1);
    recorded.set(key, (recorded.get(key) ?? 0) + 1);
  }
  breaches.push(
    ...keys
      .filter((key) => recorded.get(key) !== 1)
      .map((key) => `key ${key} recorded ${recorded.get(key) ?? 0} times`),
  );
  const unbalanced: { id: string }[] = (
    await knex.raw(
      `
    SELECT j.id FROM journal_entries j JOIN journal_lines l ON l.entry_id = j.id
    WHERE j.enterprise_id = ? GROUP BY j.id HAVING sum(l.debit) <> sum(l.credit)`,
      [enterpriseId],
    )
  ).rows;
  breaches.push(...unbalanced.map((entry) => `entry ${entry.id} does not balance`));
  const accounts: { number: string; balance: string; deposits: string }[] = (
    await knex.raw(
      `
    SELECT a.number, a.balance::text,
           (SELECT coalesce(sum(e.amount), 0) FROM business_event_logs e
            WHERE e.kind = 'deposit' AND e.payload->'request'->>'account' = a.id::text)::text AS deposits
    FROM comptes_clients a WHERE a.enterprise_id = ?`,
      [enterpriseId],
    )
  ).rows;
  breaches.push(
    ...accounts
      .filter((account) => account.balance !== account.deposits)
      .map((account) => `account ${account.number}: balance ${account.balance}, deposits ${account.deposits}`),
  );
  const ledger: { members: string; accounts: string } = (
    await knex.raw(
      `
    SELECT (SELECT coalesce(sum(l.credit - l.debit), 0)
            FROM journal_lines l JOIN journal_entries j ON j.id = l.entry_id
                 JOIN company_chart_entries c ON c.id = l.chart_entry_id
            WHERE j.enterprise_id = :enterprise AND c.code = '3711')::text AS members,
           (SELECT coalesce(sum(balance), 0) FROM comptes_clients WHERE enterprise_id = :enterprise)::text AS accounts`,
      { enterprise: enterpriseId },
    )
  ).rows[0];
  if (ledger.members !== ledger.accounts)
    breaches.push(`3711 holds ${ledger.members}, the accounts ${ledger.accounts}`);
  return breaches;
}
