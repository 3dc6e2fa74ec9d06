import { ClientProfile } from '../../../db/models/client-profile.model';
import { CompteClient } from '../../../db/models/compte-client.model';
import { SavingsProduct } from '../../../db/models/savings-product.model';
import type { Loader } from '../../route';
import { fixedScopeLoader } from '../enterprise-scope';

/** The resources of the members module a route loads by id (the router checks access: api/router.ts). */
export const memberLoaders = {
  /** A member: seen by any role in their home branch or enterprise-wide. */
  client: {
    name: 'The member',
    load: async ({ knex }, id) => ClientProfile.query(knex).findById(id),
    scope: (client) => ({ enterpriseId: client.enterpriseId, branchId: client.branchId }),
  } satisfies Loader<ClientProfile>,
  account: {
    name: 'The account',
    load: async ({ knex }, id) => CompteClient.query(knex).findById(id),
    scope: (account) => ({ enterpriseId: account.enterpriseId, branchId: account.branchId }),
  } satisfies Loader<CompteClient>,
  /** Where an account lies, remembered (a deposit or a withdrawal locks and reads the row itself). */
  accountScope: fixedScopeLoader('The account', 'comptes_clients', 'accountScopes'),
  product: {
    name: 'The savings product',
    load: async ({ knex }, id) => SavingsProduct.query(knex).findById(id),
    scope: (product) => ({ enterpriseId: product.enterpriseId }),
  } satisfies Loader<SavingsProduct>,
};
