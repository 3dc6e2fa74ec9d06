import { AppError } from '../errors';
import { Money, formatAmount } from '../money';

/**
 * A member's account never goes below its product's minimum balance plus what pledged deposits hold on it
 * (docs/domain.md §4): the one overdraft rule of every debit a member asks for. A cash withdrawal is one database
 * call, which applies this same rule with this same message (coopbank_move_cash).
 */
export function assertAboveMinimum(
  balance: Money,
  balanceAfter: Money,
  minimumBalance: Money,
  held: Money = new Money(0),
): void {
  if (balanceAfter.lt(minimumBalance.plus(held))) {
    const available = formatAmount(availableBalance(balance, minimumBalance, held));
    const message =
      `The available balance is ${available} ` +
      `XAF.${held.isZero() ? '' : ` ${formatAmount(held)} XAF are held as pledged deposits.`}`;
    throw new AppError('conflict', 'insufficient_funds', message, [{ field: 'amount', message }]);
  }
}

/**
 * What a member may still take from an account: the balance less the product's minimum and the held amounts, never
 * below zero.
 */
export function availableBalance(balance: Money, minimumBalance: Money, held: Money): Money {
  return Money.max(balance.minus(minimumBalance).minus(held), 0);
}
