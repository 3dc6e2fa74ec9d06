import type { Knex } from 'knex';
import type { InstallmentState } from '../../domain/loans/position';
import type { Schedule } from '../../domain/loans/schedule';
import { formatAmount, Money } from '../../domain/money';

/** The RepaymentSchedule rows of a loan, as the pure position functions read them. */

interface InstallmentRow {
  number: number;
  due_date: string;
  principal_due: string;
  interest_due: string;
  penalty_due: string;
  principal_paid: string;
  interest_paid: string;
  penalty_paid: string;
  penalty_through: string;
}

const toState = (row: InstallmentRow): InstallmentState => ({
  number: row.number,
  dueDate: row.due_date,
  principalDue: new Money(row.principal_due),
  interestDue: new Money(row.interest_due),
  penaltyDue: new Money(row.penalty_due),
  principalPaid: new Money(row.principal_paid),
  interestPaid: new Money(row.interest_paid),
  penaltyPaid: new Money(row.penalty_paid),
  penaltyThrough: row.penalty_through,
});

export async function readInstallments(trx: Knex | Knex.Transaction, loanId: string): Promise<InstallmentState[]> {
  const rows: InstallmentRow[] = await trx('loan_installments').where({ loan_id: loanId }).orderBy('number');
  return rows.map(toState);
}

/** Replaces a loan's schedule (at approval, then from the disbursement date): nothing is paid yet. */
export async function writeSchedule(trx: Knex.Transaction, loanId: string, schedule: Schedule): Promise<void> {
  await trx('loan_installments').where({ loan_id: loanId }).delete();
  await trx('loan_installments').insert(
    schedule.installments.map((installment) => ({
      loan_id: loanId,
      number: installment.number,
      due_date: installment.dueDate,
      principal_due: formatAmount(installment.principal),
      interest_due: formatAmount(installment.interest),
      penalty_through: installment.dueDate,
    })),
  );
}

/** Writes back the installments a repayment changed (accrued penalties, amounts paid, settlement date). */
export async function saveInstallments(
  trx: Knex.Transaction,
  loanId: string,
  installments: readonly InstallmentState[],
  settledOn: (installment: InstallmentState) => string | null,
): Promise<void> {
  for (const installment of installments) {
    await trx('loan_installments')
      .where({ loan_id: loanId, number: installment.number })
      .update({
        penalty_due: formatAmount(installment.penaltyDue),
        principal_paid: formatAmount(installment.principalPaid),
        interest_paid: formatAmount(installment.interestPaid),
        penalty_paid: formatAmount(installment.penaltyPaid),
        penalty_through: installment.penaltyThrough,
        paid_on: settledOn(installment),
      });
  }
}
