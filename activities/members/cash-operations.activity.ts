import type { Knex } from 'knex';
import { moneyMovingKinds } from '../../domain/events/rules';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { inTransaction, retryOnConflict } from '../../db/transaction';
import type { ActivityContext, Actor, DataContext } from '../context';
import { assertSameRequest, operationKey } from '../idempotency';
import { defaultAccountsJson } from '../events/record-business-event';
import { ledgerCall } from '../events/ledger-refusal';
import { reportCommitted, reportOnCommit } from '../metrics-channel';

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

export async function depositCash(
  context: ActivityContext,
  actor: Actor,
  input: CashOperationInput,
): Promise<CashOperation> {
  return retryOnConflict(() => moveCash(context.knex, context.clock(), actor, 'deposit', input));
}

export async function withdrawCash(
  context: ActivityContext,
  actor: Actor,
  input: CashOperationInput,
): Promise<CashOperation> {
  return retryOnConflict(() => moveCash(context.knex, context.clock(), actor, 'withdrawal', input));
}

/** A withdrawal under four eyes as its request holds it (JSON): everything the approval needs to make it then. */
export interface ApprovedWithdrawal {
  accountId: string;
  amount: string;
  channel: 'cash';
  reference: string;
  idempotencyKey: string | null;
}

/**
 * The approved withdrawal, made as its maker with the maker's key: the account's rules (open, allowed, the minimum
 * balance and the holds) are checked now, at the approval. Its own savepoint, so that a refusal leaves the
 * decision's transaction usable to record the request `failed`.
 */
export const withdrawApproved = (
  context: DataContext,
  maker: Actor,
  payload: ApprovedWithdrawal,
): Promise<CashOperation> =>
  inTransaction(context.knex, (trx) =>
    moveCash(trx, context.clock(), maker, 'withdrawal', { ...payload, amount: new Money(payload.amount) }),
  );

/**
 * Whether the user's key already names a cash movement of the enterprise: a retry, answered again rather than asked
 * again.
 */
export async function cashKeyUsed(knex: Knex, actor: Actor, enterpriseId: string, clientKey: string): Promise<boolean> {
  return (
    (await knex('business_event_logs')
      .where({ enterprise_id: enterpriseId, idempotency_key: operationKey('cash', actor, clientKey) })
      .first('id')) !== undefined
  );
}

/**
 * The operation as coopbank_move_cash returns it: the event recorded now, or the one its key recorded before, with the
 * account locked.
 */
interface MovedRow extends EventRow {
  account: string;
  replayed: boolean;
}

const moveCashSql = `SELECT account, id, kind, subject_id, amount_moved AS amount, payload, business_date, created_at,
                              journal_entry, replayed
                       FROM coopbank_move_cash(?, ?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?, ?::jsonb)`;

/**
 * One cash movement in one statement (coopbank_move_cash, see its migration): the account locked, then what its key
 * already recorded answered again, or the account's rules checked (open; for a withdrawal, allowed and above the
 * minimum balance) and the event, its entry and the new balance written. Alone it is its own transaction; given a
 * transaction, it joins it. The lock comes first: concurrent movements of one account queue up, so the balance
 * check and update cannot interleave, and a retried request (same key) finds the first one's event once it holds
 * the lock, and answers it again instead of moving money twice.
 */
export async function moveCash(
  db: Knex | Knex.Transaction,
  now: Date,
  actor: Actor,
  direction: CashDirection,
  input: CashOperationInput,
): Promise<CashOperation> {
  const key = operationKey('cash', actor, input.idempotencyKey);
  const amount = formatAmount(input.amount);
  const replayable = input.idempotencyKey !== null; // without a client key there is nothing to replay
  const bindings = [
    input.accountId,
    direction,
    amount,
    input.channel,
    input.reference,
    key,
    replayable,
    actor.userId,
    now.toISOString(),
    moneyMovingKinds.has(direction),
    defaultAccountsJson,
  ];
  // A named statement: PostgreSQL parses and plans it once per connection.
  const moved = await ledgerCall<MovedRow | undefined>(
    db.raw(moveCashSql, bindings).options({ name: 'coopbank_move_cash' }),
  ).catch((error: unknown) => {
    // As assertAboveMinimum's refusal: the amount is what does not fit (the minimum balance and the pledged deposits'
    // holds).
    if (error instanceof AppError && error.code === 'insufficient_funds')
      throw new AppError(error.kind, error.code, error.message, [{ field: 'amount', message: error.message }]);
    throw error;
  });
  if (moved === undefined) throw new NotFoundError('The account');
  if (moved.replayed)
    assertSameRequest(moved.payload.request, {
      direction,
      account: moved.account,
      amount,
      channel: input.channel,
      reference: input.reference,
    });
  else if (moved.journal_entry !== null) reportPosting(db, direction);
  return { ...toOperation(moved), replayed: moved.replayed };
}

/** The posting counter: at the commit of the caller's transaction, or now when the statement was its own. */
function reportPosting(db: Knex | Knex.Transaction, kind: CashDirection): void {
  const work = { work: 'posting', labels: { kind } } as const;
  if ((db as Partial<Knex.Transaction>).isTransaction === true) reportOnCommit(db as Knex.Transaction, work);
  else reportCommitted(work);
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

const operationColumns = [
  'ev.id',
  'ev.kind',
  'ev.subject_id',
  'ev.amount',
  'ev.payload',
  'ev.business_date',
  'ev.created_at',
  'je.id as journal_entry',
];

function operations(trx: Knex.Transaction | Knex) {
  return trx('business_event_logs as ev')
    .leftJoin('journal_entries as je', (join) => join.on('je.event_id', 'ev.id').andOnNull('je.reverses_entry_id'))
    .whereIn('ev.kind', ['deposit', 'withdrawal'])
    .select(operationColumns);
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
