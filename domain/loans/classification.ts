import type { AccountRole } from '../events/rules';

/**
 * COBAC R-2017/07 classification (docs/domain.md §4). Pure: the provisioning run gives, for one borrower, each
 * of their active loans with its own days past due and flags, and gets each loan's class back.
 *
 * - The borrower's age is the age of their oldest arrears over all their loans.
 * - Overdue (impayé) up to 45 days, 90 for real-estate loans; doubtful (douteux) beyond, or when litigious.
 * - Contagion: one doubtful loan makes every loan of the borrower doubtful.
 * - A doubtful loan stays doubtful until the borrower's arrears are cleared (age 0), then is performing again.
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
    if (!Number.isSafeInteger(loan.daysPastDue) || loan.daysPastDue < 0) throw new Error(`daysPastDue must be an integer ≥ 0, got ${loan.daysPastDue}`);
  }
  const age = borrowerAge(loans);
  const ownDoubtful = (loan: BorrowerLoan) => loan.litigious || age > overdueLimitDays(loan.realEstate) || (loan.previousClass === 'doubtful' && age > 0);
  const doubtful = loans.some(ownDoubtful);
  return loans.map((loan) => ({ loanId: loan.loanId, ageDays: age, loanClass: doubtful ? 'doubtful' : loan.daysPastDue > 0 ? 'overdue' : 'performing' }));
}

/** The chart account holding a loan's principal in each class: the product's portfolio account, 331x, 335x. */
export type ClassAccounts = Readonly<Record<LoanClass, string>>;

/**
 * The entry that moves a loan's outstanding principal when its class changes (docs/domain.md §4): the event
 * kind of the target class, and the accounts its rule's two roles stand for in this move (the source may be
 * the portfolio, the overdue or the doubtful account). Null when the class did not change.
 */
export function reclassificationOf(
  from: LoanClass,
  to: LoanClass,
  accounts: ClassAccounts,
): { kind: 'reclassification_overdue' | 'reclassification_doubtful' | 'reclassification_performing'; productAccounts: Partial<Record<AccountRole, string>> } | null {
  if (from === to) return null;
  if (to === 'overdue') return { kind: 'reclassification_overdue', productAccounts: { overdue_receivables: accounts.overdue, loan_portfolio: accounts[from] } };
  if (to === 'doubtful') return { kind: 'reclassification_doubtful', productAccounts: { doubtful_receivables: accounts.doubtful, loan_portfolio: accounts[from] } };
  return { kind: 'reclassification_performing', productAccounts: { loan_portfolio: accounts.performing, doubtful_receivables: accounts[from] } };
}
