import type { Role } from '../access';

/**
 * Four eyes (maker-checker, docs/domain.md §11): the operations a second person may have to approve, and the
 * default policy of an enterprise. An enterprise departs from it per operation (`approval_policies`). Pure.
 *
 * Each operation says whether its approval posts to the books: approved after a branch's close, it would post in a
 * day the branch head has signed off, or move cash from a till already counted (docs/domain.md §13.3).
 */
const operations = {
  'business_date.move': { posts: false },
  'exercice.reopen': { posts: false },
  'loan.write_off': { posts: true },
  'accounting_rule.change': { posts: false },
  'share_type.notice_change': { posts: false },
  'approval_policy.change': { posts: false },
  'guarantee.change': { posts: false },
  'role_grant.above_cashier': { posts: false },
  'prudential_settings.change': { posts: false },
  'result_allocation_policy.change': { posts: false },
  'member_account.withdrawal': { posts: true },
  'member_account.transfer': { posts: true },
  // Issue 28, part 1 (manual journal entries): posting an accountant's entry.
  'manual_entry.post': { posts: true },
  // Issue 28, general accounting, 5. suppliers.
  'supplier_invoice.record': { posts: true },
  supplier_payment: { posts: true },
  // General accounting, part 4: fixed assets (issue 28).
  'fixed_asset.acquisition': { posts: true },
  'fixed_asset.disposal': { posts: true },
  // Issue 28, part 6 (banks): a transfer between the till and the banks.
  'treasury.transfer': { posts: true },
  // Issue 28's leftovers (issue 29 session): a supplier's invoice or payment reversed.
  'supplier_invoice.reverse': { posts: true },
  'supplier_payment.reverse': { posts: true },
  // Issue 29, transfers between members and standing orders: a standing order from the transfers' threshold.
  'standing_order.create': { posts: false },
  // Issue 29, serving members across branches: a withdrawal at another branch's counter, from the same threshold as a
  // local one.
  'member_account.inter_branch_withdrawal': { posts: true },
  // Issue 29, cash between the vault and the tills: the settlement of a cash difference (docs/domain.md §13.2).
  'cash_difference.settle': { posts: false },
  // Issue 30, credit insurance and the usury rate: setting the TEG ceiling loans are checked against.
  'usury_rate.change': { posts: false },
  // Issue 30, restructuring (R-2017/07 Art. 13): decided above the level that granted the loan (docs/domain.md §14.2).
  'loan.restructure': { posts: false },
  // Issue 31, go-live import, the pipeline (part A): applying an import, and cancelling it (docs/domain.md §15.1).
  'import.apply': { posts: false },
  'import.cancel': { posts: false },
} as const satisfies Record<string, { posts: boolean }>;
export type ApprovalOperation = keyof typeof operations;
export const approvalOperations = Object.keys(operations) as ApprovalOperation[];
/** The operations whose approval posts: pending ones of a branch hold its day (domain/cash/branch-day.ts). */
export const postingOperations = approvalOperations.filter((operation) => operations[operation].posts);

/** One operation's line of the policy: does it need a second person, holding which role, from which amount. */
export interface PolicyRule {
  operation: ApprovalOperation;
  fourEyes: boolean;
  /** The second person holds one of these at the request's enterprise (or branch). */
  approverRoles: readonly Role[];
  /** Whole francs as text: under it the operation runs at once (withdrawals, transfers). null: any amount. */
  threshold: string | null;
  /** Days a request waits for its decision before it expires (a workflow timer: tests shorten the day). */
  lifetimeDays: number;
}

const board: readonly Role[] = ['direction', 'admin'];

/** What an enterprise gets until it says otherwise: every operation an auditor expects under four eyes. */
const defaultApprovalPolicy: Readonly<Record<ApprovalOperation, Omit<PolicyRule, 'operation'>>> = {
  'business_date.move': { fourEyes: true, approverRoles: board, threshold: null, lifetimeDays: 7 },
  'exercice.reopen': { fourEyes: true, approverRoles: ['admin'], threshold: null, lifetimeDays: 7 },
  'loan.write_off': { fourEyes: true, approverRoles: board, threshold: null, lifetimeDays: 7 },
  'accounting_rule.change': { fourEyes: true, approverRoles: ['admin'], threshold: null, lifetimeDays: 7 },
  'share_type.notice_change': { fourEyes: true, approverRoles: board, threshold: null, lifetimeDays: 7 },
  'approval_policy.change': { fourEyes: true, approverRoles: ['admin'], threshold: null, lifetimeDays: 7 },
  'guarantee.change': {
    fourEyes: true,
    approverRoles: ['branch_head', 'credit_committee', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  'role_grant.above_cashier': { fourEyes: true, approverRoles: ['admin'], threshold: null, lifetimeDays: 7 },
  'prudential_settings.change': { fourEyes: true, approverRoles: board, threshold: null, lifetimeDays: 7 },
  'result_allocation_policy.change': { fourEyes: true, approverRoles: board, threshold: null, lifetimeDays: 7 },
  'member_account.withdrawal': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction'],
    threshold: '5000000',
    lifetimeDays: 2,
  },
  'member_account.transfer': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction'],
    threshold: '5000000',
    lifetimeDays: 2,
  },
  // Issue 28, part 1: an enterprise may add `accountant` (a second accountant validates), never lift the four eyes.
  'manual_entry.post': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  // Issue 28, general accounting, 5. suppliers: the books' entries and the money paid out, whatever the amount.
  'supplier_invoice.record': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  supplier_payment: {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  // General accounting, part 4: fixed assets (issue 28).
  'fixed_asset.acquisition': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  'fixed_asset.disposal': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  // Issue 28, part 6 (banks): money leaving the till or a bank, whatever the amount.
  'treasury.transfer': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  // Issue 28's leftovers (issue 29 session): undoing an invoice or a payment takes the two people that made it.
  'supplier_invoice.reverse': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  'supplier_payment.reverse': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  // Issue 29, transfers between members and standing orders: each run moves the amount, so the transfers' threshold.
  'standing_order.create': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction'],
    threshold: '5000000',
    lifetimeDays: 2,
  },
  // Issue 29, serving members across branches: as a local withdrawal, decided by the counter's branch head or the
  // direction. Its own line, not the withdrawal's: a cooperative may want a lower threshold where the teller does not
  // know the member.
  'member_account.inter_branch_withdrawal': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction'],
    threshold: '5000000',
    lifetimeDays: 2,
  },
  // Issue 29, cash between the vault and the tills: the branch head settles, the direction or another branch head
  // approves.
  'cash_difference.settle': {
    fourEyes: true,
    approverRoles: ['branch_head', 'direction', 'admin'],
    threshold: null,
    lifetimeDays: 7,
  },
  // Issue 30, credit insurance and the usury rate: a rate set too high lets usurious loans through, as prudential
  // settings do.
  'usury_rate.change': { fourEyes: true, approverRoles: board, threshold: null, lifetimeDays: 7 },
  // Issue 30, restructuring: each request's approvers are the steps above the one that granted its loan (Art. 13); the
  // policy sets the days.
  'loan.restructure': {
    fourEyes: true,
    approverRoles: ['credit_committee', 'direction'],
    threshold: null,
    lifetimeDays: 7,
  },
  // Issue 31, go-live import, the pipeline (part A): the whole books come in or go out; someone other than the uploader
  // decides.
  'import.apply': { fourEyes: true, approverRoles: board, threshold: null, lifetimeDays: 7 },
  'import.cancel': { fourEyes: true, approverRoles: board, threshold: null, lifetimeDays: 7 },
};

/**
 * Operations no policy may leave to one person: the maker of a manual entry never validates it; a restructuring is
 * decided above (docs/domain.md §11).
 */
const alwaysFourEyes: ReadonlySet<ApprovalOperation> = new Set([
  'manual_entry.post',
  'loan.restructure',
  'import.apply',
  'import.cancel',
]);

/** The index of the first rule that lifts the four eyes of an operation that always has them, or -1. */
export const rulesLiftingFourEyes = (rules: readonly Pick<PolicyRule, 'operation' | 'fourEyes'>[]): number =>
  rules.findIndex((rule) => !rule.fourEyes && alwaysFourEyes.has(rule.operation));

/** The enterprise's policy: the default, with its own lines over it. Every operation, in the list's order. */
export function effectivePolicy(overrides: readonly PolicyRule[]): PolicyRule[] {
  return approvalOperations.map(
    (operation) =>
      overrides.find((rule) => rule.operation === operation) ?? { operation, ...defaultApprovalPolicy[operation] },
  );
}

/**
 * The line that makes this operation a request, or null when it runs at once: not under four eyes, or an
 * amount under the threshold.
 */
export function fourEyesRule(
  policy: readonly PolicyRule[],
  operation: ApprovalOperation,
  amount?: { lt(other: string): boolean },
): PolicyRule | null {
  const rule = policy.find((line) => line.operation === operation);
  if (rule === undefined || !rule.fourEyes) return null;
  if (rule.threshold !== null && amount !== undefined && amount.lt(rule.threshold)) return null;
  return rule;
}
