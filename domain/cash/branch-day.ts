import type { ApprovalOperation } from '../approvals/policy';
import type { FieldError } from '../errors';

/**
 * What holds a branch's day open (docs/domain.md §13.3): each a named reason the close answers in its 409, so the
 * branch head knows what to finish. The close runs every check of `branchDayChecks`
 * (activities/cash/branch-days.activity.ts).
 */
export interface BranchDayBlocker {
  /** A stable name clients branch on: `approvals_pending`, `till_sessions_open`… */
  reason: string;
  message: string;
  /** The ids of what holds the day (requests, sessions…), for the branch head to open. */
  items: string[];
}

/** The blockers as the problem's errors: one per reason, its field `blockers.<reason>`. */
export const blockerErrors = (blockers: readonly BranchDayBlocker[]): FieldError[] =>
  blockers.map((blocker) => ({
    field: `blockers.${blocker.reason}`,
    message: blocker.items.length === 0 ? blocker.message : `${blocker.message} (${blocker.items.join(', ')})`,
  }));

/**
 * The four-eyes operations whose approval posts (policy): approved after the close, they would post in a day the
 * branch head has signed off, or move cash from a till already counted. Pending ones of the branch hold its day.
 */
export const postingOperations: readonly ApprovalOperation[] = [
  'member_account.withdrawal',
  'member_account.transfer',
  'manual_entry.post',
  'supplier_invoice.record',
  'supplier_payment',
  'fixed_asset.acquisition',
  'fixed_asset.disposal',
  'treasury.transfer',
  'loan.write_off',
  'supplier_invoice.reverse',
  'supplier_payment.reverse',
  'member_account.inter_branch_withdrawal',
];
