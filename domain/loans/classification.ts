import type { AccountRole } from '../events/rules';

/**
 * COBAC R-2017/07 classification (docs/domain.md §4). Pure: the provisioning run gives, for one borrower, each
 * of their active loans with its own days past due and flags, and gets each loan's class back.
 *
 * - The borrower's age is the age of their oldest arrears over all their loans.
 * - Overdue (impayé) up to 45 days, 90 for real-estate loans; doubtful (douteux) beyond, or when litigious.
 * - Contagion: one doubtful loan makes every loan of the borrower doubtful.
 * - A doubtful loan stays doubtful until the borrower's arrears are cleared (age 0), then is performing again.
 * - A restructured loan is not below the class its restructuring keeps it at (its floor), and a doubtful floor spreads.
 */
export type LoanClass = 'performing' | 'overdue' | 'doubtful';

const overdueLimitDays = (realEstate: boolean): number => (realEstate ? 90 : 45);

export interface BorrowerLoan {
  loanId: string;
  /** Days past due of the loan's own oldest unpaid installment. */
  daysPastDue: number;
  realEstate: boolean;
  litigious: boolean;
  previousClass: LoanClass;
  /** The class a restructuring keeps the loan at, at least (R-2017/07 Art. 14: domain/loans/restructuring.ts). */
  classFloor?: LoanClass | null;
}

export interface ClassifiedLoan {
  loanId: string;
  loanClass: LoanClass;
  /** The borrower's age: what the ladder reads. */
  ageDays: number;
}

function borrowerAge(loans: readonly Pick<BorrowerLoan, 'daysPastDue'>[]): number {
  return loans.reduce((oldest, loan) => Math.max(oldest, loan.daysPastDue), 0);
}

export function classifyBorrowerLoans(loans: readonly BorrowerLoan[]): ClassifiedLoan[] {
  for (const loan of loans) {
    if (!Number.isSafeInteger(loan.daysPastDue) || loan.daysPastDue < 0)
      throw new Error(`daysPastDue must be an integer ≥ 0, got ${loan.daysPastDue}`);
  }
  const age = borrowerAge(loans);
  const ownDoubtful = (loan: BorrowerLoan) =>
    loan.litigious ||
    loan.classFloor === 'doubtful' ||
    age > overdueLimitDays(loan.realEstate) ||
    (loan.previousClass === 'doubtful' && age > 0);
  const doubtful = loans.some(ownDoubtful);
  const overdue = (loan: BorrowerLoan) => loan.daysPastDue > 0 || loan.classFloor === 'overdue';
  return loans.map((loan) => ({
    loanId: loan.loanId,
    ageDays: age,
    loanClass: doubtful ? 'doubtful' : overdue(loan) ? 'overdue' : 'performing',
  }));
}

/**
 * The accounts holding a loan's principal when it is performing (its product's portfolio account) or overdue (3312).
 * A doubtful loan's account depends on its cover (domain/loans/doubtful-accounts.ts), so the loan keeps it.
 */
export type ClassAccounts = Readonly<Record<Exclude<LoanClass, 'doubtful'>, string>>;

/** Where a loan's principal sits: its class and the account holding it. */
export interface Placement {
  loanClass: LoanClass;
  account: string;
}

/**
 * The entry that moves a loan's outstanding principal when its placement changes (docs/domain.md §4): the event
 * kind of the target class, and the accounts its rule's two roles stand for in this move (the source may be the
 * portfolio, the overdue or a doubtful account). A doubtful loan whose cover changed moves from one doubtful
 * account to another by the same kind. Null when the principal stays where it is.
 */
export function reclassificationOf(
  from: Placement,
  to: Placement,
): {
  kind: 'reclassification_overdue' | 'reclassification_doubtful' | 'reclassification_performing';
  productAccounts: Partial<Record<AccountRole, string>>;
} | null {
  if (from.loanClass === to.loanClass && from.account === to.account) return null;
  if (to.loanClass === 'overdue')
    return {
      kind: 'reclassification_overdue',
      productAccounts: { overdue_receivables: to.account, loan_portfolio: from.account },
    };
  if (to.loanClass === 'doubtful')
    return {
      kind: 'reclassification_doubtful',
      productAccounts: { doubtful_receivables: to.account, loan_portfolio: from.account },
    };
  return {
    kind: 'reclassification_performing',
    productAccounts: { loan_portfolio: to.account, doubtful_receivables: from.account },
  };
}
