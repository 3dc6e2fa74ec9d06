import { requestById, type RequestRow } from '../../../activities/approvals/approval-requests.queries';
import type { Loader } from '../../route';

/** The resources of the approvals module a route loads by id (the router checks access: api/router.ts). */

export const approvalLoaders = {
  /**
   * Seen by whoever sees its enterprise (or branch); its detail narrows a request of no branch to the roles over the
   * whole enterprise. Who may decide it is the workflow's question.
   */
  request: {
    name: 'The approval request',
    load: async ({ knex }, id) => requestById(knex, id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
    // One of no branch is the enterprise's document (docs/domain.md §11), as the list shows it.
    wholeEnterprise: (row) => row.branch_id === null,
  } satisfies Loader<RequestRow>,
};
