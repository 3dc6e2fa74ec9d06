import { buildSchedule, dueDates, type Frequency, type ScheduleMethod } from '../loans/schedule';
import { Money } from '../money';
import { isImportRate, parseImportDate } from './cells';
import { amountOf, installmentsOf, type ImportedInstallment } from './loan-rules';

/**
 * The schedule of a loan that the loan-installments file leaves out (docs/domain.md §15.2): regenerated from its
 * terms with the product's method and frequency, the first installment one period after the disbursement, no
 * grace. What the loan row says was paid is spread over the installments oldest first, as a repayment is. Pure.
 */

type Row = Readonly<Record<string, string>>;

/** The product's terms a schedule is regenerated with. */
export interface ScheduleTerms {
  method: ScheduleMethod;
  frequency: Frequency;
}

/**
 * Twenty years of weekly installments: a longer term is no loan in progress, and a hostile cell builds no huge
 * schedule.
 */
const maxTermPeriods = 1040;

/** Spreads `paid` over the parts due, oldest first: each part paid up to what it is due. */
function spreadOldestFirst(due: readonly Money[], paid: Money): Money[] {
  let left = paid;
  return due.map((part) => {
    const taken = Money.min(part, left);
    left = left.minus(taken);
    return taken;
  });
}

/**
 * The loan row's schedule; null when a term does not read (its cell's problem is already reported). Interest paid
 * beyond the schedule's stays unspread: the schedule's check then reports the difference on `interest_paid`.
 */
export function regeneratedInstallments(row: Row, terms: ScheduleTerms): ImportedInstallment[] | null {
  const principal = amountOf(row, 'original_amount');
  const principalPaid = amountOf(row, 'principal_paid');
  const interestPaid = amountOf(row, 'interest_paid');
  const disbursedOn = parseImportDate(row.disbursement_date ?? '');
  const termPeriods = Number(row.term_periods);
  const annualRate = isImportRate(row.annual_rate ?? '') ? new Money(row.annual_rate!) : null;
  if (
    principal === null ||
    principalPaid === null ||
    interestPaid === null ||
    disbursedOn === null ||
    annualRate === null
  )
    return null;
  if (
    !/^\d+$/.test(row.term_periods ?? '') ||
    termPeriods < 1 ||
    termPeriods > maxTermPeriods ||
    !principal.isInteger() ||
    principal.lte(0)
  )
    return null;
  const firstDueDate = dueDates(disbursedOn, terms.frequency, 2)[1]!;
  const { installments } = buildSchedule({
    ...terms,
    principal,
    annualRate,
    termPeriods,
    firstDueDate,
    principalGracePeriods: 0,
  });
  const principalParts = spreadOldestFirst(
    installments.map((installment) => installment.principal),
    principalPaid,
  );
  const interestParts = spreadOldestFirst(
    installments.map((installment) => installment.interest),
    interestPaid,
  );
  return installments.map((installment, index) => ({
    dueDate: installment.dueDate,
    principal: installment.principal,
    interest: installment.interest,
    principalPaid: principalParts[index]!,
    interestPaid: interestParts[index]!,
  }));
}

/**
 * A loan's schedule: its rows of the loan-installments file, or, when it has none, regenerated from its terms
 * (none when its product is unknown: the schedule's check then reports the missing installments).
 */
export function loanSchedule(
  row: Row,
  installmentRows: readonly Row[],
  terms: ScheduleTerms | undefined,
): ImportedInstallment[] | null {
  if (installmentRows.length > 0) return installmentsOf(installmentRows);
  return terms === undefined ? [] : regeneratedInstallments(row, terms);
}
