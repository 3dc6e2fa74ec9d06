import { Money } from '../money';

/**
 * Liaison between branches (docs/domain.md §13.4, §13.5): an operation whose two sides are in different branches
 * posts a balanced part in each branch's books, the gap closed by 45200 "Opérations de liaison entre agences"
 * (PCEMF). The giving branch credits 45200 (it owes the other), the receiving one debits it (it is owed), so 45200
 * nets to zero consolidated. Two sides of one branch meet on 459 "Mouvements de fonds et autres virements internes",
 * as a term deposit's payout does, and 45200 is left alone. Pure.
 */
const liaisonAccount = '45200';

/** The account the two sides' entries meet on: 45200 between two branches, 459 within one. */
export const clearingAccount = (fromBranchId: string, toBranchId: string): string =>
  fromBranchId === toBranchId ? '459' : liaisonAccount;

/** One branch's movement of 45200 towards another: debit positive (the other branch owes it), credit negative. */
export interface LiaisonMovement {
  branchId: string;
  counterpartBranchId: string;
  amount: Money;
}

/**
 * The liaison movements of an operation moving `amount` from a side in `fromBranchId` to a side in `toBranchId`:
 * none within one branch; otherwise the giving branch's credit and the receiving branch's debit.
 */
export function liaisonMovements(
  fromBranchId: string,
  toBranchId: string,
  amount: Money,
): { from: LiaisonMovement; to: LiaisonMovement } | null {
  if (fromBranchId === toBranchId) return null;
  return {
    from: { branchId: fromBranchId, counterpartBranchId: toBranchId, amount: amount.negated() },
    to: { branchId: toBranchId, counterpartBranchId: fromBranchId, amount },
  };
}

/**
 * The open liaison of two branches: each one's 45200 balance towards the other, and their sum (zero when they agree).
 */
export interface LiaisonPair {
  branchA: string;
  branchB: string;
  /** A's 45200 towards B: positive, B owes A. */
  balanceA: Money;
  balanceB: Money;
  difference: Money;
}

/**
 * Per pair of branches (in the order of their ids, each pair once), the balances of 45200 each holds towards the
 * other, from the balances per branch and counterpart. The consolidated total is the sum of every balance.
 */
export function liaisonPairs(balances: readonly LiaisonMovement[]): { pairs: LiaisonPair[]; total: Money } {
  const pairs = new Map<string, LiaisonPair>();
  let total = new Money(0);
  for (const { branchId, counterpartBranchId, amount } of balances) {
    const [branchA, branchB] =
      branchId < counterpartBranchId ? [branchId, counterpartBranchId] : [counterpartBranchId, branchId];
    const key = `${branchA}/${branchB}`;
    const pair = pairs.get(key) ?? {
      branchA,
      branchB,
      balanceA: new Money(0),
      balanceB: new Money(0),
      difference: new Money(0),
    };
    if (branchId === branchA) pair.balanceA = pair.balanceA.plus(amount);
    else pair.balanceB = pair.balanceB.plus(amount);
    pair.difference = pair.balanceA.plus(pair.balanceB);
    pairs.set(key, pair);
    total = total.plus(amount);
  }
  return {
    pairs: [...pairs.values()].sort((x, y) => (x.branchA + x.branchB).localeCompare(y.branchA + y.branchB)),
    total,
  };
}
