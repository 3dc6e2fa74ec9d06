import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes operators filter on in the Temporal UI (docs/architecture.md §5): the enterprise, the branch and the
 * business id (an application number…). Registered with the server at start (dev server flags, compose setup).
 */
export const enterpriseIdKey = defineSearchAttributeKey('CoopEnterpriseId', SearchAttributeType.KEYWORD);
export const branchIdKey = defineSearchAttributeKey('CoopBranchId', SearchAttributeType.KEYWORD);
export const businessIdKey = defineSearchAttributeKey('CoopBusinessId', SearchAttributeType.KEYWORD);

export const searchAttributeKeys = [enterpriseIdKey, branchIdKey, businessIdKey];
