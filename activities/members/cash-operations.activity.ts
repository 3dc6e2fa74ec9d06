import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import type { ActivityContext, Actor } from '../context';
import { assertSameRequest, operationKey } from '../idempotency';
import { recordBusinessEvent } from '../events/record-business-event';
import { assertAboveMinimum } from '../../domain/members/overdraft';

export type CashDirection = 'deposit' | 'withdrawal';

export interface CashOperationInput {
  accountId: string;
  amount: Money;
  channel: 'cash';
  reference: string;
  /** The client's Idempotency-Key; null when the client sent none (then nothing guards a retry). */
  idempotencyKey: string | null;
}

/** A deposit or a withdrawal as recorded: the event, with the balance it left. */
export interface CashOperation {
  id: string;
  kind: CashDirection;
  account: string;
  amount: string;
  channel: string;
  reference: string;
  balance_after: string;
  business_date: string;
  journal_entry: string | null;
  recorded_at: Date;
  replayed: boolean;
}

export async function depositCash(context: ActivityContext, actor: Actor, input: CashOperationInput): Promise<CashOperation> {
  return inTransaction(context.knex, (trx) => moveCash(trx, context.clock(), actor, 'deposit', input));
}

export async function withdrawCash(context: ActivityContext, actor: Actor, input: CashOperationInput): Promise<CashOperation> {
  return inTransaction(context.knex, (trx) => moveCash(trx, context.clock(), actor, 'withdrawal', input));
}

/** The account as coopbank_lock_member_account returns it: locked, with its product and the event of the key, if any. */
interface LockedAccount {
  id: string;
  enterprise_id: string;
  branch_id: string;
  number: string;
  status: 'open' | 'frozen' | 'closed';
  balance: string;
  product_code: string;
  withdrawals_allowed: boolean;
  minimum_balance: string;
  deposit_account_code: string;
  earlier_event: string | null;
}

/**
 * One cash movement in the caller's transaction, in two statements: the account locked (with its product and
 * what its key already recorded), then the event, its entry and the new balance. The lock comes first: concurrent
 * movements of one account queue up, so the balance check and update cannot interleave, and a retried request
 * (same key) finds the first one's event once it holds the lock, and answers it again instead of moving money twice.
 */
export async function moveCash(trx: Knex.Transaction, now: Date, actor: Actor, direction: CashDirection, input: CashOperationInput): Promise<CashOperation> {
  const key = operationKey('cash', actor, input.idempotencyKey);
  const { rows } = (await trx.raw('SELECT * FROM coopbank_lock_member_account(?, ?)', [input.accountId, input.idempotencyKey === null ? null : key])) as { rows: LockedAccount[] };
  const account = rows[0];
  if (account === undefined) throw new NotFoundError('The account');
  const request = { direction, account: account.id, amount: formatAmount(input.amount), channel: input.channel, reference: input.reference };
  const earlier = account.earlier_event === null ? undefined : await operationByKey(trx, account.enterprise_id, key);
  if (earlier !== undefined) {
    assertSameRequest(earlier.payload.request, request);
    return { ...toOperation(earlier), replayed: true };
  }
  if (account.status !== 'open') {
    throw new AppError('conflict', `account_${account.status}`, `The account is ${account.status}: no ${direction} is possible.`);
  }
  const balance = new Money(account.balance);
  const balanceAfter = direction === 'deposit' ? balance.plus(input.amount) : balance.minus(input.amount);
  if (direction === 'withdrawal') {
    if (!account.withdrawals_allowed) throw new AppError('conflict', 'withdrawals_not_allowed', `Product ${account.product_code} does not allow withdrawals.`);
    assertAboveMinimum(balance, balanceAfter, new Money(account.minimum_balance));
  }
  const balanceMoved = trx('comptes_clients').update({ balance: formatAmount(balanceAfter) }).where('id', account.id);
  const recorded = await recordBusinessEvent(trx, now, {
    enterpriseId: account.enterprise_id,
    branchId: account.branch_id,
    kind: direction,
    amount: input.amount,
    subjectId: account.id,
    payload: { request, balance_after: formatAmount(balanceAfter), account_number: account.number },
    idempotencyKey: key,
    actorId: actor.userId,
    productAccounts: { member_deposits: account.deposit_account_code },
    description: `${direction} ${account.number}${input.reference === '' ? '' : ` (${input.reference})`}`,
  }, balanceMoved);
  return {
    id: recorded.eventId,
    kind: direction,
    account: account.id,
    amount: request.amount,
    channel: request.channel,
    reference: request.reference,
    balance_after: formatAmount(balanceAfter),
    business_date: recorded.businessDate,
    journal_entry: recorded.entryId,
    recorded_at: recorded.recordedAt,
    replayed: false,
  };
}

interface EventRow {
  id: string;
  kind: CashDirection;
  subject_id: string;
  amount: string;
  payload: { request: Record<string, unknown> & { channel: string; reference: string }; balance_after: string };
  business_date: string;
  created_at: Date;
  journal_entry: string | null;
}

const operationColumns = ['ev.id', 'ev.kind', 'ev.subject_id', 'ev.amount', 'ev.payload', 'ev.business_date', 'ev.created_at', 'je.id as journal_entry'];

function operations(trx: Knex.Transaction | Knex) {
  return trx('business_event_logs as ev')
    .leftJoin('journal_entries as je', (join) => join.on('je.event_id', 'ev.id').andOnNull('je.reverses_entry_id'))
    .whereIn('ev.kind', ['deposit', 'withdrawal'])
    .select(operationColumns);
}

async function operationByKey(trx: Knex.Transaction, enterpriseId: string, key: string): Promise<EventRow | undefined> {
  return operations(trx).where({ 'ev.enterprise_id': enterpriseId, 'ev.idempotency_key': key }).first();
}

export function toOperation(row: EventRow): Omit<CashOperation, 'replayed'> {
  return {
    id: row.id,
    kind: row.kind,
    account: row.subject_id,
    amount: row.amount,
    channel: row.payload.request.channel,
    reference: row.payload.request.reference,
    balance_after: row.payload.balance_after,
    business_date: row.business_date,
    journal_entry: row.journal_entry,
    recorded_at: row.created_at,
  };
}

/** Lists of deposits or withdrawals share the query: exported for the routes. */
export { operations as cashOperationsQuery, type EventRow as CashOperationRow };
