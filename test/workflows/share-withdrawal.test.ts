import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import {
  accountBalance,
  approvedLoan,
  createLoanWorld,
  memberOf,
  openSavingsAccount,
  putBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { capitalBooks, createShareType, subscribeShares } from '../helpers/shares';
import { fileTeardown } from '../helpers/teardown';
import { untilWorkflow } from '../helpers/until';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { withdrawalStateQuery } from '../../workflows/definitions';
import { Money } from '../../domain/money';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const historyFile = path.join(__dirname, 'histories', 'share-withdrawal-refunded.json');
/** A workflow day lasts 10 ms here: a notice of 100 days is a second, a refund due in a year 3.65 s. */
const dayMs = 10;
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let founderType: string;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue, workflowDayMs: dayMs });
  world = await createLoanWorld(app, knex, 'SWD');
  founderType = await createShareType(world, { code: '001', nominal_value: '10000', notice_days: 0 });
  await putBusinessDate(world, '2026-01-15');
});

const as = (name: string) => world.users[name]!.headers;
const onWorker = <T>(work: (client: Client) => Promise<T>) => withWorker(knex, ({ client }) => work(client), taskQueue);
// A notice changes under four eyes (docs/domain.md §11): another administrator approves it.
const noticeDays = async (days: number, type = world.shareTypeId) =>
  approveRequest(
    knex,
    await app.request('PATCH', `/api/v1/shares/types/${type}/`, {
      headers: as('direction'),
      json: { notice_days: days },
    }),
    await secondAdmin(knex, world),
  );
const requestWithdrawal = (json: object) =>
  app.request('POST', '/api/v1/shares/withdrawals/', { headers: as('cashier'), json });
const withdrawalOf = async (id: string) =>
  (await app.request('GET', `/api/v1/shares/withdrawals/${id}/`, { headers: as('cashier') })).body;
const refund = (id: string, json: object, headers: Record<string, string> = {}) =>
  app.request('POST', `/api/v1/shares/withdrawals/${id}/refund/`, { headers: { ...as('cashier'), ...headers }, json });

/** Polls the withdrawal until `done` holds (timers run in real time), or fails after `timeoutMs`. */
async function waitFor(
  id: string,
  done: (withdrawal: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return untilWorkflow({
    workflowId: `share-withdrawal-${id}`,
    what: `withdrawal ${id} to reach the awaited state`,
    read: async () => {
      const withdrawal = await withdrawalOf(id);
      return done(withdrawal) ? withdrawal : undefined;
    },
  });
}

/** The capital accounts tie out to the register and the refunds owed; the whole ledger balances. */
async function assertBooksTieOut(t: ExecutionContext) {
  const books = await capitalBooks(world);
  t.deepEqual(books.ledger, books.register);
  t.true(books.balanced, 'trial balance: debits = credits');
}

async function disbursedLoanOf(member: string, amount = '1200000'): Promise<{ loanId: string; account: string }> {
  const account = await openSavingsAccount(world, member, '50000');
  const loanId = await approvedLoan(world, member, { amount, term_periods: 12 });
  const response = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
    headers: as('cashier'),
    json: { channel: 'account', account },
  });
  if (response.status !== 200) throw new Error(response.text);
  return { loanId, account };
}

/** The refund pays the shares net of the overdue installments, which it repays; replayed by its key, refused after. */
async function assertRefundedNetOfOverdue(
  t: ExecutionContext,
  id: string,
  { loanId, overdue }: { loanId: string; overdue: bigint },
) {
  const key = { 'Idempotency-Key': 'refund-1' };
  const refunded = await refund(id, { channel: 'cash', reference: 'till 1' }, key);
  t.is(refunded.status, 200, refunded.text);
  t.like(refunded.body, {
    status: 'refunded',
    offset_amount: overdue.toString(),
    net_refund: (2_000_000n - overdue).toString(),
    refund_channel: 'cash',
    refunded_on: '2026-03-20',
  });
  const repayment = await knex('loan_repayments').where({ loan_id: loanId }).first();
  t.like(repayment, { channel: 'share_refund', amount: overdue.toString(), account_id: null });
  const after = (await app.request('GET', `/api/v1/loans/loans/${loanId}/`, { headers: as('cashier') })).body.position;
  t.is(after.days_past_due, 0, 'the arrears are cleared');
  const replayed = await refund(id, { channel: 'cash', reference: 'till 1' }, key);
  t.is(replayed.headers.get('idempotent-replayed'), 'true');
  t.is(replayed.body.net_refund, refunded.body.net_refund);
  t.is((await refund(id, { channel: 'cash', reference: 'till 2' }, key)).body.code, 'idempotency_key_reused');
  t.is((await refund(id, { channel: 'cash' })).body.code, 'already_refunded');
}

test.serial(
  'notice, effect, then the refund net of an overdue loan: each leg posted once; the history replays',
  async (t) => {
    await putBusinessDate(world, '2026-01-15');
    const member = await memberOf(world);
    const subscription = await subscribeShares(world, member, { share_type: world.shareTypeId, shares: 3 });
    const { loanId } = await disbursedLoanOf(member);
    await putBusinessDate(world, '2026-03-20'); // installments of 15 Feb and 15 Mar are late
    const position = (await app.request('GET', `/api/v1/loans/loans/${loanId}/`, { headers: as('cashier') })).body
      .position;
    const overdue = BigInt(position.overdue_principal) + BigInt(position.overdue_interest) + BigInt(position.penalties);
    t.true(overdue > 0n);
    await noticeDays(100);
    await onWorker(async (client) => {
      const requested = await requestWithdrawal({
        subscription: subscription.id,
        shares: 2,
        reason: 'letter of 20 March',
      });
      t.is(requested.status, 201, requested.text);
      t.regex(requested.body.number, /^WDR-2026-\d{6}$/);
      t.like(requested.body, {
        status: 'notice',
        shares: 2,
        notice_days: 100,
        requested_on: '2026-03-20',
        effective_on_planned: '2026-06-28',
        workflow_id: `share-withdrawal-${requested.body.id}`,
      });
      const effective = await waitFor(requested.body.id, (withdrawal) => withdrawal.status === 'effective');
      t.like(effective, {
        effective_on: '2026-03-20',
        refund_owed: '2000000',
        unpaid_cancelled: '0',
        refund_due_on: '2027-03-20',
        refund_overdue: false,
      });
      await assertBooksTieOut(t);
      // The capital owed to the leaving member stands apart (4417), not netted with what other members owe (4411).
      t.is(await accountBalance(knex, world.enterpriseId, '4417'), '-2000000');

      await assertRefundedNetOfOverdue(t, requested.body.id as string, { loanId, overdue });
      const handle = client.workflow.getHandle(requested.body.workflow_id);
      t.is((await handle.result()).status, 'refunded');
      const kinds = (
        await knex('business_event_logs').whereRaw(`payload->>'withdrawal' = ?`, [requested.body.id]).select('kind')
      )
        .map((row) => row.kind)
        .sort();
      t.deepEqual(kinds, ['share_cancellation', 'share_refund'], 'cancelled once, refunded once');
      await assertBooksTieOut(t);
      t.is(await accountBalance(knex, world.enterpriseId, '4411'), '0', 'nothing owed either way');
      t.is(
        await accountBalance(knex, world.enterpriseId, '4417'),
        '0',
        'the refund, the overdue installments it repaid included, emptied 4417',
      );

      const { events } = await handle.fetchHistory();
      await t.notThrowsAsync(
        Worker.runReplayHistory(
          { workflowBundle: { codePath: testEnvironment().bundlePath } },
          { events },
          requested.body.workflow_id,
        ),
      );
      if (process.env.RECORD_HISTORIES === '1')
        fs.writeFileSync(historyFile, historyToJSON(temporal.api.history.v1.History.create({ events })));
    });
  },
);

test.serial('a recorded history of a withdrawal replays against the current workflow code', async (t) => {
  const history = JSON.parse(fs.readFileSync(historyFile, 'utf8'));
  await t.notThrowsAsync(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: testEnvironment().bundlePath } },
      history,
      'recorded-share-withdrawal',
    ),
  );
});

test.serial(
  'a withdrawal cancelled when the capital owed went to 4411 (before 4417 was kept apart) is refunded from 4411',
  async (t) => {
    const member = await memberOf(world);
    const subscription = await subscribeShares(world, member, { share_type: world.shareTypeId, shares: 2 });
    await noticeDays(0);
    // A rule changes under four eyes: another administrator approves it (docs/domain.md §11).
    const checker = await secondAdmin(knex, world);
    const cancellationCredits = async (role: string) =>
      approveRequest(
        knex,
        await app.request('POST', '/api/v1/events/rule-configs/', {
          headers: as('direction'),
          json: {
            enterprise: world.enterpriseId,
            kind: 'share_cancellation',
            legs: [{ debit: { role: 'shares_paid' }, credit: { role } }],
            reason: `cancellation to ${role}`,
          },
        }),
        checker,
      );
    t.is((await cancellationCredits('members_capital')).status, 200, 'the rule as it was');
    const before = {
      members: await accountBalance(knex, world.enterpriseId, '4411'),
      refunds: await accountBalance(knex, world.enterpriseId, '4417'),
    };
    await onWorker(async () => {
      const requested = await requestWithdrawal({ subscription: subscription.id, shares: 1 });
      t.is(requested.status, 201, requested.text);
      const effective = await waitFor(requested.body.id, (withdrawal) => withdrawal.status === 'effective');
      t.is(
        await accountBalance(knex, world.enterpriseId, '4411'),
        new Money(before.members).minus(effective.refund_owed as string).toFixed(0),
      );
      t.is((await cancellationCredits('capital_to_refund')).status, 200, 'the rule as it is now');
      t.is((await refund(requested.body.id, { channel: 'cash' })).status, 200);
    });
    t.deepEqual(
      {
        members: await accountBalance(knex, world.enterpriseId, '4411'),
        refunds: await accountBalance(knex, world.enterpriseId, '4417'),
      },
      before,
      'the refund emptied what the cancellation credited',
    );
  },
);

test.serial('cancelled during the notice by the member or the board: nothing posted, the workflow ends', async (t) => {
  const member = await memberOf(world);
  const subscription = await subscribeShares(world, member, { share_type: world.shareTypeId, shares: 2 });
  await noticeDays(3000);
  await onWorker(async (client) => {
    const requested = await requestWithdrawal({ subscription: subscription.id, shares: 1 });
    t.is(requested.status, 201, requested.text);
    const second = await requestWithdrawal({ subscription: subscription.id, shares: 1 });
    t.is(second.body.code, 'below_minimum_shares', 'one share in notice already: the second would leave none');
    const cancel = (id: string, name: string) =>
      app.request('POST', `/api/v1/shares/withdrawals/${id}/cancellation/`, {
        headers: as(name),
        json: { reason: 'the member changed their mind' },
      });
    t.is((await cancel(requested.body.id, 'other_cashier')).status, 404, 'another branch does not see it');
    const cancelled = await cancel(requested.body.id, 'direction');
    t.is(cancelled.status, 200, cancelled.text);
    t.like(cancelled.body, {
      status: 'cancelled',
      status_reason: 'the member changed their mind',
      cancelled_by: world.users.direction!.id,
    });
    t.is((await client.workflow.getHandle(requested.body.workflow_id).result()).status, 'cancelled');
    t.is((await cancel(requested.body.id, 'cashier')).body.code, 'withdrawal_not_in_notice');
    t.is((await knex('business_event_logs').whereRaw(`payload->>'withdrawal' = ?`, [requested.body.id])).length, 0);
    t.is(
      (await requestWithdrawal({ subscription: subscription.id, shares: 1 })).status,
      201,
      'the shares are free for a new request',
    );
  });
});

test.serial(
  'a worker stopped mid-notice: the timer fires while none runs, a new worker makes it effective, once',
  async (t) => {
    const member = await memberOf(world);
    const subscription = await subscribeShares(world, member, { share_type: world.shareTypeId, shares: 2 });
    await noticeDays(200);
    const requested = await onWorker(async (client) => {
      const response = await requestWithdrawal({ subscription: subscription.id, shares: 1 });
      t.is(response.status, 201, response.text);
      t.is((await client.workflow.getHandle(response.body.workflow_id).query(withdrawalStateQuery)).status, 'notice');
      return response.body;
    });
    await new Promise((resolve) => setTimeout(resolve, 200 * dayMs + 500));
    t.is((await withdrawalOf(requested.id)).status, 'notice', 'no worker: nothing happened yet');
    await onWorker(async () => {
      await waitFor(requested.id, (withdrawal) => withdrawal.status === 'effective');
    });
    t.is(
      (
        await knex('business_event_logs')
          .whereRaw(`payload->>'withdrawal' = ?`, [requested.id])
          .where({ kind: 'share_cancellation' })
      ).length,
      1,
    );
    await assertBooksTieOut(t);
  },
);

test.serial(
  'founder shares: refused before 5 years of seniority, accepted after; partly paid shares cancel ' +
    'their unpaid part; the member leaves once refunded',
  async (t) => {
    await putBusinessDate(world, '2021-03-01');
    const member = await memberOf(world);
    t.is(
      (
        await app.request('POST', `/api/v1/members/clients/${member}/founder/`, {
          headers: as('direction'),
          json: { founder: true, reason: 'initiateur' },
        })
      ).status,
      200,
    );
    const subscription = await subscribeShares(world, member, {
      share_type: founderType,
      shares: 4,
      initial_payment: '10000',
    });
    await putBusinessDate(world, '2026-02-28');
    const early = await requestWithdrawal({ subscription: subscription.id, leaving: true });
    t.is(early.status, 409);
    t.is(early.body.code, 'seniority_not_reached');
    t.regex(early.body.detail, /2026-03-01/);
    await putBusinessDate(world, '2026-03-01');
    await onWorker(async () => {
      const requested = await requestWithdrawal({ subscription: subscription.id, leaving: true });
      t.is(requested.status, 201, requested.text);
      t.is(requested.body.shares, 4, 'every share by default');
      const effective = await waitFor(requested.body.id, (withdrawal) => withdrawal.status === 'effective');
      t.like(effective, { refund_owed: '10000', unpaid_cancelled: '30000' });
      const leave = () =>
        app.request('POST', `/api/v1/members/clients/${member}/leave/`, {
          headers: as('branch_head'),
          json: { reason: 'moving away' },
        });
      t.is((await leave()).body.code, 'member_refund_pending');
      const account = await openSavingsAccount(world, member, '1000');
      const refunded = await refund(requested.body.id, { channel: 'account', account });
      t.like(refunded.body, { status: 'refunded', offset_amount: '0', net_refund: '10000', refund_account: account });
      t.is((await knex('comptes_clients').where({ id: account }).first()).balance, '11000');
      t.is(
        (
          await app.request('POST', `/api/v1/members/accounts/${account}/withdrawals/`, {
            headers: as('cashier'),
            json: { amount: '11000' },
          })
        ).status,
        201,
      );
      t.is(
        (
          await app.request('POST', `/api/v1/members/accounts/${account}/close/`, {
            headers: as('branch_head'),
            json: { reason: 'leaving' },
          })
        ).status,
        200,
      );
      t.is((await leave()).status, 200, 'no shares, no refund pending, no open account');
    });
    await assertBooksTieOut(t);
  },
);

test.serial(
  'a member who leaves is refunded net of the outstanding principal: the loan is paid off, its ' +
    'unearned interest waived',
  async (t) => {
    await putBusinessDate(world, '2026-01-15');
    const member = await memberOf(world);
    const subscription = await subscribeShares(world, member, { share_type: world.shareTypeId, shares: 2 });
    const { loanId } = await disbursedLoanOf(member, '600000');
    await noticeDays(0);
    await onWorker(async () => {
      const requested = await requestWithdrawal({ subscription: subscription.id, leaving: true });
      t.is(requested.status, 201, requested.text);
      await waitFor(requested.body.id, (withdrawal) => withdrawal.status === 'effective');
      const refunded = await refund(requested.body.id, { channel: 'cash' });
      t.like(refunded.body, { status: 'refunded', offset_amount: '600000', net_refund: '1400000' });
    });
    const loan = await knex('loans').where({ id: loanId }).first();
    t.like(loan, { status: 'closed', outstanding_principal: '0' });
    const unpaid = await knex('loan_installments').where({ loan_id: loanId }).whereNull('paid_on');
    t.is(unpaid.length, 0, 'every installment settled: principal repaid, interest not yet earned waived');
    await assertBooksTieOut(t);
  },
);

test.serial(
  'the refund falls due: a reminder, then overdue; the board extends it once, and the deadlines move',
  async (t) => {
    const member = await memberOf(world);
    const subscription = await subscribeShares(world, member, { share_type: world.shareTypeId, shares: 2 });
    await noticeDays(0);
    await onWorker(async (client) => {
      const requested = await requestWithdrawal({ subscription: subscription.id, shares: 1 });
      const reminded = await waitFor(requested.body.id, (withdrawal) => withdrawal.refund_reminded_at !== null);
      t.false(reminded.refund_overdue, 'reminded before the due date');
      await waitFor(requested.body.id, (withdrawal) => withdrawal.refund_overdue === true);
      const listed = await app.request(
        'GET',
        `/api/v1/shares/withdrawals/?enterprise=${world.enterpriseId}&refund_overdue=true`,
        { headers: as('direction') },
      );
      t.true(listed.body.results.some((row: { id: string }) => row.id === requested.body.id));
      t.true(
        listed.body.results.every(
          (row: { refund_overdue: boolean; status: string }) => row.refund_overdue && row.status === 'effective',
        ),
      );
      const extend = (name: string) =>
        app.request('POST', `/api/v1/shares/withdrawals/${requested.body.id}/refund-extension/`, {
          headers: as(name),
          json: { reason: 'board decision 2026-07: liquidity' },
        });
      t.is((await extend('branch_head')).status, 403, 'the board decides');
      const extended = await extend('direction');
      t.is(extended.status, 200, extended.text);
      t.like(extended.body, {
        refund_extended: true,
        refund_overdue: false,
        refund_reminded_at: null,
        refund_extension_reason: 'board decision 2026-07: liquidity',
      });
      t.is(
        extended.body.refund_due_on,
        `${Number(extended.body.effective_on.slice(0, 4)) + 2}${extended.body.effective_on.slice(4)}`,
      );
      t.is((await extend('direction')).body.code, 'refund_already_extended');
      await waitFor(requested.body.id, (withdrawal) => withdrawal.refund_reminded_at !== null);
      // The workflow learns of its reminder when it takes the activity's result, a task after the row was written.
      const state = await untilWorkflow({
        workflowId: requested.body.workflow_id,
        what: 'the workflow to hold its new reminder',
        read: async () => {
          const current = await client.workflow.getHandle(requested.body.workflow_id).query(withdrawalStateQuery);
          return current.refundReminded ? current : undefined;
        },
      });
      t.like(state, { status: 'effective', refundExtended: true, refundReminded: true });
      t.is((await refund(requested.body.id, { channel: 'cash' })).body.status, 'refunded');
      t.is((await client.workflow.getHandle(requested.body.workflow_id).result()).status, 'refunded');
    });
    const flags = (
      await knex('audit_events')
        .where({ entity_id: (await knex('share_withdrawals').where({ subscription_id: subscription.id }).first()).id })
        .orderBy('id')
        .select('action')
    ).map((row) => row.action);
    t.deepEqual(flags, [
      'share_withdrawal.request',
      'share_withdrawal.effective',
      'share_withdrawal.refund_reminder',
      'share_withdrawal.refund_overdue',
      'share_withdrawal.extend_refund',
      'share_withdrawal.refund_reminder',
      'share_withdrawal.refund',
    ]);
  },
);
