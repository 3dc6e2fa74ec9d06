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
