import { AppError } from '../errors';
import { Money, formatAmount } from '../money';

/**
 * A member's account never goes below its product's minimum balance: the one overdraft rule of every debit. A cash
 * withdrawal is one database call, which applies this same rule with this same message (coopbank_move_cash).
 */
export function assertAboveMinimum(balance: Money, balanceAfter: Money, minimumBalance: Money): void {
  if (balanceAfter.lt(minimumBalance)) {
    throw new AppError('conflict', 'insufficient_funds', `The available balance is ${formatAmount(Money.max(balance.minus(minimumBalance), 0))} XAF.`);
  }
}
