import { keyReusedError } from '../idempotency';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import type { EventKind } from '../../domain/events/rules';
import { assertAboveMinimum } from '../../domain/members/overdraft';
import { formatAmount, Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { recordBusinessEvent } from '../events/record-business-event';
import { heldAmount } from '../members/account-holds';
import { clearingRoleAccounts, recordLiaison } from './liaison';
import { lockAccount, type LockedAccount } from './member-transfers.activity';

export type InterBranchDirection = 'deposit' | 'withdrawal';

/**
 * A deposit or a withdrawal at another branch's counter, as a four-eyes request carries it: JSON, the amount as
 * whole-franc text.
 */
export interface InterBranchInput {
  direction: InterBranchDirection;
  accountId: string;
  /** The branch whose counter takes or pays the cash (not the account's). */
  counterBranchId: string;
  amount: string;
  reference: string;
  /** The maker's Idempotency-Key; null when none was sent (then nothing guards a retry). */
  idempotencyKey: string | null;
}

/**
 * Whether the enterprise lets its branches serve each other's members (docs/domain.md §13.4): off until the direction
 * allows it.
 */
export async function assertInterBranchService(db: Knex | Knex.Transaction, enterpriseId: string): Promise<void> {
  const configuration = await db('enterprise_configurations')
    .where({ enterprise_id: enterpriseId })
    .first('inter_branch_service');
  if (configuration?.inter_branch_service !== true) {
    throw new AppError(
      'conflict',
      'inter_branch_service_off',
      'The enterprise does not allow serving members of another branch: the direction turns inter_branch_service on.',
    );
  }
}

/**
 * The counter's branch: a branch of the account's enterprise, and not the account's own (that is a local operation).
 */
async function assertCounterBranch(
  trx: Knex.Transaction,
  account: LockedAccount,
  counterBranchId: string,
): Promise<void> {
  const branch = await trx('branches').where({ id: counterBranchId, enterprise_id: account.enterprise_id }).first('id');
  const refusal = (code: 'inter_branch_branch_invalid' | 'inter_branch_same_branch', message: string) =>
    new AppError('unprocessable', code, message, [{ field: 'branch', message }]);
  if (branch === undefined)
    throw refusal('inter_branch_branch_invalid', "branch is not a branch of the account's enterprise.");
  if (counterBranchId === account.branch_id)
    throw refusal('inter_branch_same_branch', 'The account is of this branch: use its own deposits or withdrawals.');
}

/**
 * A withdrawal's rules, as coopbank_move_cash applies them at the account's own counter; a deposit needs the account
 * open.
 */
async function assertMovable(
  trx: Knex.Transaction,
  account: LockedAccount,
  direction: InterBranchDirection,
  amount: Money,
): Promise<void> {
  if (account.status !== 'open')
    throw new AppError(
      'conflict',
      `account_${account.status}`,
      `The account is ${account.status}: no ${direction} is possible.`,
    );
  if (direction === 'deposit') return;
  if (!account.withdrawals_allowed)
    throw new AppError(
      'conflict',
      'withdrawals_not_allowed',
      `The product of account ${account.number} does not allow withdrawals.`,
    );
  const balance = new Money(account.balance);
  assertAboveMinimum(
    balance,
    balance.minus(amount),
    new Money(account.minimum_balance),
    await heldAmount(trx, account.id),
  );
}

/** The operation the maker already made with this key: a retry answers it, another request under the key is refused. */
async function operationOfKey(
  trx: Knex.Transaction,
  maker: Actor,
  enterpriseId: string,
  input: InterBranchInput,
): Promise<string | undefined> {
  if (input.idempotencyKey === null) return undefined;
  const made = await trx('inter_branch_operations')
    .where({ enterprise_id: enterpriseId, recorded_by: maker.userId, idempotency_key: input.idempotencyKey })
    .first('id', 'direction', 'account_id', 'counter_branch_id', 'amount', 'reference');
  if (made === undefined) return undefined;
  const same =
    made.direction === input.direction &&
    made.account_id === input.accountId &&
    made.counter_branch_id === input.counterBranchId &&
    made.amount === input.amount &&
    made.reference === input.reference;
  if (!same) throw keyReusedError();
  return made.id as string;
}

const kinds: Record<InterBranchDirection, { account: EventKind; cash: EventKind }> = {
  deposit: { account: 'inter_branch_deposit', cash: 'inter_branch_deposit_cash' },
  withdrawal: { account: 'inter_branch_withdrawal', cash: 'inter_branch_withdrawal_cash' },
};

/**
 * The two events: the cash in the counter's branch, as the maker's (so their till, and their open session, in a
 * branch under till control), and the member's money in the account's branch; both meet on 45200.
 */
async function recordSides(
  trx: Knex.Transaction,
  now: Date,
  maker: Actor,
  account: LockedAccount,
  operation: { id: string; input: InterBranchInput; amount: Money },
) {
  const { id, input, amount } = operation;
  const clearing = clearingRoleAccounts(account.branch_id, input.counterBranchId);
  const payload = {
    operation: id,
    account: account.id,
    account_number: account.number,
    counter_branch: input.counterBranchId,
    reference: input.reference,
  };
  const description =
    `${input.direction === 'deposit' ? 'Versement' : 'Retrait'} déplacé ` +
    `${account.number}${input.reference === '' ? '' : ` (${input.reference})`}`;
  const side = (kind: EventKind, branchId: string, productAccounts: Record<string, string>) =>
    recordBusinessEvent(trx, now, {
      enterpriseId: account.enterprise_id,
      branchId,
      kind,
      amount,
      subjectId: account.id,
      actorId: maker.userId,
      payload,
      productAccounts,
      idempotencyKey: `inter_branch:${id}:${kind}`,
      description,
    });
  // The cash side first: without the maker's open till session nothing else is written.
  const cash = await side(kinds[input.direction].cash, input.counterBranchId, clearing);
  const member = await side(kinds[input.direction].account, account.branch_id, {
    member_deposits: account.deposit_account_code,
    ...clearing,
  });
  return { cash, member };
}

/**
 * A member of one branch served at another branch's counter (docs/domain.md §13.4): the cash moves in the counter's
 * branch, the account in its own, each branch's books balanced through 45200 (recordLiaison). The account's rules
 * are a local deposit's or withdrawal's; the executor of `member_account.inter_branch_withdrawal`. A retry with the
 * maker's key answers the first operation (`replayed`).
 */
export async function recordInterBranchOperation(
  context: DataContext,
  maker: Actor,
  input: InterBranchInput,
): Promise<{ id: string; replayed: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const account = await lockAccount(trx, input.accountId);
    if (account === undefined) throw new NotFoundError('The account');
    const made = await operationOfKey(trx, maker, account.enterprise_id, input);
    if (made !== undefined) return { id: made, replayed: true };
    await assertInterBranchService(trx, account.enterprise_id);
    await assertCounterBranch(trx, account, input.counterBranchId);
    const amount = new Money(input.amount);
    await assertMovable(trx, account, input.direction, amount);
    const id = randomUUID();
    const { cash, member } = await recordSides(trx, context.clock(), maker, account, { id, input, amount });
    const balanceAfter = new Money(account.balance)[input.direction === 'deposit' ? 'plus' : 'minus'](amount);
    await trx('comptes_clients')
      .where({ id: account.id })
      .update({ balance: formatAmount(balanceAfter) });
    await trx('inter_branch_operations').insert({
      id,
      enterprise_id: account.enterprise_id,
      direction: input.direction,
      account_id: account.id,
      account_branch_id: account.branch_id,
      counter_branch_id: input.counterBranchId,
      amount: input.amount,
      reference: input.reference,
      business_date: member.businessDate,
      account_event_id: member.eventId,
      cash_event_id: cash.eventId,
      recorded_by: maker.userId,
      idempotency_key: input.idempotencyKey,
    });
    const accountSide = { branchId: account.branch_id, entryId: member.entryId };
    const counterSide = { branchId: input.counterBranchId, entryId: cash.entryId };
    await recordLiaison(trx, {
      enterpriseId: account.enterprise_id,
      businessDate: member.businessDate,
      amount,
      source: { type: 'inter_branch_operation', id },
      // The side that credits 45200 gives: the counter's for a deposit (it holds the cash), the account's for a
      // withdrawal.
      ...(input.direction === 'deposit'
        ? { from: counterSide, to: accountSide }
        : { from: accountSide, to: counterSide }),
    });
    await recordAudit(trx, maker, {
      action: `inter_branch.${input.direction}`,
      entityType: 'inter_branch_operation',
      entityId: id,
      enterpriseId: account.enterprise_id,
      details: { account: account.number, counter_branch: input.counterBranchId, amount: input.amount },
    });
    return { id, replayed: false };
  });
}
