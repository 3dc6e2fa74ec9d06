import { asyncLocalStorage } from '@temporalio/activity';
import type { RequestOrigin } from './context';

/**
 * Where work that no request carried an address for comes from, for the audit trail (docs/architecture.md §7): the
 * workflow whose activity is running, read from Temporal's own activity context. Its id names the run, and a
 * Schedule's runs are named by the Schedule (`month-end-{enterprise}-…`, `standing-order-{id}-…`); the address says
 * the work was the system's, not a client's. Undefined outside an activity (the API, a test calling an activity).
 */
function workflowOrigin(): { requestId: string; address: string } | undefined {
  const info = asyncLocalStorage.getStore()?.info;
  if (info?.workflowExecution === undefined) return undefined;
  return {
    requestId: info.workflowExecution.workflowId.slice(0, 200),
    address: `workflow:${info.workflowType ?? 'unknown'}`.slice(0, 64),
  };
}

/** The origin an audit row records: the requester's as given, else (scheduled or system work) the workflow's. */
export function auditOrigin(actor: RequestOrigin | null): { request_id: string | null; address: string | null } {
  const system = actor?.address === undefined ? workflowOrigin() : undefined;
  return {
    request_id: actor?.requestId ?? system?.requestId ?? null,
    address: actor?.address ?? system?.address ?? null,
  };
}
