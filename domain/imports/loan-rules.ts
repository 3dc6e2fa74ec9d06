import { daysBetween, type IsoDate } from '../calendar';
import { classifyBorrowerLoans, type ClassAccounts, type LoanClass } from '../loans/classification';
import { doubtfulAccountOf, notDoubtfulProvisionAccount, provisionAccountOf } from '../loans/doubtful-accounts';
import { yearsSince } from '../loans/provisioning';
import { formatAmount, Money } from '../money';
import { parseImportAmount, parseImportDate, type CellProblem } from './cells';

/**
 * The rules of the loans in progress of an import (docs/domain.md §15.2), given what the activity looked up. Pure.
 * A cell already refused by its format is not judged again: these rules read only the cells that read well.
 */

type Row = Readonly<Record<string, string>>;

/** The product's bounds a loan row is judged against. */
export interface LoanProductBounds {
  minTermPeriods: number;
  maxTermPeriods: number;
  realEstate: boolean;
}

/** An amount cell as Money, or null when it does not read as one (its problem is already reported). */
export function amountOf(row: Row, column: string): Money | null {
  const cell = row[column] ?? '';
  if (cell === '') return null;
  const parsed = parseImportAmount(cell, true);
  return 'amount' in parsed ? new Money(parsed.amount) : null;
}

const dateOf = (row: Row, column: string) => parseImportDate(row[column] ?? '');

/**
 * The class the file writes, in the product's classes: a litigious loan is doubtful, in litigation (R-2017/07 Art. 8).
 */
export const fileClassOf = (code: string): LoanClass => (code === 'litigious' ? 'doubtful' : (code as LoanClass));

/** Principal not yet repaid: the amount less what was repaid. */
export function outstandingOf(row: Row): Money | null {
  const amount = amountOf(row, 'original_amount');
  const paid = amountOf(row, 'principal_paid');
  return amount === null || paid === null ? null : amount.minus(paid);
}

/**
 * A loan row alone: dates, payments within the amount, term within the product's bounds, the doubtful date, the
 * provision within the outstanding principal.
 */
export function loanProblems(row: Row, cutOverDate: IsoDate, product: LoanProductBounds | undefined): CellProblem[] {
  const problems: CellProblem[] = [];
  const disbursed = dateOf(row, 'disbursement_date');
  if (disbursed !== null && disbursed > cutOverDate)
    problems.push({
      column: 'disbursement_date',
      value: row.disbursement_date!,
      problem: `after the cut-over date (${cutOverDate})`,
    });
  const outstanding = outstandingOf(row);
  if (outstanding?.isNeg() === true)
    problems.push({
      column: 'principal_paid',
      value: row.principal_paid!,
      problem: `payments exceed the loan's amount (${row.original_amount})`,
    });
  // A loan repaid in full is history, not a loan in progress: it would come in active with nothing to repay.
  if (outstanding?.isZero() === true)
    problems.push({
      column: 'principal_paid',
      value: row.principal_paid!,
      problem: 'the whole amount: a loan repaid is not in progress',
    });
  const term = Number(row.term_periods);
  if (
    product !== undefined &&
    /^\d+$/.test(row.term_periods ?? '') &&
    (term < product.minTermPeriods || term > product.maxTermPeriods)
  ) {
    problems.push({
      column: 'term_periods',
      value: row.term_periods!,
      problem: `outside the product's terms (${product.minTermPeriods} to ${product.maxTermPeriods})`,
    });
  }
  problems.push(...doubtfulDateProblems(row, cutOverDate));
  const provision = amountOf(row, 'provision');
  if (provision !== null && outstanding !== null && !outstanding.isNeg() && provision.gt(outstanding)) {
    problems.push({
      column: 'provision',
      value: row.provision!,
      problem: `over the outstanding principal (${formatAmount(outstanding)})`,
    });
  }
  problems.push(...guaranteeProblems(row));
  // A loan not performing accrues nothing (§2's accrual rule; R-2017/07 Art. 15-d: its interest is income only when
  // collected).
  const accrued = amountOf(row, 'accrued_interest');
  if (accrued?.isZero() === false && ['overdue', 'doubtful', 'litigious'].includes(row.classification ?? '')) {
    problems.push({
      column: 'accrued_interest',
      value: row.accrued_interest!,
      problem: `only a performing loan accrues interest (this one is ${row.classification})`,
    });
  }
  return problems;
}

/** A guarantee comes with its guarantor, another member, and is worth something; a held account needs one too. */
function guaranteeProblems(row: Row): CellProblem[] {
  const problems: CellProblem[] = [];
  const guarantor = row.guarantor_member_number ?? '';
  if ((guarantor === '') !== ((row.guarantee_value ?? '') === '')) {
    problems.push(
      guarantor === ''
        ? { column: 'guarantee_value', value: row.guarantee_value!, problem: 'a guarantee without a guarantor' }
        : { column: 'guarantee_value', value: '', problem: 'required with a guarantor' },
    );
  }
  if (amountOf(row, 'guarantee_value')?.isZero() === true)
    problems.push({
      column: 'guarantee_value',
      value: row.guarantee_value!,
      problem: 'a guarantee is worth more than nothing',
    });
  if (guarantor !== '' && guarantor === row.member_number)
    problems.push({
      column: 'guarantor_member_number',
      value: guarantor,
      problem: 'the borrower cannot be their own guarantor',
    });
  if (guarantor === '' && (row.guarantee_held_account ?? '') !== '') {
    problems.push({
      column: 'guarantee_held_account',
      value: row.guarantee_held_account!,
      problem: 'a held account without a guarantor',
    });
  }
  return problems;
}

/** A doubtful or litigious loan has the date it became doubtful, on or before the cut-over; another has none. */
function doubtfulDateProblems(row: Row, cutOverDate: IsoDate): CellProblem[] {
  const since = row.doubtful_since ?? '';
  const classCode = row.classification ?? '';
  if (!['performing', 'overdue', 'doubtful', 'litigious'].includes(classCode)) return [];
  const doubtful = fileClassOf(classCode) === 'doubtful';
  if (doubtful && since === '')
    return [{ column: 'doubtful_since', value: '', problem: `required for a ${classCode} loan` }];
  if (!doubtful && since !== '')
    return [
      {
        column: 'doubtful_since',
        value: since,
        problem: `only a doubtful or litigious loan has one, not a ${classCode} loan`,
      },
    ];
  const date = dateOf(row, 'doubtful_since');
  return date !== null && date > cutOverDate
    ? [{ column: 'doubtful_since', value: since, problem: `after the cut-over date (${cutOverDate})` }]
    : [];
}

/** An installment row alone: what was paid is never over what was due. */
export function installmentProblems(row: Row): CellProblem[] {
  const problems: CellProblem[] = [];
  for (const [paidColumn, dueColumn] of [
    ['principal_paid', 'principal'],
    ['interest_paid', 'interest'],
  ] as const) {
    const paid = amountOf(row, paidColumn);
    const due = amountOf(row, dueColumn);
    if (paid !== null && due !== null && paid.gt(due))
      problems.push({
        column: paidColumn,
        value: row[paidColumn]!,
        problem: `over the ${dueColumn} due (${row[dueColumn]})`,
      });
  }
  return problems;
}

/** One installment as read from the loan-installments file. */
export interface ImportedInstallment {
  dueDate: IsoDate;
  principal: Money;
  interest: Money;
  principalPaid: Money;
  interestPaid: Money;
}

/**
 * The installments of the rows, in due-date order; null when a cell does not read (its problem is reported on its row).
 */
export function installmentsOf(rows: readonly Row[]): ImportedInstallment[] | null {
  const installments: ImportedInstallment[] = [];
  for (const row of rows) {
    const dueDate = dateOf(row, 'due_date');
    const principal = amountOf(row, 'principal');
    const interest = amountOf(row, 'interest');
    const principalPaid = amountOf(row, 'principal_paid');
    const interestPaid = amountOf(row, 'interest_paid');
    if (dueDate === null || principal === null || interest === null || principalPaid === null || interestPaid === null)
      return null;
    installments.push({ dueDate, principal, interest, principalPaid, interestPaid });
  }
  return installments.sort((left, right) => left.dueDate.localeCompare(right.dueDate));
}

const sumOf = (installments: readonly ImportedInstallment[], part: keyof Omit<ImportedInstallment, 'dueDate'>) =>
  installments.reduce((total, installment) => total.plus(installment[part]), new Money(0));

/**
 * A loan against its schedule: as many installments as its term, their principal summing to its amount, their
 * payments to the loan's, none due before the disbursement. Every problem is on the loan's row.
 */
export function scheduleProblems(row: Row, installments: readonly ImportedInstallment[]): CellProblem[] {
  if (installments.length === 0)
    return [
      { column: 'loan_number', value: row.loan_number!, problem: 'no installment in the loan-installments file' },
    ];
  const problems: CellProblem[] = [];
  if (/^\d+$/.test(row.term_periods ?? '') && Number(row.term_periods) !== installments.length) {
    problems.push({
      column: 'term_periods',
      value: row.term_periods!,
      problem: `the schedule has ${installments.length} installments`,
    });
  }
  const checks = [
    ['original_amount', 'principal'],
    ['principal_paid', 'principalPaid'],
    ['interest_paid', 'interestPaid'],
  ] as const;
  for (const [column, part] of checks) {
    const expected = amountOf(row, column);
    const sum = sumOf(installments, part);
    if (expected !== null && !sum.eq(expected))
      problems.push({
        column,
        value: row[column]!,
        problem:
          `the schedule's ${column === 'original_amount' ? 'principal' : column.replace('_', ' ')} sums to ` +
          `${formatAmount(sum)}`,
      });
  }
  const twice = installments.find(
    (installment, index) => index > 0 && installment.dueDate === installments[index - 1]!.dueDate,
  );
  if (twice !== undefined)
    problems.push({
      column: 'loan_number',
      value: row.loan_number!,
      problem: `two installments fall due on ${twice.dueDate}`,
    });
  const disbursed = dateOf(row, 'disbursement_date');
  if (disbursed !== null && installments[0]!.dueDate <= disbursed)
    problems.push({
      column: 'disbursement_date',
      value: row.disbursement_date!,
      problem: `an installment falls due on or before it (${installments[0]!.dueDate})`,
    });
  return problems;
}

/**
 * Days past due at the cut-over, as the provisioning run counts them: from the oldest installment due before the
 * cut-over date and not wholly paid; 0 when none is.
 */
export function daysPastDueOf(installments: readonly ImportedInstallment[], cutOverDate: IsoDate): number {
  const oldest = installments.find(
    (installment) =>
      installment.dueDate < cutOverDate &&
      (installment.principalPaid.lt(installment.principal) || installment.interestPaid.lt(installment.interest)),
  );
  return oldest === undefined ? 0 : daysBetween(oldest.dueDate, cutOverDate);
}

/** One loan of a borrower, as the classification check reads it. */
export interface BorrowerLoanOfFile {
  rowNumber: number;
  classCode: string;
  daysPastDue: number;
  realEstate: boolean;
}

/**
 * The class COBAC R-2017/07 gives each loan of one borrower (domain/loans/classification.ts, contagion included),
 * the file's class taken as the previous one (a doubtful loan stays so while any arrears remain): a class that
 * differs is reported, never changed, since the provisioning run at the cut-over would otherwise reclassify it.
 */
export function classificationProblems(loans: readonly BorrowerLoanOfFile[]): (CellProblem & { rowNumber: number })[] {
  const classified = classifyBorrowerLoans(
    loans.map((loan) => ({
      loanId: String(loan.rowNumber),
      daysPastDue: loan.daysPastDue,
      realEstate: loan.realEstate,
      litigious: loan.classCode === 'litigious',
      previousClass: fileClassOf(loan.classCode),
    })),
  );
  return loans.flatMap((loan, index) => {
    const { loanClass, ageDays } = classified[index]!;
    if (loanClass === fileClassOf(loan.classCode)) return [];
    return [
      {
        rowNumber: loan.rowNumber,
        column: 'classification',
        value: loan.classCode,
        problem:
          `COBAC R-2017/07 gives ${loanClass}: ${loan.daysPastDue} days past due, ` +
          `the borrower's oldest arrears ${ageDays} days`,
      },
    ];
  });
}

/** A staged loan row of one borrower with its installments' rows, and whether any of them was already refused. */
export interface StagedLoan {
  rowNumber: number;
  data: Row;
  /** Its schedule, given or regenerated (`loanSchedule`); null when a cell of it does not read. */
  installments: readonly ImportedInstallment[] | null;
  /** The loan's row or one of its installments' has a problem already: its schedule is not judged again. */
  refused: boolean;
  realEstate: boolean;
}

/**
 * One borrower's loans against their schedules, then their classes. A borrower with a loan refused or whose
 * schedule is wrong is not classified: its days past due would be read from a wrong schedule.
 */
export function borrowerProblems(
  loans: readonly StagedLoan[],
  cutOverDate: IsoDate,
): (CellProblem & { rowNumber: number })[] {
  const problems: (CellProblem & { rowNumber: number })[] = [];
  const judged: BorrowerLoanOfFile[] = [];
  for (const loan of loans) {
    const installments = loan.refused ? null : loan.installments;
    if (installments === null) continue;
    const found = scheduleProblems(loan.data, installments);
    problems.push(...found.map((problem) => ({ ...problem, rowNumber: loan.rowNumber })));
    if (found.length > 0) continue;
    judged.push({
      rowNumber: loan.rowNumber,
      classCode: loan.data.classification!,
      daysPastDue: daysPastDueOf(installments, cutOverDate),
      realEstate: loan.realEstate,
    });
  }
  return judged.length === loans.length ? classificationProblems(judged) : problems;
}

/** What a loan adds to one account of the chart: debit positive, credit negative, as the trial balance. */
export interface LoanDetailPart {
  accountCode: string;
  balance: Money;
  what: string;
}

/**
 * Where a validated loan sits in the books at the cut-over (docs/domain.md §4): its outstanding principal on its
 * class's account (a doubtful loan on 3352, its imported guarantees being personal ones, a sûreté personnelle),
 * its provision, a credit, on the account of its cover and years doubtful (3931 while not doubtful), and its
 * accrued interest on the account a month end's accrual debits (`accruedInterestAccount`).
 */
export function loanDetailParts(
  row: Row,
  classAccounts: ClassAccounts,
  accruedInterestAccount: string,
  cutOverDate: IsoDate,
): LoanDetailPart[] {
  const loanClass = fileClassOf(row.classification!);
  // Validated: something is left to repay (a loan repaid is refused).
  const principalAccount = loanClass === 'doubtful' ? doubtfulAccountOf('other') : classAccounts[loanClass];
  const parts: LoanDetailPart[] = [
    { accountCode: principalAccount, balance: outstandingOf(row)!, what: `loans in progress, ${loanClass} principal` },
  ];
  const provision = amountOf(row, 'provision');
  if (provision !== null && !provision.isZero()) {
    const since = dateOf(row, 'doubtful_since');
    const accountCode =
      loanClass === 'doubtful'
        ? provisionAccountOf('other', yearsSince(since!, cutOverDate))
        : notDoubtfulProvisionAccount;
    parts.push({ accountCode, balance: provision.neg(), what: 'loans in progress, provisions' });
  }
  const accrued = amountOf(row, 'accrued_interest');
  if (accrued !== null && !accrued.isZero())
    parts.push({ accountCode: accruedInterestAccount, balance: accrued, what: 'loans in progress, accrued interest' });
  return parts;
}
