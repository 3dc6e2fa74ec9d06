import { keyReusedError } from '../idempotency';
import type { Knex } from 'knex';
import { afterShortFunds, latestDueDate, type StandingOrderFrequency } from '../../domain/cash/standing-orders';
import { AppError, NotFoundError } from '../../domain/errors';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { recordMemberTransfer } from './member-transfers.activity';
import { recordRepayment } from '../loans/loan-repayments.activity';

/**
 * Standing orders (docs/domain.md §13.5), to another member account or to the repayment of the member's loan: made by a
 * cashier or a branch head, active at once or, from the `standing_order.create` policy's threshold, once a second
 * person approves it (pending_approval meanwhile). Each order's Schedule runs `runStandingOrder` every day; the run of
 * a due date is made once (`standing_order_runs` unique per order and date, the transfer's key the order and the date),
 * tried again while short of funds.
 */

export interface StandingOrderInput {
  fromAccountId: string;
  /** Exactly one of the two: another member account, or a loan of the giving account's member, repaid from it. */
  toAccountId: string | null;
  toLoanId: string | null;
  amount: string;
  reference: string;
  frequency: StandingOrderFrequency;
  day: number;
  startDate: string;
  endDate: string | null;
  retryDays: number;
  idempotencyKey: string | null;
}

export interface StandingOrderRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  from_account_id: string;
  to_account_id: string | null;
  to_loan_id: string | null;
  amount: string;
  reference: string;
  frequency: StandingOrderFrequency;
  day: number;
  start_date: string;
  end_date: string | null;
  retry_days: number;
  status: 'pending_approval' | 'active' | 'rejected' | 'cancelled';
  created_by: string;
  updated_by: string;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
}

async function lockOrder(trx: Knex.Transaction, id: string): Promise<StandingOrderRow> {
  const row = (await trx('standing_orders').where({ id }).forUpdate().first()) as StandingOrderRow | undefined;
  if (row === undefined) throw new NotFoundError('The standing order');
  return row;
}

const accountRefusal = (field: string, message: string) =>
  new AppError('unprocessable', 'transfer_account_invalid', message, [{ field, message }]);

/** The destination: another open account of the enterprise, or a loan of the giving account's member. */
async function checkDestination(
  trx: Knex.Transaction,
  input: StandingOrderInput,
  from: { id: string; enterprise_id: string; client_id: string },
): Promise<void> {
  if ((input.toAccountId === null) === (input.toLoanId === null))
    throw accountRefusal('to_account', 'Send to_account or to_loan, one of them.');
  if (input.toLoanId !== null) {
    const loan = await trx('loans').where({ id: input.toLoanId }).first('client_id', 'enterprise_id');
    if (loan === undefined || loan.client_id !== from.client_id)
      throw accountRefusal('to_loan', "to_loan is not a loan of the giving account's member.");
    return;
  }
  const to = await trx('comptes_clients').where({ id: input.toAccountId! }).first('id', 'enterprise_id', 'status');
  if (to === undefined || to.enterprise_id !== from.enterprise_id || to.id === from.id)
    throw accountRefusal('to_account', 'to_account is not another member account of the enterprise.');
  if (to.status !== 'open') throw accountRefusal('to_account', `to_account is ${to.status as string}.`);
}

/**
 * An open giving account, a destination, the dates in order, the start not before the business date. Answers the giving
 * account's enterprise and branch.
 */
async function checkOrder(
  trx: Knex.Transaction,
  now: Date,
  input: StandingOrderInput,
): Promise<{ enterpriseId: string; branchId: string }> {
  const from = await trx('comptes_clients')
    .where({ id: input.fromAccountId })
    .first('id', 'enterprise_id', 'branch_id', 'client_id', 'status');
  if (from === undefined) throw new NotFoundError('The account');
  if (from.status !== 'open') throw accountRefusal('from_account', `from_account is ${from.status as string}.`);
  await checkDestination(trx, input, from);
  if (input.endDate !== null && input.endDate < input.startDate) {
    throw new AppError('validation', 'invalid_request', 'The end date comes before the start date.', [
      { field: 'end_date', message: 'end_date is before start_date' },
    ]);
  }
  const businessDate = await businessDateOf(trx, from.enterprise_id as string, now);
  if (input.startDate < businessDate) {
    throw new AppError('validation', 'invalid_request', `The start date is before the business date ${businessDate}.`, [
      { field: 'start_date', message: `start_date is before ${businessDate}` },
    ]);
  }
  return { enterpriseId: from.enterprise_id as string, branchId: from.branch_id as string };
}

/** The order the maker already made with this key, if any (the same order answered again, another refused). */
export async function standingOrderOfKey(
  knex: Knex | Knex.Transaction,
  maker: Actor,
  input: StandingOrderInput,
): Promise<string | undefined> {
  if (input.idempotencyKey === null) return undefined;
  const made = (await knex('standing_orders')
    .where({ created_by: maker.userId, idempotency_key: input.idempotencyKey })
    .first()) as StandingOrderRow | undefined;
  if (made === undefined) return undefined;
  const same =
    made.from_account_id === input.fromAccountId &&
    made.to_account_id === input.toAccountId &&
    made.to_loan_id === input.toLoanId &&
    made.amount === input.amount;
  if (!same || made.frequency !== input.frequency || made.day !== input.day) {
    throw keyReusedError();
  }
  return made.id;
}

/** Records the order, pending a second person's approval or active at once. */
export async function createStandingOrder(
  context: DataContext,
  maker: Actor,
  input: StandingOrderInput,
  status: 'pending_approval' | 'active',
): Promise<string> {
  return inTransaction(context.knex, async (trx) => {
    const { enterpriseId, branchId } = await checkOrder(trx, context.clock(), input);
    const [row] = await trx('standing_orders')
      .insert({
        enterprise_id: enterpriseId,
        branch_id: branchId,
        from_account_id: input.fromAccountId,
        to_account_id: input.toAccountId,
        to_loan_id: input.toLoanId,
        amount: input.amount,
        reference: input.reference,
        frequency: input.frequency,
        day: input.day,
        start_date: input.startDate,
        end_date: input.endDate,
        retry_days: input.retryDays,
        status,
        created_by: maker.userId,
        updated_by: maker.userId,
        idempotency_key: input.idempotencyKey,
      })
      .returning('id');
    await recordAudit(trx, maker, {
      action: 'standing_order.create',
      entityType: 'standing_order',
      entityId: row.id,
      enterpriseId,
      details: {
        from: input.fromAccountId,
        to: input.toAccountId ?? input.toLoanId,
        amount: input.amount,
        frequency: input.frequency,
        day: input.day,
        start_date: input.startDate,
        status,
      },
    });
    return row.id as string;
  });
}

/** The executor of `standing_order.create`: the order approved becomes active (its Schedule runs it from then on). */
export async function activateStandingOrder(
  context: DataContext,
  actor: Actor,
  payload: { standingOrderId: string },
): Promise<{ id: string }> {
  return inTransaction(context.knex, async (trx) => {
    const order = await lockOrder(trx, payload.standingOrderId);
    if (order.status !== 'pending_approval')
      throw new AppError('conflict', 'standing_order_not_pending', `The standing order is ${order.status}.`);
    await trx('standing_orders').where({ id: order.id }).update({ status: 'active' });
    await recordAudit(trx, actor, {
      action: 'standing_order.activate',
      entityType: 'standing_order',
      entityId: order.id,
      enterpriseId: order.enterprise_id,
    });
    return { id: order.id };
  });
}

/** When its request is rejected, expires or fails, the pending order is rejected: its Schedule finds nothing to run. */
export async function rejectStandingOrder(
  trx: Knex.Transaction,
  payload: { standingOrderId: string },
  closing: { requestId: string; status: string },
): Promise<void> {
  const order = await lockOrder(trx, payload.standingOrderId);
  if (order.status !== 'pending_approval') return;
  await trx('standing_orders').where({ id: order.id }).update({ status: 'rejected' });
  await recordAudit(trx, null, {
    action: 'standing_order.reject',
    entityType: 'standing_order',
    entityId: order.id,
    enterpriseId: order.enterprise_id,
    details: { request: closing.requestId, status: closing.status },
  });
}

export interface StandingOrderChanges {
  amount?: string;
  reference?: string;
  end_date?: string | null;
  retry_days?: number;
}

/**
 * Changes the amount, reference, end or retry days of an active order (audited, with the values before and after), or
 * cancels it.
 */
export async function changeStandingOrder(
  context: DataContext,
  actor: Actor,
  id: string,
  changes: StandingOrderChanges | 'cancel',
): Promise<StandingOrderRow> {
  return inTransaction(context.knex, async (trx) => {
    const before = await lockOrder(trx, id);
    if (before.status !== 'active' && !(changes === 'cancel' && before.status === 'pending_approval')) {
      throw new AppError('conflict', 'standing_order_inactive', `The standing order is ${before.status}.`);
    }
    const patch: StandingOrderChanges & { status?: 'cancelled' } =
      changes === 'cancel' ? { status: 'cancelled' } : changes;
    if (patch.end_date !== undefined && patch.end_date !== null && patch.end_date < before.start_date) {
      throw new AppError('validation', 'invalid_request', 'The end date comes before the start date.', [
        { field: 'end_date', message: 'end_date is before start_date' },
      ]);
    }
    const [after] = (await trx('standing_orders')
      .where({ id })
      .update({ ...patch, updated_by: actor.userId })
      .returning('*')) as StandingOrderRow[];
    await recordAudit(trx, actor, {
      action: changes === 'cancel' ? 'standing_order.cancel' : 'standing_order.update',
      entityType: 'standing_order',
      entityId: id,
      enterpriseId: before.enterprise_id,
      ...changedValues(patch, before, after!),
    });
    return after!;
  });
}

interface RunRow {
  id: string;
  due_date: string;
  outcome: 'done' | 'retrying' | 'failed';
  attempts: number;
  last_attempt_on: string;
}

/** What a run of the Schedule did: the due dates tried and how each ended. */
export interface StandingOrderPass {
  businessDate: string | null;
  runs: { dueDate: string; outcome: 'done' | 'retrying' | 'failed' }[];
}

type Made = { transfer_id: string | null; repayment_id: string | null };

/**
 * The run's movement, as the order's maker, its key the order and the due date (so never made twice): a transfer, or a
 * repayment from the account.
 */
async function makeRun(
  trx: Knex.Transaction,
  context: DataContext,
  order: StandingOrderRow,
  dueDate: string,
): Promise<Made> {
  const maker: Actor = { userId: order.created_by, grants: [], requestId: `standing-order-${order.id}-${dueDate}` };
  const idempotencyKey = `standing-order:${order.id}:${dueDate}`;
  const inRun = { knex: trx as unknown as Knex, clock: context.clock };
  if (order.to_loan_id !== null) {
    const repaid = await recordRepayment(inRun, maker, {
      loanId: order.to_loan_id,
      amount: new Money(order.amount),
      channel: 'account',
      accountId: order.from_account_id,
      date: null,
      reference: order.reference,
      idempotencyKey,
    });
    return { transfer_id: null, repayment_id: repaid.repayment.id };
  }
  const transfer = {
    fromAccountId: order.from_account_id,
    toAccountId: order.to_account_id!,
    amount: order.amount,
    reference: order.reference,
    idempotencyKey,
  };
  const made = await recordMemberTransfer(inRun, maker, transfer);
  return { transfer_id: made.id, repayment_id: null };
}

/** One due date tried: the movement made, or the refusal recorded (waiting for funds, or failed). */
async function attempt(
  trx: Knex.Transaction,
  context: DataContext,
  order: StandingOrderRow,
  dueDate: string,
  businessDate: string,
  earlier: RunRow | undefined,
) {
  let result: Made & { outcome: RunRow['outcome']; refusal_code: string | null; refusal_message: string | null };
  try {
    result = {
      outcome: 'done',
      ...(await makeRun(trx, context, order, dueDate)),
      refusal_code: null,
      refusal_message: null,
    };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const outcome =
      error.code === 'insufficient_funds' ? afterShortFunds(dueDate, businessDate, order.retry_days) : 'failed';
    result = {
      outcome,
      transfer_id: null,
      repayment_id: null,
      refusal_code: error.code,
      refusal_message: error.message.slice(0, 500),
    };
  }
  if (earlier === undefined)
    await trx('standing_order_runs').insert({
      enterprise_id: order.enterprise_id,
      standing_order_id: order.id,
      due_date: dueDate,
      attempts: 1,
      last_attempt_on: businessDate,
      ...result,
    });
  else
    await trx('standing_order_runs')
      .where({ id: earlier.id })
      .update({ attempts: earlier.attempts + 1, last_attempt_on: businessDate, ...result });
  return { dueDate, outcome: result.outcome };
}

/**
 * The daily pass of one order, in one transaction with the order locked (a Schedule firing twice waits, then finds
 * the run made): the latest due date by the business date if it has no run yet, and a run waiting for funds if it
 * was not tried this business day. Nothing for an order not active. Due dates missed while nothing ran (more than
 * one period) are not made up: only the latest is.
 */
export async function runStandingOrder(
  context: DataContext,
  input: { standingOrderId: string },
): Promise<StandingOrderPass> {
  return inTransaction(context.knex, async (trx) => {
    const order = (await trx('standing_orders').where({ id: input.standingOrderId }).forUpdate().first()) as
      StandingOrderRow | undefined;
    if (order === undefined || order.status !== 'active') return { businessDate: null, runs: [] };
    const businessDate = await businessDateOf(trx, order.enterprise_id, context.clock());
    const runs: StandingOrderPass['runs'] = [];
    const waiting = (await trx('standing_order_runs')
      .where({ standing_order_id: order.id, outcome: 'retrying' })
      .whereNot('last_attempt_on', businessDate)) as RunRow[];
    for (const run of waiting) runs.push(await attempt(trx, context, order, run.due_date, businessDate, run));
    const due = latestDueDate(
      { frequency: order.frequency, day: order.day, startDate: order.start_date, endDate: order.end_date },
      businessDate,
    );
    if (
      due !== null &&
      (await trx('standing_order_runs').where({ standing_order_id: order.id, due_date: due }).first('id')) === undefined
    ) {
      runs.push(await attempt(trx, context, order, due, businessDate, undefined));
    }
    return { businessDate, runs };
  });
}
