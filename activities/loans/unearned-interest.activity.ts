import type { Knex } from 'knex';
import { accrualPostings, type Accrual } from '../../domain/accruals';
import { accountOf } from '../../domain/events/rules';
import { unearnedInterest } from '../../domain/loans/interest-accrual';
import { formatAmount, Money } from '../../domain/money';
import type { MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import type { MonthEndStepWork } from '../enterprise/month-end.activity';
import { defaultRoleAccounts } from '../events/default-rules';
import { accrualRuleOf, postOnPeriodEnd } from '../enterprise/month-end-accrual';

/**
 * The month end's recognition of interest paid in advance (docs/domain.md §3, §8): a repayment credits what of an
 * installment's interest it has not yet earned to produits perçus d'avance (47220), held on the installment
 * (loan_installments.interest_unearned); on the period's last day, what it has earned since moves to interest
 * income, the rest once it falls due. One entry per branch and pair of accounts (the unearned_interest_recognition
 * rule in force), the per-loan detail in the step's result. The installment keeps only what is still unearned, so a
 * step run again (a retry finds it done anyway) has nothing left to move.
 */

interface UnearnedRow {
  loan_id: string;
  number: number;
  branch_id: string;
  period_start: string;
  due_date: string;
  interest_due: string;
  interest_paid: string;
  interest_unearned: string;
  interest_income_account_code: string;
}

/**
 * The installments of the enterprise holding interest paid in advance, locked: a repayment of the same installment
 * meanwhile adds to what this step leaves, after it.
 */
async function installmentsWithUnearnedInterest(trx: Knex.Transaction, enterpriseId: string): Promise<UnearnedRow[]> {
  const result = await trx.raw<{ rows: UnearnedRow[] }>(
    `SELECT i.loan_id, i.number, l.branch_id, to_char(i.due_date, 'YYYY-MM-DD') AS due_date, i.interest_due::text,
      i.interest_paid::text, i.interest_unearned::text,
            to_char(COALESCE((SELECT max(j.due_date) FROM loan_installments j WHERE j.loan_id = i.loan_id
              AND j.number < i.number), l.disbursed_on), 'YYYY-MM-DD') AS period_start,
            p.interest_income_account_code
       FROM loan_installments i JOIN loans l ON l.id = i.loan_id JOIN loan_products p ON p.id = l.product_id
      WHERE l.enterprise_id = ? AND i.interest_unearned > 0
      ORDER BY i.loan_id, i.number
        FOR UPDATE OF i`,
    [enterpriseId],
  );
  return result.rows;
}

/** What of an installment's unearned interest it has earned by `periodEnd`: all once due. */
function earnedSince(row: UnearnedRow, periodEnd: string): Money {
  const period = { from: row.period_start, dueDate: row.due_date, interestDue: new Money(row.interest_due) };
  const stillUnearned = unearnedInterest(period, new Money(row.interest_paid), periodEnd);
  // A repayment dated after the period (a month end run late) may already have taken more as income: nothing back.
  return Money.max(new Money(row.interest_unearned).minus(stillUnearned), new Money(0));
}

/** The refusal of a rule of other legs than the one this step books by. */
const unsupportedRule =
  'The unearned_interest_recognition rule must have one leg (interest received in advance / interest income) ' +
  'for the month end to book it.';

/** Step: the interest paid in advance earned by the period's last day, moved from 47220 to interest income. */
export async function recognizeUnearnedInterest(
  trx: Knex.Transaction,
  { run, post }: MonthEndStepWork,
): Promise<MonthEndStepResult> {
  const ruled = await accrualRuleOf(trx, run.enterprise_id, 'unearned_interest_recognition', unsupportedRule);
  if (ruled === undefined) return { entries: 0, amount: '0', lines: [] };
  const { rule, leg } = ruled;
  const rows = await installmentsWithUnearnedInterest(trx, run.enterprise_id);
  const recognized = rows
    .map((row) => {
      const productAccounts = { interest_income: row.interest_income_account_code };
      return {
        row,
        subjectId: row.loan_id,
        branchId: row.branch_id,
        amount: earnedSince(row, run.period_end),
        debitAccount: accountOf(leg.debit, defaultRoleAccounts, productAccounts),
        creditAccount: accountOf(leg.credit, defaultRoleAccounts, productAccounts),
      } satisfies Accrual & { row: UnearnedRow };
    })
    .filter((recognition) => !recognition.amount.isZero());
  const postings = accrualPostings(recognized, 'accrue');
  await postOnPeriodEnd({ run, post }, rule, postings, `Intérêts perçus d'avance acquis au ${run.period_end}`);
  if (recognized.length > 0) {
    await trx.raw(
      `UPDATE loan_installments i SET interest_unearned = i.interest_unearned - v.amount
         FROM json_to_recordset(?::json) AS v(loan_id uuid, number int, amount numeric)
        WHERE i.loan_id = v.loan_id AND i.number = v.number`,
      [
        JSON.stringify(
          recognized.map(({ row, amount }) => ({
            loan_id: row.loan_id,
            number: row.number,
            amount: formatAmount(amount),
          })),
        ),
      ],
    );
  }
  return {
    entries: postings.length,
    amount: formatAmount(recognized.reduce((sum, recognition) => sum.plus(recognition.amount), new Money(0))),
    lines: recognized.map((recognition) => ({
      account: recognition.debitAccount,
      amount: formatAmount(recognition.amount),
      loanId: recognition.subjectId,
    })),
  };
}
