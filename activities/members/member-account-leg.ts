import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { Money, formatAmount } from '../../domain/money';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { assertAboveMinimum } from '../../domain/members/overdraft';
import { heldAmount } from './account-holds';

/**
 * A member's account used instead of the till (a loan paid into or repaid from it, shares paid or refunded
 * through it): locked, open, the member's own. Its deposit account replaces the till (`cash` role) in the
 * entries, so the same rules post both channels.
 */
export interface MemberAccountLeg {
  account: CompteClient;
  depositAccountCode: string;
  minimumBalance: Money;
}

export async function memberAccountLeg(
  trx: Knex.Transaction,
  accountId: string,
  clientId: string,
): Promise<MemberAccountLeg> {
  const account = await CompteClient.query(trx).findById(accountId).forUpdate();
  if (account === undefined || account.clientId !== clientId) {
    throw new AppError('validation', 'invalid_request', 'The account is not an account of the member.', [
      { field: 'account', message: 'account must be an account of the member' },
    ]);
  }
  if (account.status !== 'open')
    throw new AppError('conflict', `account_${account.status}`, `The account is ${account.status}.`);
  const product = await SavingsProduct.query(trx).findById(account.productId).throwIfNotFound();
  return { account, depositAccountCode: product.depositAccountCode, minimumBalance: new Money(product.minimumBalance) };
}

/**
 * Moves the account's kept balance by `delta` (the entries are posted by the caller); refuses an overdraft, pledged
 * deposits' holds counted (read under the account's lock, taken by memberAccountLeg).
 */
export async function moveAccountBalance(trx: Knex.Transaction, leg: MemberAccountLeg, delta: Money): Promise<Money> {
  const balance = new Money(leg.account.balance);
  const after = balance.plus(delta);
  if (delta.isNegative()) assertAboveMinimum(balance, after, leg.minimumBalance, await heldAmount(trx, leg.account.id));
  await CompteClient.query(trx)
    .patch({ balance: formatAmount(after) })
    .where('id', leg.account.id);
  return after;
}
