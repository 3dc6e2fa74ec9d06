import test from 'ava';
import type { Actor } from '../../activities/context';
import { createEnterprise } from '../../activities/enterprise/enterprises.activity';
import { openAccount } from '../../activities/members/member-accounts.activity';
import { createSavingsProduct } from '../../activities/members/savings-products.activity';
import { createKnex, type Knex } from '../../db/knex';
import { startTestApp, testActivityContext, type TestResponse } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { insertClient } from '../helpers/mothers';
import { bearer, createUser } from '../helpers/users';

/** A cashier of an enterprise's head office and one member's account there, built by the activities. */
async function cashierWithAccount(knex: Knex): Promise<{ enterpriseId: string; accountId: string }> {
  const rootId = await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const root: Actor = {
    userId: rootId,
    grants: [{ role: 'admin', enterpriseId: null, branchId: null }],
    requestId: 'test',
  };
  const context = testActivityContext(knex);
  const headOffice = { code: 'HQ', name: 'HQ', address: '', city: '' };
  const enterprise = await createEnterprise(context, root, {
    code: 'POOL',
    name: 'Coop POOL',
    legalForm: 'C',
    country: 'CM',
    timeZone: 'Africa/Douala',
    headOffice,
  });
  const branchId = (await knex('branches').where({ enterprise_id: enterprise.id }).first('id')).id as string;
  await createUser(knex, 'cashier', [{ role: 'cashier', enterpriseId: enterprise.id, branchId }]);
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
  const clientId = await insertClient(knex, enterprise.id, branchId, rootId);
  const { account } = await openAccount(context, root, {
    clientId,
    productId: product.id,
    initialDeposit: null,
    idempotencyKey: null,
  });
  return { enterpriseId: enterprise.id, accountId: account.id };
}

const pool = { poolMax: 2, acquireTimeoutMs: 1000, statementTimeoutMs: 3000, onWarning: () => undefined };

/** Sessions of the test database waiting on a lock. */
async function sessionsWaitingOnLock(setup: Knex) {
  return Number(
    (
      await setup('pg_stat_activity')
        .where({ datname: setup.raw('current_database()'), wait_event_type: 'Lock' })
        .count({ n: '*' })
        .first()
    )?.n,
  );
}

/** Ten deposits at once, each answer with the time it took from `started`. */
function tenDeposits(deposit: (key: string) => Promise<TestResponse>, started: number) {
  return Promise.all(
    Array.from({ length: 10 }, async (_, n) => {
      const response = await deposit(`slow-${n}`);
      return {
        status: response.status,
        code: response.body.code as string,
        retryAfter: response.headers.get('retry-after'),
        ms: Date.now() - started,
      };
    }),
  );
}

test(
  'more concurrent deposits than connections, on a row another session holds: every one answers 503 ' +
    'within the bounds, nothing is written, the pool recovers',
  async (t) => {
    const { knex: setup, url } = await createTestDatabase(t);
    const { enterpriseId, accountId } = await cashierWithAccount(setup);
    const knex = createKnex(url, pool);
    t.teardown(() => knex.destroy());
    const app = await startTestApp(t, { knex });
    const cashier = await bearer(app, 'cashier');
    const deposit = (key: string) =>
      app.request('POST', `/api/v1/members/accounts/${accountId}/deposits/`, {
        headers: { ...cashier, 'idempotency-key': key },
        json: { amount: '1000', reference: key },
      });

    // A long transaction of another process holds the account: the deposits that get a connection wait on its lock.
    const holder = await setup.transaction();
    await holder('comptes_clients').where({ id: accountId }).forUpdate().first('id');
    const started = Date.now();
    const load = tenDeposits(deposit, started);
    // Once every pooled connection is a deposit waiting on the lock, readiness has none to take either.
    const waitingOnLock = () => sessionsWaitingOnLock(setup);
    while ((await waitingOnLock()) < pool.poolMax) await new Promise((resolve) => setTimeout(resolve, 20));
    const readinessAsked = Date.now();
    const readiness = await app.request('GET', '/readyz');
    const readinessMs = Date.now() - readinessAsked;
    const answers = await load;
    await holder.rollback();

    t.true(
      answers.every((answer) => answer.status === 503 && answer.retryAfter === '5'),
      'every deposit answers 503 with Retry-After',
    );
    const waitedForConnection = answers.filter((answer) => answer.ms < pool.statementTimeoutMs);
    t.true(
      waitedForConnection.length >= 10 - pool.poolMax,
      'those without a connection are refused after the acquire timeout',
    );
    t.true(answers.every((answer) => answer.code === 'database_busy'));
    t.true(
      Math.max(...answers.map((answer) => answer.ms)) < pool.acquireTimeoutMs + pool.statementTimeoutMs + 2000,
      'no answer waits beyond the two bounds',
    );
    t.like(
      readiness,
      { status: 503, body: { status: 'unavailable', checks: { database: 'timeout', temporal: 'ok' } } },
      'readiness names the saturated database',
    );
    t.true(readinessMs < pool.acquireTimeoutMs + 1500, `readiness answered in ${readinessMs} ms`);

    const written = await setup('business_event_logs')
      .where({ enterprise_id: enterpriseId })
      .whereLike('idempotency_key', '%:slow-%')
      .count({ n: '*' })
      .first();
    t.is(Number(written?.n), 0, 'no event of a refused deposit');
    t.is((await deposit('after')).status, 201, 'the pool serves again once the lock is gone');
    t.is((await deposit('slow-3')).status, 201, 'a refused deposit retried with its key is recorded');
    t.is(knex.client.pool.numUsed(), 0, 'no connection left checked out');
    t.is((await setup('comptes_clients').where({ id: accountId }).first('balance')).balance, '2000');
  },
);
