/**
 * COBAC R-2017/07 classification (domain facts §4). Pure: the provisioning run gives, for one borrower, each
 * of their active loans with its own days past due and flags, and gets each loan's class back.
 *
 * - The borrower's age is the age of their oldest arrears over all their loans.
 * - Overdue (impayé) up to 45 days, 90 for real-estate loans; doubtful (douteux) beyond, or when litigious.
 * - Contagion: one doubtful loan makes every loan of the borrower doubtful.
 * - A doubtful loan stays doubtful until the borrower's arrears are cleared (age 0), then is performing again.
 */
export type LoanClass = 'performing' | 'overdue' | 'doubtful';

export const overdueLimitDays = (realEstate: boolean): number => (realEstate ? 90 : 45);

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

export function borrowerAge(loans: readonly Pick<BorrowerLoan, 'daysPastDue'>[]): number {
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
