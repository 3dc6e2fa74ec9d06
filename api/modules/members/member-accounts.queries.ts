import type { Knex } from 'knex';
import { NotFoundError } from '../../../domain/errors';
import { CompteClient } from '../../../db/models/compte-client.model';
import { heldAmounts } from '../../../activities/members/account-holds';
import { availableBalance } from '../../../domain/members/overdraft';
import { formatAmount, Money } from '../../../domain/money';
import { requireRole } from '../../auth/access';
import { tellers } from '../money.schemas';
import type { Principal } from '../../auth/principal';

/**
 * A member's account money moves through at the counter (a loan paid into it, a repayment or a share payment
 * taken from it): visible, and of a branch where the teller holds a teller role.
 */
export async function tellerAccount(knex: Knex, principal: Principal, id: string): Promise<CompteClient> {
  const account = await CompteClient.query(knex).findById(id);
  if (account === undefined) throw new NotFoundError('The account');
  // The tellers' roles, whatever the route's own: 404 where the principal cannot see it, 403 where not a teller.
  requireRole(principal, tellers, { enterpriseId: account.enterpriseId, branchId: account.branchId }, 'The account');
  return account;
}

/**
 * Accounts as the API answers them, each with what pledged deposits hold on it and what a member may still take
 * (the balance less the product's minimum and the holds, as every debit checks it).
 */
export async function serializeAccounts(knex: Knex, accounts: readonly CompteClient[]) {
  const held = await heldAmounts(knex, accounts.map((account) => account.id));
  const productIds = [...new Set(accounts.map((account) => account.productId))];
  const products: { id: string; minimum_balance: string }[] = productIds.length === 0 ? [] : await knex('savings_products').whereIn('id', productIds).select('id', 'minimum_balance');
  const minimums = new Map(products.map((product) => [product.id, new Money(product.minimum_balance)]));
  return accounts.map((account) => serializeAccount(account, held.get(account.id) ?? new Money(0), minimums.get(account.productId)!));
}

export const serializeOneAccount = async (knex: Knex, account: CompteClient) => (await serializeAccounts(knex, [account]))[0]!;

function serializeAccount(account: CompteClient, held: Money, minimumBalance: Money) {
  return {
    id: account.id,
    enterprise: account.enterpriseId,
    branch: account.branchId,
    client: account.clientId,
    product: account.productId,
    number: account.number,
    status: account.status,
    balance: account.balance,
    held_amount: formatAmount(held),
    available_balance: formatAmount(availableBalance(new Money(account.balance), minimumBalance, held)),
    opened_on: account.openedOn,
    closed_on: account.closedOn,
    maturity_date: account.maturityDate,
    payout_account: account.payoutAccountId,
    created_at: account.createdAt.toISOString(),
  };
}
