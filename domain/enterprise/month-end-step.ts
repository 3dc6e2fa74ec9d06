/**
 * What one step of a month end (loan interest accrual, its reversal, savings interest, term-deposit maturity)
 * did, as the run's document keeps it: the month-end workflow records one per step. A rerun of a step that had
 * already posted returns the figures of what it posted the first time, with `entries` counting nothing new.
 */
export interface MonthEndStepResult {
  /** Journal entries this execution posted (0 when the period's postings were already there). */
  entries: number;
  /** The step's total, a decimal string of francs (interest accrued, interest paid, capital matured…). */
  amount: string;
  /** The detail an accountant checks: one line per ledger account or per member account / loan touched. */
  lines: MonthEndStepLine[];
}

export interface MonthEndStepLine {
  /** The chart account (PCEMF code) the amount went to. */
  account: string;
  /** A decimal string of francs: positive debit, negative credit, as the step books it on `account`. */
  amount: string;
  /** The member account (CompteClient) or loan the line is about, when it is about one. */
  compteClientId?: string;
  loanId?: string;
}

/**
 * What a step's activity answers the month-end workflow: the figures, and how many lines the step's result holds.
 * The lines themselves stay in the run's document (month_end_steps, read through the API): a cooperative's savings
 * interest has two or three per account, some 3 MB at 16 000 accounts, more than a Temporal payload may carry (2 MB).
 */
export interface MonthEndStepSummary {
  entries: number;
  amount: string;
  lines: number;
}

export const stepSummary = (result: MonthEndStepResult): MonthEndStepSummary => ({
  entries: result.entries,
  amount: result.amount,
  lines: result.lines.length,
});
