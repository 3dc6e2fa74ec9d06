import { categoryById, fixedAssetById, type CategoryRow, type FixedAssetRow } from '../../../activities/accounting/fixed-assets.queries';
import type { Loader } from '../../route';
import { enterpriseRowLoader } from '../enterprise-scope';

/** The resources of the accounting module a route loads by id (the router checks access: api/router.ts). */
export const accountingLoaders = {
  fixedAssetCategory: enterpriseRowLoader<CategoryRow>('The fixed-asset category', categoryById),
  fixedAsset: {
    name: 'The fixed asset',
    load: async ({ knex }, id) => fixedAssetById(knex, id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<FixedAssetRow>,
};
