import type { Knex } from 'knex';
import { CompteClient } from '../../db/models/compte-client.model';
import { Money } from '../../domain/money';
import { runningMovements } from '../accounts/ledger.queries';
import { heldAmounts } from './account-holds';
import { accountMovements } from './account-ledger';

/** The reads of members' accounts: the accounts with their holds, an account's statement, the reconciliation. */

/** An account with what pledged deposits hold on it and its product's minimum balance. */
export interface AccountWithHolds {
  account: CompteClient;
  held: Money;
  minimumBalance: Money;
}

export const memberAccountsQuery = (knex: Knex) => CompteClient.query(knex);

export const memberAccountById = async (knex: Knex, id: string) => CompteClient.query(knex).findById(id);

/** The accounts each with its holds and its product's minimum balance, in two queries. */
export async function withHolds(knex: Knex, accounts: readonly CompteClient[]): Promise<AccountWithHolds[]> {
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
  return accounts.map((account) => ({
    account,
    held: held.get(account.id) ?? new Money(0),
    minimumBalance: minimums.get(account.productId)!,
  }));
}

/** One account with its holds. */
export const accountWithHolds = async (knex: Knex, account: CompteClient) => (await withHolds(knex, [account]))[0]!;

/** An account's statement: its movements over the range with the running balance, ready for paginateRows. */
export const accountStatementQuery = (knex: Knex, accountId: string, range: { date_from?: string; date_to?: string }) =>
  runningMovements(
    knex,
    accountMovements(knex).where('m.account', accountId),
    'm.amount',
    ['m.kind', 'm.event', 'm.journal_entry', 'm.description'],
    range,
    { keys: { date: 'm.entry_date', createdAt: 'm.created_at', line: 'm.line' } },
  );

/** The enterprise's accounts whose balance differs from the sum of their movements, by number. */
export function reconciliationGapsQuery(knex: Knex, enterpriseId: string): Knex.QueryBuilder {
  const ledger = accountMovements(knex)
    .where('m.enterprise_id', enterpriseId)
    .groupBy('m.account')
    .select('m.account as id', knex.raw('sum(m.amount) AS total'));
  return knex('comptes_clients as a')
    .leftJoin(ledger.as('g'), 'g.id', 'a.id')
    .where('a.enterprise_id', enterpriseId)
    .whereRaw('a.balance <> coalesce(g.total, 0)')
    .select('a.id', 'a.number', 'a.balance', knex.raw('coalesce(g.total, 0)::text AS ledger_balance'))
    .orderBy('a.number');
}
