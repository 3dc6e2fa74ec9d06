import { keyReusedError } from '../idempotency';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { assertAboveMinimum } from '../../domain/members/overdraft';
import { formatAmount, Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { recordBusinessEvent } from '../events/record-business-event';
import { heldAmount } from '../members/account-holds';
import { clearingRoleAccounts, recordLiaison } from './liaison';

/** A transfer between two member accounts as a four-eyes request carries it: JSON, the amount as whole-franc text. */
export interface MemberTransferInput {
  fromAccountId: string;
  toAccountId: string;
  amount: string;
  reference: string;
  /** The maker's Idempotency-Key; null when none was sent (then nothing guards a retry). */
  idempotencyKey: string | null;
}

/**
 * What coopbank_lock_member_account answers of a locked account (an operation at another branch's counter reads it
 * too).
 */
export interface LockedAccount {
  id: string;
  enterprise_id: string;
  branch_id: string;
  number: string;
  status: 'open' | 'frozen' | 'closed';
  balance: string;
  withdrawals_allowed: boolean;
  minimum_balance: string;
  deposit_account_code: string;
}

export const lockAccount = async (trx: Knex.Transaction, id: string): Promise<LockedAccount | undefined> =>
  (await trx.raw('SELECT * FROM coopbank_lock_member_account(?, NULL)', [id])).rows[0] as LockedAccount | undefined;

/**
 * Both accounts locked in the order of their ids, whichever gives: two transfers between the same accounts in
 * opposite directions then queue up instead of deadlocking.
 */
async function lockBoth(
  trx: Knex.Transaction,
  input: MemberTransferInput,
): Promise<{ from: LockedAccount; to: LockedAccount | undefined }> {
  const locked = new Map<string, LockedAccount | undefined>();
  for (const id of [input.fromAccountId, input.toAccountId].sort()) locked.set(id, await lockAccount(trx, id));
  const from = locked.get(input.fromAccountId);
  if (from === undefined) throw new NotFoundError('The account');
  return { from, to: locked.get(input.toAccountId) };
}

const toAccountRefusal = (message: string) =>
  new AppError('unprocessable', 'transfer_account_invalid', message, [{ field: 'to_account', message }]);

/**
 * The rules of a withdrawal on the giving account (coopbank_move_cash's), and an open account of the same enterprise
 * receiving.
 */
async function assertTransferable(
  trx: Knex.Transaction,
  from: LockedAccount,
  to: LockedAccount | undefined,
  amount: Money,
): Promise<LockedAccount> {
  if (to === undefined || to.enterprise_id !== from.enterprise_id)
    throw toAccountRefusal('to_account is not a member account of the enterprise.');
  if (to.id === from.id) throw toAccountRefusal('to_account is the account the money leaves.');
  if (from.status !== 'open')
    throw new AppError('conflict', `account_${from.status}`, `The account is ${from.status}: no transfer is possible.`);
  if (to.status !== 'open')
    throw new AppError(
      'conflict',
      `account_${to.status}`,
      `The receiving account is ${to.status}: no transfer is possible.`,
      [{ field: 'to_account', message: `to_account is ${to.status}` }],
    );
  if (!from.withdrawals_allowed)
    throw new AppError(
      'conflict',
      'withdrawals_not_allowed',
      `The product of account ${from.number} does not allow withdrawals.`,
    );
  const balance = new Money(from.balance);
  assertAboveMinimum(balance, balance.minus(amount), new Money(from.minimum_balance), await heldAmount(trx, from.id));
  return to;
}

/** The transfer the maker already made with this key: a retry answers it, another request under the key is refused. */
async function transferOfKey(
  trx: Knex.Transaction,
  maker: Actor,
  enterpriseId: string,
  input: MemberTransferInput,
): Promise<string | undefined> {
  if (input.idempotencyKey === null) return undefined;
  const made = await trx('member_transfers')
    .where({ enterprise_id: enterpriseId, recorded_by: maker.userId, idempotency_key: input.idempotencyKey })
    .first('id', 'from_account_id', 'to_account_id', 'amount', 'reference');
  if (made === undefined) return undefined;
  if (
    made.from_account_id !== input.fromAccountId ||
    made.to_account_id !== input.toAccountId ||
    made.amount !== input.amount ||
    made.reference !== input.reference
  ) {
    throw keyReusedError();
  }
  return made.id as string;
}

/** One side's event: the account's deposit account, and the clearing account the two sides meet on. */
const sideEvent = (
  kind: 'member_transfer_debit' | 'member_transfer_credit',
  account: LockedAccount,
  clearing: ReturnType<typeof clearingRoleAccounts>,
  transfer: { id: string; amount: Money; maker: Actor; other: LockedAccount; reference: string },
) => ({
  enterpriseId: account.enterprise_id,
  branchId: account.branch_id,
  kind,
  amount: transfer.amount,
  subjectId: account.id,
  actorId: transfer.maker.userId,
  payload: {
    transfer: transfer.id,
    account: account.id,
    counterpart_account: transfer.other.id,
    reference: transfer.reference,
  },
  productAccounts: { member_deposits: account.deposit_account_code, ...clearing },
  idempotencyKey: `member_transfer:${transfer.id}:${kind}`,
  description:
    `Virement ${kind === 'member_transfer_debit' ? 'vers' : 'de'} ` +
    `${transfer.other.number}${transfer.reference === '' ? '' : ` (${transfer.reference})`}`,
});

/**
 * Moves money from one member account to another, of the same branch or another (docs/domain.md §13.5): no cash,
 * two events each posted in its account's branch, through 459 or, between branches, 45200 (recordLiaison). The
 * executor of `member_account.transfer`. A retry with the maker's key answers the first transfer (`replayed`).
 */
export async function recordMemberTransfer(
  context: DataContext,
  maker: Actor,
  input: MemberTransferInput,
): Promise<{ id: string; replayed: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const { from, to: wanted } = await lockBoth(trx, input);
    const made = await transferOfKey(trx, maker, from.enterprise_id, input);
    if (made !== undefined) return { id: made, replayed: true };
    const amount = new Money(input.amount);
    const to = await assertTransferable(trx, from, wanted, amount);
    const id = randomUUID();
    const clearing = clearingRoleAccounts(from.branch_id, to.branch_id);
    const transfer = { id, amount, maker, reference: input.reference };
    const now = context.clock();
    const debit = await recordBusinessEvent(
      trx,
      now,
      sideEvent('member_transfer_debit', from, clearing, { ...transfer, other: to }),
    );
    const credit = await recordBusinessEvent(
      trx,
      now,
      sideEvent('member_transfer_credit', to, clearing, { ...transfer, other: from }),
    );
    await trx('comptes_clients')
      .where({ id: from.id })
      .update({ balance: formatAmount(new Money(from.balance).minus(amount)) });
    await trx('comptes_clients')
      .where({ id: to.id })
      .update({ balance: formatAmount(new Money(to.balance).plus(amount)) });
    await trx('member_transfers').insert({
      id,
      enterprise_id: from.enterprise_id,
      from_account_id: from.id,
      to_account_id: to.id,
      from_branch_id: from.branch_id,
      to_branch_id: to.branch_id,
      amount: input.amount,
      reference: input.reference,
      business_date: debit.businessDate,
      debit_event_id: debit.eventId,
      credit_event_id: credit.eventId,
      recorded_by: maker.userId,
      idempotency_key: input.idempotencyKey,
    });
    await recordLiaison(trx, {
      enterpriseId: from.enterprise_id,
      businessDate: debit.businessDate,
      amount,
      source: { type: 'member_transfer', id },
      from: { branchId: from.branch_id, entryId: debit.entryId },
      to: { branchId: to.branch_id, entryId: credit.entryId },
    });
    await recordAudit(trx, maker, {
      action: 'member_transfer.record',
      entityType: 'member_transfer',
      entityId: id,
      enterpriseId: from.enterprise_id,
      details: { from: from.number, to: to.number, amount: input.amount },
    });
    return { id, replayed: false };
  });
}
