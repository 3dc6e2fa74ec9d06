import { accountOf, type RoleAccounts, type RuleLeg } from '../events/rules';
import { formatAmount, Money } from '../money';
import type { ShareTypeTerms } from '../shares/share-type';
import { parseImportAmount, type CellProblem } from './cells';

/**
 * The rules of a shares row beyond its cells' formats, and what an imported subscription leaves in the books
 * (docs/domain.md §15, Share capital and branches). Pure. A subscription brought in is history: the rules of a
 * subscription made today (the first payment's minimum) do not apply; what a holding must respect at any time does.
 */

type Row = Readonly<Record<string, string>>;

/** The amount of a cell that reads as one, else null (its format problem is already reported). */
export function amountOf(row: Row, column: string): Money | null {
  const parsed = parseImportAmount(row[column] ?? '', true);
  return 'amount' in parsed ? new Money(parsed.amount) : null;
}

/** At least one share; paid never above shares × the type's nominal value; unpaid only when the type allows it. */
export function shareProblems(row: Row, terms: ShareTypeTerms | undefined): CellProblem[] {
  const shares = /^\d{1,9}$/.test(row.shares ?? '') ? Number(row.shares) : null;
  if (shares === 0) return [{ column: 'shares', value: row.shares!, problem: 'at least one share' }];
  const paid = amountOf(row, 'amount_paid');
  if (terms === undefined || shares === null || paid === null) return [];
  const amount = terms.nominalValue.times(shares);
  if (paid.gt(amount)) {
    return [
      {
        column: 'amount_paid',
        value: row.amount_paid!,
        problem:
          `above the ${shares} shares' value, ${formatAmount(amount)} XAF ` +
          `(${formatAmount(terms.nominalValue)} XAF each)`,
      },
    ];
  }
  if (paid.lt(amount) && !terms.partialPaymentAllowed) {
    return [
      {
        column: 'amount_paid',
        value: row.amount_paid!,
        problem:
          `share type ${terms.code} is paid in full at subscription: ` +
          `${formatAmount(amount.minus(paid))} XAF left unpaid`,
      },
    ];
  }
  return [];
}

/** A rule as the enterprise has it now: its legs, and whether it posts at all. */
export interface PostingRule {
  legs: readonly RuleLeg[];
  active: boolean;
}

/**
 * What subscriptions of `subscribed` francs, `paid` of them paid, leave on each account when posted as Coopbank
 * posts them (the enterprise's rules of a subscription and of a payment), debit positive. The payment's cash side
 * is left out: the money came into the old system's till or accounts, which the trial balance carries on its own.
 */
export function subscriptionBalances(
  rules: { subscription: PostingRule; payment: PostingRule },
  subscribed: Money,
  paid: Money,
  defaults: RoleAccounts,
): Map<string, Money> {
  const balances = new Map<string, Money>();
  const move = (code: string, amount: Money) => balances.set(code, (balances.get(code) ?? new Money(0)).plus(amount));
  const post = (rule: PostingRule, amount: Money) => {
    if (!rule.active) return;
    for (const leg of rule.legs) {
      if (!('role' in leg.debit && leg.debit.role === 'cash')) move(accountOf(leg.debit, defaults), amount);
      if (!('role' in leg.credit && leg.credit.role === 'cash'))
        move(accountOf(leg.credit, defaults), amount.negated());
    }
  };
  post(rules.subscription, subscribed);
  post(rules.payment, paid);
  return balances;
}
