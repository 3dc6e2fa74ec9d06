import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Four eyes on large withdrawals (docs/domain.md §11, `member_account.withdrawal`): from the policy's threshold
 * (5 000 000 by default) a withdrawal is a request; the cash moves only when a branch head or the direction
 * approves it, through the real `approvalRequest` workflow, and the account's rules are checked again then.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'LWD');
});

const as = (user: string) => world.users[user]!.headers;
const withdraw = (account: string, amount: string, key?: string) =>
  app.request('POST', `/api/v1/members/accounts/${account}/withdrawals/`, {
    headers: { ...as('cashier'), ...(key === undefined ? {} : { 'idempotency-key': key }) },
    json: { amount, reference: 'large' },
  });
const decide = (requestId: string, decision: 'approve' | 'reject', user: string) =>
  app.request('POST', `/api/v1/approvals/requests/${requestId}/${decision}/`, {
    headers: as(user),
    json: { reason: 'checked with the member' },
  });
const balanceOf = async (account: string) =>
  (await knex('comptes_clients').where({ id: account }).first('balance')).balance as string;
/** The withdrawals' journal entries of the account. */
const withdrawalsOf = async (account: string) =>
  Number(
    (await knex('business_event_logs as ev')
      .join('journal_entries as je', 'je.event_id', 'ev.id')
      .where({ 'ev.subject_id': account, 'ev.kind': 'withdrawal' })
      .count('* as n')
      .first())!.n,
  );

async function subledgerEqualsLedger(t: ExecutionContext): Promise<void> {
  const reconciliation = await app.request('GET', `/api/v1/members/reconciliation/?enterprise=${world.enterpriseId}`, {
    headers: as('direction'),
  });
  t.is(reconciliation.status, 200);
  t.deepEqual(reconciliation.body.results, [], 'member balances still equal the ledger');
}

test.serial(
  'under the threshold a withdrawal moves at once; from it, the cash waits for the approval, which posts it once',
  async (t) => {
    const account = await openSavingsAccount(world, await memberOf(world), '20000000');
    t.is((await withdraw(account, '4999999')).status, 201, 'under the threshold: as before');
    await withWorker(
      knex,
      async () => {
        const requested = await withdraw(account, '6000000', 'large-1');
        t.is(requested.status, 202, requested.text);
        t.like(requested.body, {
          operation: 'member_account.withdrawal',
          status: 'pending',
          maker: world.users.cashier!.id,
          approver_roles: ['branch_head', 'direction'],
        });
        t.like(requested.body.payload, {
          accountId: account,
          amount: '6000000',
          channel: 'cash',
          reference: 'large',
          idempotencyKey: 'large-1',
        });
        t.is(await balanceOf(account), '15000001', 'the balance is unchanged until the approval');
        t.is(await withdrawalsOf(account), 1);
        const retried = await withdraw(account, '6000000', 'large-1');
        t.is(retried.status, 202, 'a retry while it waits answers the same request');
        t.is(retried.body.id, requested.body.id);
        t.is((await withdraw(account, '6500000', 'large-1')).body.code, 'idempotency_key_reused');
        t.is((await decide(requested.body.id, 'approve', 'cashier')).status, 403, 'a cashier does not approve');

        const approved = await decide(requested.body.id, 'approve', 'branch_head');
        t.is(approved.status, 200, approved.text);
        t.like(approved.body, { status: 'approved', failure: null });
        t.is(await balanceOf(account), '9000001');
        t.is(await withdrawalsOf(account), 2, 'exactly one withdrawal posted');
        const posted = await knex('business_event_logs')
          .where({ subject_id: account, kind: 'withdrawal', amount: '6000000' })
          .first('actor_id');
        t.is(posted.actor_id, world.users.cashier!.id, "the withdrawal is the maker's");
        const replayed = await withdraw(account, '6000000', 'large-1');
        t.is(replayed.status, 201, 'the same key after the approval answers the withdrawal done');
        t.is(replayed.headers.get('idempotent-replayed'), 'true');
        t.is(await withdrawalsOf(account), 2);
      },
      taskQueue,
    );
    await subledgerEqualsLedger(t);
  },
);

test.serial(
  "one key sent twice at once makes one request: the key is the house's, held once by the database",
  async (t) => {
    const account = await openSavingsAccount(world, await memberOf(world), '9000000');
    const [first, second] = await Promise.all([
      withdraw(account, '6000000', 'twice-1'),
      withdraw(account, '6000000', 'twice-1'),
    ]);
    t.is(first.status, 202, first.text);
    t.is(second.status, 202, second.text);
    t.is(second.body.id, first.body.id, 'both answer the same request');
    const requests = await knex('approval_requests')
      .whereRaw(`payload->>'accountId' = ?`, [account])
      .select('status', 'idempotency_key');
    t.deepEqual(
      requests.map((row) => ({ ...row })),
      [{ status: 'pending', idempotency_key: `approval:member_account.withdrawal:${world.users.cashier!.id}:twice-1` }],
    );
    t.is(await balanceOf(account), '9000000', 'nothing moves while it waits');
  },
);

test.serial('a rejected large withdrawal posts nothing', async (t) => {
  const account = await openSavingsAccount(world, await memberOf(world), '8000000');
  await withWorker(
    knex,
    async () => {
      const requested = await withdraw(account, '7000000');
      t.is(requested.status, 202, requested.text);
      const rejected = await decide(requested.body.id, 'reject', 'direction');
      t.like(rejected.body, { status: 'rejected' });
    },
    taskQueue,
  );
  t.is(await balanceOf(account), '8000000');
  t.is(await withdrawalsOf(account), 0);
  await subledgerEqualsLedger(t);
});

test.serial(
  "the account's rules are checked when asked and again at the " +
    'approval: a refusal then fails the request, nothing posted',
  async (t) => {
    const account = await openSavingsAccount(world, await memberOf(world), '9000000');
    const tooMuch = await withdraw(account, '9500000');
    t.is(tooMuch.status, 409, 'refused at once: no request for money that is not there');
    t.is(tooMuch.body.code, 'insufficient_funds');
    t.is(
      await knex('approval_requests')
        .where({ operation: 'member_account.withdrawal' })
        .whereRaw(`payload->>'accountId' = ?`, [account])
        .count('* as n')
        .first()
        .then((row) => Number(row!.n)),
      0,
    );
    await withWorker(
      knex,
      async () => {
        const requested = await withdraw(account, '6000000');
        t.is(requested.status, 202, requested.text);
        t.is((await withdraw(account, '4000000')).status, 201, 'the money leaves meanwhile');
        const approved = await decide(requested.body.id, 'approve', 'direction');
        t.like(approved.body, { status: 'failed', failure: { code: 'insufficient_funds' } });
      },
      taskQueue,
    );
    t.is(await balanceOf(account), '5000000');
    t.is(await withdrawalsOf(account), 1);
    await subledgerEqualsLedger(t);
  },
);
