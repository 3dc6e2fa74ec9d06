import {
  paymentById,
  subscriptionById,
  type PaymentRow,
  type SubscriptionRow,
} from '../../../activities/shares/share-subscriptions.queries';
import { shareTypeById } from '../../../activities/shares/share-types.queries';
import { withdrawalById } from '../../../activities/shares/share-withdrawals.queries';
import type { ShareType } from '../../../db/models/share-type.model';
import type { ShareWithdrawal } from '../../../db/models/share-withdrawal.model';
import type { Loader } from '../../route';

/** The resources of the shares module a route loads by id (the router checks access: api/router.ts). */
export const shareLoaders = {
  type: {
    name: 'The share type',
    load: async ({ knex }, id) => shareTypeById(knex, id),
    scope: (type) => ({ enterpriseId: type.enterpriseId }),
  } satisfies Loader<ShareType>,
  subscription: {
    name: 'The subscription',
    load: async ({ knex, clock }, id) => subscriptionById(knex, clock(), id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<SubscriptionRow>,
  payment: {
    name: 'The payment',
    load: async ({ knex }, id) => paymentById(knex, id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<PaymentRow>,
  withdrawal: {
    name: 'The withdrawal',
    load: async ({ knex }, id) => withdrawalById(knex, id),
    scope: (withdrawal) => ({ enterpriseId: withdrawal.enterpriseId, branchId: withdrawal.branchId }),
  } satisfies Loader<ShareWithdrawal>,
};
