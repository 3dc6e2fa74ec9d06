import test from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, submitApplication, type LoanWorld } from '../helpers/loans';
import { subscribeShares } from '../helpers/shares';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  // A cooperative as a new user builds it through the API, without any paid-up capital yet.
  world = await createLoanWorld(app, knex, 'NEW', { capital: false });
});

test(
  'the newcomer path: no capital refuses credit (R-2017/08, enforce); members pay up their shares; ' +
    'the loan is granted, the configuration untouched',
  async (t) => {
    const borrower = await memberOf(world);
    const refused = await submitApplication(world, borrower, { amount: '1200000' });
    t.is(refused.status, 409);
    t.is(refused.body.code, 'cap_share_capital');
    t.regex(refused.body.detail, /limit of 0 XAF/);

    // 5 000 000 XAF paid: the cap is 500 000, still below the 1 200 000 asked.
    await subscribeShares(world, await memberOf(world), { share_type: world.shareTypeId, shares: 5 });
    t.regex((await submitApplication(world, borrower, { amount: '1200000' })).body.detail, /limit of 500000 XAF/);
    // The borrower subscribes too: 12 000 000 XAF in all, a cap of 1 200 000.
    await subscribeShares(world, borrower, { share_type: world.shareTypeId, shares: 7 });

    await withWorker(
      knex,
      async ({ client }) => {
        const submitted = await submitApplication(world, borrower, { amount: '1200000' });
        t.is(submitted.status, 201, submitted.text);
        t.deepEqual(submitted.body.cap_breaches, []);
        for (const as of ['cashier', 'branch_head', 'committee', 'direction']) {
          const decided = await app.request('POST', `/api/v1/loans/applications/${submitted.body.id}/decisions/`, {
            headers: world.users[as]!.headers,
            json: { decision: 'approve' },
          });
          t.is(decided.status, 200, decided.text);
        }
        const result = (await client.workflow.getHandle(submitted.body.workflow_id).result()) as {
          status: string;
          loanId: string;
        };
        t.is(result.status, 'approved');
        t.like(await knex('loans').where({ id: result.loanId }).first(), {
          client_id: borrower,
          principal: '1200000',
          status: 'awaiting_disbursement',
        });
      },
      taskQueue,
    );
    const configuration = await app.request(
      'GET',
      `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
      { headers: world.users.direction!.headers },
    );
    t.is(configuration.body.credit_cap_mode, 'enforce');
  },
);
