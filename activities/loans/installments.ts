import type { Knex } from 'knex';
import type { InstallmentState } from '../../domain/loans/position';
import type { Schedule } from '../../domain/loans/schedule';
import { formatAmount, Money } from '../../domain/money';

/** The RepaymentSchedule rows of a loan, as the pure position functions read them. */

export interface InstallmentRow {
  number: number;
  due_date: string;
  principal_due: string;
  interest_due: string;
  penalty_due: string;
  principal_paid: string;
  interest_paid: string;
  penalty_paid: string;
  penalty_through: string;
  /** A spread insurance premium's part (docs/domain.md §14.6), where the read gives it. */
  insurance_due?: string;
  insurance_paid?: string;
  /** The day the installment's period began (the previous due date, or the disbursement), where the read gives it. */
  period_start?: string;
}

/**
 * A loan's installments repeat few amounts (zeros, the same principal and interest each period): each distinct
 * one becomes one Money, shared by the rows (a Decimal never changes), rather than six new ones per row.
 */
export function installmentStates(rows: readonly InstallmentRow[]): InstallmentState[] {
  const amounts = new Map<string, Money>();
  const money = (text: string): Money => {
    let amount = amounts.get(text);
    if (amount === undefined) amounts.set(text, (amount = new Money(text)));
    return amount;
  };
  return rows.map((row) => ({
    number: row.number,
    dueDate: row.due_date,
    principalDue: money(row.principal_due),
    interestDue: money(row.interest_due),
    penaltyDue: money(row.penalty_due),
    principalPaid: money(row.principal_paid),
    interestPaid: money(row.interest_paid),
    penaltyPaid: money(row.penalty_paid),
    penaltyThrough: row.penalty_through,
    insuranceDue: money(row.insurance_due ?? '0'),
    insurancePaid: money(row.insurance_paid ?? '0'),
  }));
}

export async function readInstallments(trx: Knex | Knex.Transaction, loanId: string): Promise<InstallmentState[]> {
  const rows: InstallmentRow[] = await trx('loan_installments').where({ loan_id: loanId }).orderBy('number');
  return installmentStates(rows);
}

/** Replaces a loan's schedule (from the disbursement date): nothing is paid yet. */
export async function writeSchedule(
  trx: Knex.Transaction,
  loanId: string,
  schedule: Schedule,
  insuranceParts: readonly Money[],
): Promise<void> {
  await trx('loan_installments').where({ loan_id: loanId }).delete();
  await insertSchedule(trx, loanId, schedule, insuranceParts);
}

/**
 * A loan's enterprise, as a value of an insert of its rows (docs/scaling.md §4: they carry it), read in the same
 * statement.
 */
export const loanEnterprise = (trx: Knex.Transaction, loanId: string): Knex.QueryBuilder =>
  trx('loans').where({ id: loanId }).select('enterprise_id');

/**
 * The schedule of a loan that has none yet (at approval), each installment with its part of a spread insurance premium.
 */
export async function insertSchedule(
  trx: Knex.Transaction,
  loanId: string,
  schedule: Schedule,
  insuranceParts: readonly Money[],
): Promise<void> {
  await trx('loan_installments').insert(
    schedule.installments.map((installment, index) => ({
      enterprise_id: loanEnterprise(trx, loanId),
      loan_id: loanId,
      number: installment.number,
      due_date: installment.dueDate,
      principal_due: formatAmount(installment.principal),
      interest_due: formatAmount(installment.interest),
      insurance_due: formatAmount(insuranceParts[index] ?? new Money(0)),
      penalty_through: installment.dueDate,
    })),
  );
}

/**
 * Writes back the installments a repayment changed (accrued penalties, interest waived, amounts paid, settlement
 * date): one UPDATE of them all, a CTE of the repayment's statement. Its parameters: installmentsJson, the loan id.
 * The interest paid in advance is added to what the installment holds unearned, not set: a month end recognising
 * part of it meanwhile (it locks the row) keeps its decrease.
 */
export const saveInstallmentsStatement = `UPDATE loan_installments i
  SET penalty_due = v.penalty_due, interest_due = v.interest_due, principal_paid = v.principal_paid,
    interest_paid = v.interest_paid,
      penalty_paid = v.penalty_paid, penalty_through = v.penalty_through, paid_on = v.paid_on,
        interest_unearned = i.interest_unearned + v.unearned_added,
      insurance_due = v.insurance_due, insurance_paid = v.insurance_paid
  FROM json_to_recordset(?::json) AS v(number int, penalty_due numeric, interest_due numeric, principal_paid numeric,
    interest_paid numeric,
                                      penalty_paid numeric, penalty_through date, paid_on date, unearned_added numeric,
                                        insurance_due numeric, insurance_paid numeric)
  WHERE i.loan_id = ? AND i.number = v.number`;

export function installmentsJson(
  installments: readonly InstallmentState[],
  settledOn: (installment: InstallmentState) => string | null,
  unearnedAdded: (installment: InstallmentState) => Money,
): string {
  return JSON.stringify(
    installments.map((installment) => ({
      number: installment.number,
      penalty_due: formatAmount(installment.penaltyDue),
      interest_due: formatAmount(installment.interestDue),
      principal_paid: formatAmount(installment.principalPaid),
      interest_paid: formatAmount(installment.interestPaid),
      penalty_paid: formatAmount(installment.penaltyPaid),
      penalty_through: installment.penaltyThrough,
      paid_on: settledOn(installment),
      unearned_added: formatAmount(unearnedAdded(installment)),
      insurance_due: formatAmount(installment.insuranceDue ?? new Money(0)),
      insurance_paid: formatAmount(installment.insurancePaid ?? new Money(0)),
    })),
  );
}
