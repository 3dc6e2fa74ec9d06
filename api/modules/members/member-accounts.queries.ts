import type { Knex } from 'knex';
import { NotFoundError } from '../../../domain/errors';
import { CompteClient } from '../../../db/models/compte-client.model';
import { heldAmounts } from '../../../activities/members/account-holds';
import { availableBalance } from '../../../domain/members/overdraft';
import { formatAmount, Money } from '../../../domain/money';
import { requireRole, requireVisible } from '../../auth/access';
import { tellers } from '../money.schemas';
import type { Scope } from '../../../domain/access';
import type { Principal } from '../../auth/principal';
import type { RouteDeps } from '../../deps';

/** An account the principal may see (its branch); 404 otherwise, whether it exists or not. */
export async function visibleAccount(knex: Knex, principal: Principal, id: string): Promise<CompteClient> {
  const account = await CompteClient.query(knex).findById(id);
  if (account === undefined) throw new NotFoundError('The account');
  requireVisible(principal, { enterpriseId: account.enterpriseId, branchId: account.branchId }, 'The account');
  return account;
}

/**
 * Where an account the principal may see lies (404 otherwise, whether it exists or not): what a handler needs to
 * authorize a movement, without loading the account, whose row the movement itself locks and reads. An account
 * never changes enterprise or branch (the database refuses it: comptes_clients_scope_fixed), so the process reads
 * it once (a statement prepared once per connection) and remembers it; the movement itself still answers 404 for
 * an account that is gone.
 */
export async function visibleAccountScope(deps: Pick<RouteDeps, 'knex' | 'accountScopes'>, principal: Principal, id: string): Promise<Scope> {
  let scope = deps.accountScopes.get(id);
  if (scope === undefined) {
    const { rows } = (await deps.knex.raw(accountScopeSql, [id]).options({ name: 'api_account_scope' })) as { rows: Scope[] };
    scope = rows[0];
    if (scope === undefined) throw new NotFoundError('The account');
    deps.accountScopes.remember(id, scope);
  }
  requireVisible(principal, scope, 'The account');
  return scope;
}

const accountScopeSql = 'SELECT enterprise_id AS "enterpriseId", branch_id AS "branchId" FROM comptes_clients WHERE id = ?';

/**
 * A member's account money moves through at the counter (a loan paid into it, a repayment or a share payment
 * taken from it): visible, and of a branch where the teller holds a teller role.
 */
export async function tellerAccount(knex: Knex, principal: Principal, id: string): Promise<CompteClient> {
  const account = await visibleAccount(knex, principal, id);
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
