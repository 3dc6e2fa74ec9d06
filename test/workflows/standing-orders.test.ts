import test from 'ava';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { StandingOrderPass } from '../../activities/cash/standing-orders.activity';
import { standingOrderScheduleId } from '../../workflows/identities';
import { reconcileEnterpriseSchedules } from '../../api/modules/enterprise/schedules.temporal';
import pino from 'pino';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { approvedLoan, createLoanWorld, memberOf, putBusinessDate, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { until, untilScheduleGone } from '../helpers/until';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Standing orders (issue 29, docs/domain.md §13.5): each on its own Schedule, whose daily pass `standingOrder`
 * makes the transfer of the due date once, however often it runs, and tries a run short of funds again each
 * business day for the order's retry days before recording it failed.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'SOR');
  await putBusinessDate(world, '2026-11-26');
});

const as = (user: string) => world.users[user]!.headers;

async function accountIn(branch: 'head' | 'other', deposit: string): Promise<string> {
  const client = await memberOf(world, branch === 'head' ? world.headOffice : world.otherBranch);
  const opened = await app.request('POST', '/api/v1/members/accounts/', {
    headers: as(branch === 'head' ? 'cashier' : 'other_cashier'),
    json: { client, product: world.savingsProductId, initial_deposit: deposit },
  });
  if (opened.status !== 201) throw new Error(opened.text);
  return opened.body.id as string;
}

const balanceOf = async (account: string) =>
  (await knex('comptes_clients').where({ id: account }).first('balance')).balance as string;
const order = (json: Record<string, unknown>) =>
  app.request('POST', '/api/v1/cash/standing-orders/', { headers: as('cashier'), json });
const runsOf = async (id: string) =>
  (await app.request('GET', `/api/v1/cash/standing-orders/${id}/runs/`, { headers: as('cashier') })).body
    .results as Record<string, unknown>[];

/** Triggers the order's Schedule and answers the pass it started. */
async function scheduledRun(client: Client, id: string): Promise<StandingOrderPass> {
  const schedule = client.schedule.getHandle(standingOrderScheduleId(id));
  const before = (await schedule.describe()).info.recentActions.length;
  await schedule.trigger();
  let workflowId = '';
  await until('the Schedule to start its run', async () => {
    const actions = (await schedule.describe()).info.recentActions;
    workflowId = actions.at(-1)?.action.workflow.workflowId ?? '';
    return actions.length > before;
  });
  return (await client.workflow.getHandle(workflowId).result()) as StandingOrderPass;
}

/** The pass started directly, as a Schedule firing again would. */
const directRun = (client: Client, id: string, workflowId: string) =>
  client.workflow.execute('standingOrder', {
    args: [{ standingOrderId: id }],
    taskQueue,
    workflowId,
  }) as Promise<StandingOrderPass>;

test.serial('a run posts once, whether the Schedule fires once or the pass runs three times at once', async (t) => {
  const from = await accountIn('head', '300000');
  const to = await accountIn('other', '1000');
  const created = await order({
    from_account: from,
    to_account: to,
    amount: '100000',
    reference: 'épargne',
    frequency: 'monthly',
    day: 26,
    start_date: '2026-11-26',
  });
  t.is(created.status, 201, created.text);
  t.like(created.body, { status: 'active', frequency: 'monthly', day: 26, amount: '100000', retry_days: 0 });
  const id = created.body.id as string;
  await withWorker(
    knex,
    async ({ client }) => {
      const description = await client.schedule.getHandle(standingOrderScheduleId(id)).describe();
      t.like(description.action, { type: 'startWorkflow', workflowType: 'standingOrder' });
      const first = await scheduledRun(client, id);
      t.deepEqual(first, { businessDate: '2026-11-26', runs: [{ dueDate: '2026-11-26', outcome: 'done' }] });
      const again = await Promise.all([1, 2, 3].map((n) => directRun(client, id, `so-twice-${id}-${n}`)));
      for (const pass of again) t.deepEqual(pass.runs, [], 'the due date has its run: nothing more');
    },
    taskQueue,
  );
  t.is(await balanceOf(from), String(300000 - 100000), 'moved once');
  t.is(await balanceOf(to), String(1000 + 100000));
  const runs = await runsOf(id);
  t.is(runs.length, 1);
  t.like(runs[0], { due_date: '2026-11-26', outcome: 'done', attempts: 1, refusal_code: null });
  const transfer = await app.request('GET', `/api/v1/cash/transfers/${runs[0]!.transfer as string}/`, {
    headers: as('cashier'),
  });
  t.like(transfer.body, {
    from_account: from,
    to_account: to,
    amount: '100000',
    between_branches: true,
    recorded_by: world.users.cashier!.id,
  });

  const cancelled = await app.request('POST', `/api/v1/cash/standing-orders/${id}/cancel/`, { headers: as('cashier') });
  t.like(cancelled.body, { status: 'cancelled' });
  await withWorker(
    knex,
    async ({ client }) => {
      await t.notThrowsAsync(
        untilScheduleGone(
          client.schedule.getHandle(standingOrderScheduleId(id)),
          'the Schedule deleted with the order',
        ),
      );
      t.deepEqual((await directRun(client, id, `so-cancelled-${id}`)).runs, [], 'a cancelled order runs nothing');
    },
    taskQueue,
  );
  const audited = await knex('audit_events')
    .where({ entity_type: 'standing_order', entity_id: id })
    .orderBy('id')
    .pluck('action');
  t.deepEqual(audited, ['standing_order.create', 'standing_order.activate', 'standing_order.cancel']);
});

test.serial(
  'a run short of funds is tried again each business day for its retry days, then recorded failed; nothing posted',
  async (t) => {
    await putBusinessDate(world, '2026-11-26');
    const from = await accountIn('head', '50000');
    const to = await accountIn('head', '1000');
    // 2026-11-26 is a Thursday: weekly on day 4.
    const created = await order({
      from_account: from,
      to_account: to,
      amount: '80000',
      frequency: 'weekly',
      day: 4,
      start_date: '2026-11-26',
      retry_days: 2,
    });
    t.is(created.status, 201, created.text);
    const id = created.body.id as string;
    const expected = [
      ['2026-11-26', 'retrying', 1],
      ['2026-11-26', 'retrying', 1],
      ['2026-11-27', 'retrying', 2],
      ['2026-11-28', 'failed', 3],
    ] as const;
    await withWorker(
      knex,
      async ({ client }) => {
        for (const [index, [businessDate, outcome, attempts]] of expected.entries()) {
          await putBusinessDate(world, businessDate);
          const pass = await directRun(client, id, `so-short-${id}-${index}`);
          t.deepEqual(
            pass.runs,
            index === 1 ? [] : [{ dueDate: '2026-11-26', outcome }],
            `${businessDate}: tried once that day`,
          );
          t.like((await runsOf(id))[0], {
            due_date: '2026-11-26',
            outcome,
            attempts,
            last_attempt_on: businessDate,
            refusal_code: 'insufficient_funds',
            transfer: null,
          });
        }
        await putBusinessDate(world, '2026-11-29');
        t.deepEqual((await directRun(client, id, `so-short-${id}-after`)).runs, [], 'a failed run is not tried again');
      },
      taskQueue,
    );
    t.is(await balanceOf(from), '50000');
    t.is(
      await knex('member_transfers')
        .where({ from_account_id: from })
        .count('* as n')
        .first()
        .then((row) => Number(row!.n)),
      0,
    );
  },
);

test.serial('funds arriving during the retry days: the run is made then, once', async (t) => {
  await putBusinessDate(world, '2026-11-26');
  const from = await accountIn('head', '10000');
  const to = await accountIn('head', '1000');
  const id = (
    await order({
      from_account: from,
      to_account: to,
      amount: '40000',
      frequency: 'monthly',
      day: 26,
      start_date: '2026-11-26',
      retry_days: 3,
    })
  ).body.id as string;
  await withWorker(
    knex,
    async ({ client }) => {
      t.deepEqual((await directRun(client, id, `so-late-${id}-1`)).runs, [
        { dueDate: '2026-11-26', outcome: 'retrying' },
      ]);
      await putBusinessDate(world, '2026-11-27');
      t.is(
        (
          await app.request('POST', `/api/v1/members/accounts/${from}/deposits/`, {
            headers: as('cashier'),
            json: { amount: '50000' },
          })
        ).status,
        201,
      );
      t.deepEqual((await directRun(client, id, `so-late-${id}-2`)).runs, [{ dueDate: '2026-11-26', outcome: 'done' }]);
      await putBusinessDate(world, '2026-11-28');
      t.deepEqual((await directRun(client, id, `so-late-${id}-3`)).runs, []);
    },
    taskQueue,
  );
  t.is(await balanceOf(from), String(10000 + 50000 - 40000));
  t.like((await runsOf(id))[0], { outcome: 'done', attempts: 2 });
});

test.serial(
  'from the threshold the order waits for an approval, runs nothing meanwhile, and is active once approved',
  async (t) => {
    await putBusinessDate(world, '2026-11-26');
    const from = await accountIn('head', '20000000');
    const to = await accountIn('head', '1000');
    await withWorker(
      knex,
      async ({ client }) => {
        const requested = await order({
          from_account: from,
          to_account: to,
          amount: '6000000',
          frequency: 'monthly',
          day: 26,
          start_date: '2026-11-26',
        });
        t.is(requested.status, 202, requested.text);
        t.like(requested.body, { operation: 'standing_order.create', status: 'pending' });
        const id = requested.body.payload.standingOrderId as string;
        t.like((await app.request('GET', `/api/v1/cash/standing-orders/${id}/`, { headers: as('cashier') })).body, {
          status: 'pending_approval',
        });
        t.deepEqual((await directRun(client, id, `so-pending-${id}`)).runs, [], 'nothing runs before the approval');
        const approved = await app.request(
          'POST',
          `/api/v1/approvals/requests/${requested.body.id as string}/approve/`,
          { headers: as('branch_head'), json: { reason: 'checked' } },
        );
        t.like(approved.body, { status: 'approved', failure: null });
        t.like((await app.request('GET', `/api/v1/cash/standing-orders/${id}/`, { headers: as('cashier') })).body, {
          status: 'active',
        });
        t.deepEqual((await directRun(client, id, `so-approved-${id}`)).runs, [
          { dueDate: '2026-11-26', outcome: 'done' },
        ]);
        // A Schedule lost (Temporal out of reach when the order was made): the start's reconciliation makes it again.
        await client.schedule.getHandle(standingOrderScheduleId(id)).delete();
        await reconcileEnterpriseSchedules(client, knex, taskQueue, pino({ level: 'silent' })).done;
        t.like((await client.schedule.getHandle(standingOrderScheduleId(id)).describe()).action, {
          type: 'startWorkflow',
          workflowType: 'standingOrder',
        });
        // The enterprise's hours changed: the order's Schedule moves with the enterprise's own, a half hour after.
        const moved = await app.request(
          'PATCH',
          `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
          { headers: as('direction'), json: { provisioning_hour: 4 } },
        );
        t.is(moved.status, 200, moved.text);
        const calendar = (await client.schedule.getHandle(standingOrderScheduleId(id)).describe()).spec.calendars?.[0];
        t.like(calendar, { hour: [{ start: 4, end: 4, step: 1 }], minute: [{ start: 30, end: 30, step: 1 }] });
      },
      taskQueue,
    );
    t.is(await balanceOf(from), String(20000000 - 6000000));
  },
);

test.serial(
  "to a loan: each run repays the member's loan from the account, once; another member's loan is refused",
  async (t) => {
    await putBusinessDate(world, '2026-11-26');
    const member = await memberOf(world);
    const opened = await app.request('POST', '/api/v1/members/accounts/', {
      headers: as('cashier'),
      json: { client: member, product: world.savingsProductId, initial_deposit: '200000' },
    });
    const account = opened.body.id as string;
    const loan = await approvedLoan(world, member, { amount: '500000' });
    t.is(
      (
        await app.request('POST', `/api/v1/loans/loans/${loan}/disbursement/`, {
          headers: as('cashier'),
          json: { channel: 'cash' },
        })
      ).status,
      200,
    );
    const otherLoan = await approvedLoan(world, await memberOf(world), { amount: '300000' });
    const refused = await order({
      from_account: account,
      to_loan: otherLoan,
      amount: '30000',
      frequency: 'monthly',
      day: 26,
      start_date: '2026-11-26',
    });
    t.is(refused.status, 422);
    t.is(refused.body.errors[0].field, 'to_loan');
    const created = await order({
      from_account: account,
      to_loan: loan,
      amount: '30000',
      frequency: 'monthly',
      day: 26,
      start_date: '2026-11-26',
    });
    t.is(created.status, 201, created.text);
    t.like(created.body, { to_account: null, to_loan: loan });
    const id = created.body.id as string;
    await withWorker(
      knex,
      async ({ client }) => {
        t.deepEqual((await directRun(client, id, `so-loan-${id}-1`)).runs, [
          { dueDate: '2026-11-26', outcome: 'done' },
        ]);
        t.deepEqual((await directRun(client, id, `so-loan-${id}-2`)).runs, []);
      },
      taskQueue,
    );
    t.is(await balanceOf(account), String(200000 - 30000), 'taken once from the account');
    const run = (await runsOf(id))[0]!;
    t.like(run, { outcome: 'done', transfer: null });
    const repayment = await knex('loan_repayments')
      .where({ id: run.repayment })
      .first('loan_id', 'amount', 'channel', 'account_id');
    t.deepEqual({ ...repayment }, { loan_id: loan, amount: '30000', channel: 'account', account_id: account });
  },
);

test.serial("bad input is 400 or 422 naming the field; another branch's staff sees no order", async (t) => {
  const from = await accountIn('head', '10000');
  const to = await accountIn('head', '1000');
  const base = {
    from_account: from,
    to_account: to,
    amount: '1000',
    frequency: 'weekly',
    day: 1,
    start_date: '2026-12-01',
  };
  const cases: [Record<string, unknown>, number, string][] = [
    [{ ...base, day: 8 }, 400, 'day'],
    [{ ...base, frequency: 'daily' }, 400, 'frequency'],
    [{ ...base, amount: '-5' }, 400, 'amount'],
    [{ ...base, start_date: '2026-01-01' }, 400, 'start_date'],
    [{ ...base, end_date: '2026-11-30' }, 400, 'end_date'],
    [{ ...base, to_account: from }, 422, 'to_account'],
  ];
  for (const [json, status, field] of cases) {
    const answer = await order(json);
    t.is(answer.status, status, `${field}: ${answer.text}`);
    t.true(
      (answer.body.errors as { field: string }[]).some((error) => error.field === field),
      answer.text,
    );
  }
  const made = await order(base);
  t.is(made.status, 201);
  t.is(
    (await app.request('GET', `/api/v1/cash/standing-orders/${made.body.id as string}/`, { headers: as('other_head') }))
      .status,
    404,
  );
  const changed = await app.request('PATCH', `/api/v1/cash/standing-orders/${made.body.id as string}/`, {
    headers: as('branch_head'),
    json: { amount: '2000', retry_days: 1 },
  });
  t.like(changed.body, { amount: '2000', retry_days: 1 });
  const audit = await knex('audit_events')
    .where({ entity_id: made.body.id, action: 'standing_order.update' })
    .first('before', 'after');
  t.deepEqual(
    [audit.before, audit.after],
    [
      { amount: '1000', retry_days: 0 },
      { amount: '2000', retry_days: 1 },
    ],
  );
});
