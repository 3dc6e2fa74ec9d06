import { upsertSearchAttributes } from '@temporalio/workflow';
import { branchIdKey, businessIdKey, enterpriseIdKey } from './search-attributes';

/** Tags the running workflow with what operators filter on in the Temporal UI: enterprise, branch, business id. */
export function tagWorkflow(tags: { enterpriseId: string; branchId: string; businessId: string }): void {
  upsertSearchAttributes([
    { key: enterpriseIdKey, value: tags.enterpriseId },
    { key: branchIdKey, value: tags.branchId },
    { key: businessIdKey, value: tags.businessId },
  ]);
}
