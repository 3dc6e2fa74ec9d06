import type { Knex } from 'knex';
import { clearingAccount, liaisonMovements, type LiaisonMovement } from '../../domain/cash/liaison';
import type { RoleAccounts } from '../../domain/events/rules';
import { formatAmount, Money } from '../../domain/money';

/**
 * The liaison between branches as an operation records it (domain/cash/liaison.ts, docs/domain.md §13.5). An
 * operation with a side in each of two branches records one event per side, each in its own branch, whose rule
 * meets the other side on the role `internal_transfers`: `clearingRoleAccounts` makes that role 45200 between two
 * branches (459 within one), and `recordLiaison`, once both entries are posted, notes each branch's movement of
 * 45200 towards the other for the liaison report. Both in the operation's transaction.
 */
export const clearingRoleAccounts = (fromBranchId: string, toBranchId: string): Partial<RoleAccounts> => ({
  internal_transfers: clearingAccount(fromBranchId, toBranchId),
});

export interface LiaisonSide {
  branchId: string;
  /** The side's entry; null when its rule is inactive (nothing posted, nothing to note). */
  entryId: string | null;
}

export interface LiaisonOperation {
  enterpriseId: string;
  businessDate: string;
  amount: Money;
  /** The side that gives the money (credits 45200) and the side that receives it (debits 45200). */
  from: LiaisonSide;
  to: LiaisonSide;
  source: { type: string; id: string };
}

export async function recordLiaison(trx: Knex.Transaction, operation: LiaisonOperation): Promise<void> {
  const movements = liaisonMovements(operation.from.branchId, operation.to.branchId, operation.amount);
  if (movements === null) return;
  const rows = (
    [
      [movements.from, operation.from.entryId],
      [movements.to, operation.to.entryId],
    ] as const
  )
    .filter(([, entryId]) => entryId !== null)
    .map(([movement, entryId]) => ({
      enterprise_id: operation.enterpriseId,
      business_date: operation.businessDate,
      branch_id: movement.branchId,
      counterpart_branch_id: movement.counterpartBranchId,
      amount: formatAmount(movement.amount),
      entry_id: entryId,
      source_type: operation.source.type,
      source_id: operation.source.id,
    }));
  if (rows.length > 0) await trx('liaison_movements').insert(rows);
}

/**
 * Each branch's 45200 balance towards each other branch at the end of `date`, of the branches given ('all': every one).
 */
export async function liaisonBalancesAt(
  knex: Knex,
  enterpriseId: string,
  date: string,
  branches: 'all' | readonly string[],
): Promise<LiaisonMovement[]> {
  const rows = knex('liaison_movements')
    .where({ enterprise_id: enterpriseId })
    .where('business_date', '<=', date)
    .groupBy('branch_id', 'counterpart_branch_id')
    .select('branch_id', 'counterpart_branch_id', knex.raw('sum(amount) AS balance'));
  if (branches !== 'all') rows.whereIn('branch_id', branches);
  return ((await rows) as { branch_id: string; counterpart_branch_id: string; balance: string }[]).map((row) => ({
    branchId: row.branch_id,
    counterpartBranchId: row.counterpart_branch_id,
    amount: new Money(row.balance),
  }));
}
