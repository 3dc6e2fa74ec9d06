import type { Knex } from 'knex';
import { CompteClient } from '../../../db/models/compte-client.model';
import { heldAmounts } from '../../../activities/members/account-holds';
import { availableBalance } from '../../../domain/members/overdraft';
import { formatAmount, Money } from '../../../domain/money';

/**
 * Accounts as the API answers them, each with what pledged deposits hold on it and what a member may still take
 * (the balance less the product's minimum and the holds, as every debit checks it).
 */
export async function serializeAccounts(knex: Knex, accounts: readonly CompteClient[]) {
  const held = await heldAmounts(
    knex,
    accounts.map((account) => account.id),
  );
  const productIds = [...new Set(accounts.map((account) => account.productId))];
  const products: { id: string; minimum_balance: string }[] =
    productIds.length === 0
      ? []
      : await knex('savings_products').whereIn('id', productIds).select('id', 'minimum_balance');
  const minimums = new Map(products.map((product) => [product.id, new Money(product.minimum_balance)]));
  return accounts.map((account) =>
    serializeAccount(account, held.get(account.id) ?? new Money(0), minimums.get(account.productId)!),
  );
}

export const serializeOneAccount = async (knex: Knex, account: CompteClient) =>
  (await serializeAccounts(knex, [account]))[0]!;

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
    contract_rate: typeof account.contractRate === 'string' ? new Money(account.contractRate).toString() : null,
    created_at: account.createdAt.toISOString(),
  };
}
