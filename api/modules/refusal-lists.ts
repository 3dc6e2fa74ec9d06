import type { ErrorCode } from '../../domain/error-catalogue';

/**
 * Refusals that many routes share, for their `refusals` lists (api/route.ts): named once, so that a route
 * documents what its path into the ledger can answer without repeating it.
 */

/**
 * An account named by the caller (a product's or an event rule's) must exist, be a leaf and be active, and not bring
 * class 9 into a balance-sheet entry.
 */
export const accountChoiceRefusals = [
  'account_inactive',
  'account_not_leaf',
  'account_unknown',
  'off_balance_mixed',
] as const satisfies readonly ErrorCode[];

/**
 * What any posting can meet: the chosen accounts, the enterprise's state, the year of its date, and (a posting of
 * cash in a branch under till control, issue 29) the operator's till session.
 */
export const postingRefusals = [
  ...accountChoiceRefusals,
  'enterprise_suspended',
  'exercice_closed',
  'no_exercice_for_date',
  'till_session_required',
] as const satisfies readonly ErrorCode[];
