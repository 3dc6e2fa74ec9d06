import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import {
  branchIdKey,
  businessIdKey,
  coopBusinessId,
  enterpriseCodeKey,
  enterpriseIdKey,
  startTags,
} from './identities';

/**
 * Tags the running workflow with what operators filter on in the Temporal UI (docs/architecture.md §5). Every start
 * now carries the tags (workflows/identities.ts, CoopEnterpriseCode among them): nothing to do, but the business id
 * when only the workflow knows it (a scheduled provisioning run's). A workflow started before, without the code,
 * upserts the tags it always did, the same command its history recorded. The choice reads the start's attributes,
 * which a replay reads the same: no patch marker needed.
 */
export function tagWorkflow(tags: { enterpriseId: string; branchId?: string; businessId: string }): void {
  const started = workflowInfo().typedSearchAttributes;
  const code = started.get(enterpriseCodeKey);
  if (code === undefined) {
    upsertSearchAttributes([
      { key: enterpriseIdKey, value: tags.enterpriseId },
      ...(tags.branchId === undefined ? [] : [{ key: branchIdKey, value: tags.branchId }]),
      { key: businessIdKey, value: tags.businessId },
    ]);
  } else if (started.get(businessIdKey) === undefined) {
    upsertSearchAttributes([{ key: businessIdKey, value: coopBusinessId(code, tags.businessId) }]);
  }
}

/**
 * The tags of a workflow this one starts (a month end's own month, its reporting pack): a child inherits none. None
 * when this workflow was started untagged (before the code): its recorded start of the child carried none.
 */
export function childTags(tags: { enterpriseId: string; businessId: string }): {
  typedSearchAttributes?: SearchAttributePair[];
} {
  const code = workflowInfo().typedSearchAttributes.get(enterpriseCodeKey);
  return code === undefined
    ? {}
    : {
        typedSearchAttributes: startTags({
          enterpriseId: tags.enterpriseId,
          enterpriseCode: code,
          businessId: tags.businessId,
        }),
      };
}
