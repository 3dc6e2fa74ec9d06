/**
 * The accounting rules: which accounts each kind of business event debits and credits. Pure data and pure
 * functions: the ledger activity resolves account roles to the enterprise's chart and posts the lines.
 */

/** The accruals, reclassifications and provisions: kinds that keep the books true, moving no member's money. */
const accrualAndProvisionKinds = [
  'interest_accrual',
  'reclassification_overdue',
  'reclassification_doubtful',
  'reclassification_performing',
  'provision_charge',
  'provision_reversal',
] as const;

export const eventKinds = [
  'deposit',
  'withdrawal',
  'loan_disbursement',
  'repayment_principal',
  'repayment_interest',
  'repayment_penalty',
  'loan_fee',
  ...accrualAndProvisionKinds,
  'write_off',
  'share_subscription',
  'share_payment',
  'share_cancellation',
  'share_unpaid_cancellation',
  'share_refund',
  'savings_interest',
  'withholding_tax',
  'term_deposit_maturity',
  'term_deposit_payout',
  'savings_interest_accrual',
  'term_deposit_early_closure',
  'savings_interest_recovery',
  'withholding_tax_refund',
  'repayment_interest_unearned',
  'unearned_interest_recognition',
  'provision_transfer',
  // Issue 29, transfers between members: the source account debited, the destination credited (each in its branch).
  'member_transfer_debit',
  'member_transfer_credit',
  // Issue 29, serving members across branches: the member's account moves in its branch, the cash at the counter's.
  'inter_branch_deposit',
  'inter_branch_deposit_cash',
  'inter_branch_withdrawal',
  'inter_branch_withdrawal_cash',
  // Issue 30, write-off and recovery: money recovered on a written-off loan, income on 792 (docs/domain.md §14.3).
  'loan_recovery',
  // Issue 30, credit insurance: a premium collected for the insurer (withheld at disbursement or paid with an
  // installment).
  'loan_insurance_premium',
  'repayment_insurance',
] as const;
export type EventKind = (typeof eventKinds)[number];

/**
 * The kinds that move members' money or capital: a suspended enterprise records none. The others keep the
 * books true (accruals, reclassifications, provisions, write-off), the effect of a withdrawal noticed earlier, and
 * what a savings contract itself owes at a month end: its interest, the tax withheld on it, a term deposit reaching
 * its term and paid to the member's demand account, and what an early closure recomputes (the interest paid beyond
 * the penalty rate taken back, the tax withheld on it given back); the closure itself is the member's request, money
 * moving (docs/domain.md §9). Interest paid in advance recognised as it is earned is book-keeping too (§3).
 */
const bookKeepingKinds: ReadonlySet<EventKind> = new Set<EventKind>([
  ...accrualAndProvisionKinds,
  'provision_transfer',
  'write_off',
  'share_cancellation',
  'share_unpaid_cancellation',
  'savings_interest',
  'withholding_tax',
  'term_deposit_maturity',
  'term_deposit_payout',
  'savings_interest_accrual',
  'savings_interest_recovery',
  'withholding_tax_refund',
  'unearned_interest_recognition',
]);
export const moneyMovingKinds: ReadonlySet<EventKind> = new Set(
  eventKinds.filter((kind) => !bookKeepingKinds.has(kind)),
);

/**
 * Account roles: a rule side may name a role instead of an account, and the product involved (a savings or
 * loan product) says which account plays it; without a product's say, the default account of the role.
 */
export const accountRoles = [
  'cash',
  'member_deposits',
  'loan_portfolio',
  'accrued_interest',
  'overdue_receivables',
  'doubtful_receivables',
  'provisions',
  'provision_charge',
  'provision_reversal',
  'write_off_loss',
  'interest_income',
  'fee_income',
  'penalty_income',
  'shares_unpaid',
  'shares_paid',
  'members_capital',
  'capital_to_refund',
  'interest_expense',
  'withholding_tax',
  'internal_transfers',
  'accrued_interest_payable',
  'unearned_interest',
  'provisions_destination',
  // Issue 30, credit insurance: what is owed to the insurer (PCEMF 461).
  'insurance_payable',
] as const;
export type AccountRole = (typeof accountRoles)[number];

/** One side of a leg: a fixed account of the chart, or a role. */
export type AccountRef = { account: string } | { role: AccountRole };

/** A leg moves the event's whole amount from its credit to its debit account. */
export interface RuleLeg {
  debit: AccountRef;
  credit: AccountRef;
}

export interface RuleDefinition {
  kind: EventKind;
  legs: RuleLeg[];
  active: boolean;
}

export type RoleAccounts = Readonly<Record<AccountRole, string>>;

/** The account code a side designates: the fixed account, or the product's account for the role, or the default. */
export function accountOf(
  ref: AccountRef,
  defaults: RoleAccounts,
  productAccounts: Partial<RoleAccounts> = {},
): string {
  return 'account' in ref ? ref.account : (productAccounts[ref.role] ?? defaults[ref.role]);
}

/** The account codes a rule touches, for validating it against a chart. */
export function accountsOfRule(legs: readonly RuleLeg[], defaults: RoleAccounts): string[] {
  return [...new Set(legs.flatMap((leg) => [accountOf(leg.debit, defaults), accountOf(leg.credit, defaults)]))];
}
