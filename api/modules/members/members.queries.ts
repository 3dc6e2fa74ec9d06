import type { CashDirection } from '../../../activities/members/cash-operations.activity';
import { cashOperationAt, type CashOperationAt } from '../../../activities/members/cash-operations.queries';
import { clientProfileById } from '../../../activities/members/client-profiles.queries';
import { memberAccountById } from '../../../activities/members/member-accounts.queries';
import { savingsProductById } from '../../../activities/members/savings-products.queries';
import type { ClientProfile } from '../../../db/models/client-profile.model';
import type { CompteClient } from '../../../db/models/compte-client.model';
import type { SavingsProduct } from '../../../db/models/savings-product.model';
import type { Loader } from '../../route';
import { fixedScopeLoader } from '../enterprise-scope';
import { tellers } from '../money.schemas';

/** The resources of the members module a route loads by id (the router checks access: api/router.ts). */
export const memberLoaders = {
  /** A member: seen by any role in their home branch or enterprise-wide. */
  client: {
    name: 'The member',
    load: async ({ knex }, id) => clientProfileById(knex, id),
    scope: (client) => ({ enterpriseId: client.enterpriseId, branchId: client.branchId }),
  } satisfies Loader<ClientProfile>,
  account: {
    name: 'The account',
    load: async ({ knex }, id) => memberAccountById(knex, id),
    scope: (account) => ({ enterpriseId: account.enterpriseId, branchId: account.branchId }),
  } satisfies Loader<CompteClient>,
  /** Where an account lies, remembered (a deposit or a withdrawal locks and reads the row itself). */
  accountScope: fixedScopeLoader('The account', 'comptes_clients', 'accountScopes'),
  /**
   * A member's account money moves through at the counter (a loan paid into it, a repayment or a share payment
   * taken from it): of a branch where the caller holds a teller role, whatever the route's own roles.
   */
  tellerAccount: {
    name: 'The account',
    load: async ({ knex }, id) => memberAccountById(knex, id),
    scope: (account) => ({ enterpriseId: account.enterpriseId, branchId: account.branchId }),
    roles: tellers,
  } satisfies Loader<CompteClient>,
  product: {
    name: 'The savings product',
    load: async ({ knex }, id) => savingsProductById(knex, id),
    scope: (product) => ({ enterpriseId: product.enterpriseId }),
  } satisfies Loader<SavingsProduct>,
  /** A deposit or a withdrawal: the receipt. */
  cashOperation: (direction: CashDirection) =>
    ({
      name: `The ${direction}`,
      load: async ({ knex }, id) => cashOperationAt(knex, direction, id),
      scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
    }) satisfies Loader<CashOperationAt>,
};
