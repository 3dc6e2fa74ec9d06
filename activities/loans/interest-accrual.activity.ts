import type { Knex } from 'knex';
import { accountOf, type RuleLeg } from '../../domain/events/rules';
import { accrualPostings, type Accrual } from '../../domain/accruals';
import { accruedInterest, type AccrualInstallment } from '../../domain/loans/interest-accrual';
import { formatAmount, Money } from '../../domain/money';
import type { MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import type { MonthEndStepWork } from '../enterprise/month-end.activity';
import { defaultRoleAccounts } from '../events/default-rules';
import { postJournalEntry } from '../events/post-entry';
import { accrualRuleOf, postOnPeriodEnd } from '../enterprise/month-end-accrual';
import { currentRule } from '../events/record-business-event';
import { postEngagementsAtMonthEnd } from './off-balance';
import { insertRows } from '../../db/insert-rows';

/**
 * The loan steps of a month end (docs/domain.md §8): the previous periods' accruals reversed on this period's
 * first day, then this period's accrual on its last day, one entry per branch and pair of accounts with the
 * per-loan detail in loan_interest_accruals. The entries are dated, not on the business date, so they go
 * through postJournalEntry (as the year-end closing's do), with the lines of the interest_accrual rule in force
 * and its version on the entry. A loan reclassified doubtful has its standing accrual reversed by the
 * provisioning run (reverseStandingAccruals). A go-live import's accrual at its cut-over (docs/domain.md §15.2)
 * stands as a row naming the import, reversed by the first month end after the cut-over as these are.
 */

interface AccrualRow {
  id: string;
  loan_id: string;
  branch_id: string;
  amount: string;
  accrued_interest_account: string;
  interest_income_account: string;
  /** An imported accrual's cut-over date (YYYY-MM-DD); null for a month end's own. */
  cut_over_date: string | null;
}

/** A loan's accrual debits accrued interest receivable and credits interest income. */
const accrualOf = (row: AccrualRow): Accrual => ({
  subjectId: row.loan_id,
  branchId: row.branch_id,
  amount: new Money(row.amount),
  debitAccount: row.accrued_interest_account,
  creditAccount: row.interest_income_account,
});

const totalOf = (accruals: readonly Accrual[]) =>
  formatAmount(accruals.reduce((sum, accrual) => sum.plus(accrual.amount), new Money(0)));

/**
 * The accruals still standing (not reversed) of the enterprise, of periods before `beforePeriod` (and an imported
 * one of that very period: a cut-over within it) or of the given loans, locked: a month end and a provisioning run
 * reversing the same loan's accrual queue up here.
 */
function standingAccruals(
  trx: Knex.Transaction,
  enterpriseId: string,
  which: { beforePeriod: string } | { loanIds: readonly string[] },
): Promise<AccrualRow[]> {
  const query = trx('loan_interest_accruals as a')
    .where({ 'a.enterprise_id': enterpriseId })
    .whereNull('a.reversal_entry_id')
    .orderBy('a.id')
    .forUpdate();
  if ('beforePeriod' in which) {
    query.where((before) =>
      before
        .where('a.period', '<', which.beforePeriod)
        .orWhere((imported) => imported.whereNotNull('a.import_id').where('a.period', which.beforePeriod)),
    );
  } else query.whereIn('a.loan_id', [...which.loanIds]);
  return query.select(
    'a.id',
    'a.loan_id',
    'a.branch_id',
    'a.amount',
    'a.accrued_interest_account',
    'a.interest_income_account',
    trx.raw("(SELECT to_char(i.cut_over_date, 'YYYY-MM-DD') FROM imports i WHERE i.id = a.import_id) AS cut_over_date"),
  );
}

/**
 * Posts the reversal of `rows`, one entry per branch and pair of accounts, and marks each row reversed by its entry.
 */
async function reverse(
  trx: Knex.Transaction,
  rows: readonly AccrualRow[],
  by: 'month_end' | 'reclassification',
  post: (posting: { branchId: string; lines: ReturnType<typeof accrualPostings>[number]['lines'] }) => Promise<string>,
) {
  const postings = accrualPostings(rows.map(accrualOf), 'reverse');
  for (const posting of postings) {
    const entryId = await post(posting);
    const [debit, credit] = posting.lines.map((line) => line.account);
    const reversed = rows.filter(
      (row) =>
        row.branch_id === posting.branchId &&
        row.interest_income_account === debit &&
        row.accrued_interest_account === credit,
    );
    await trx('loan_interest_accruals')
      .whereIn(
        'id',
        reversed.map((row) => row.id),
      )
      .update({ reversal_entry_id: entryId, reversed_by: by });
  }
  return postings;
}

/**
 * Step: every accrual of an earlier period still standing, reversed on this period's first day. An imported one
 * whose cut-over falls within this period is reversed on the cut-over date: never before the opening entry that
 * carries it.
 */
export async function reverseLoanInterestAccrual(
  trx: Knex.Transaction,
  { run, post }: MonthEndStepWork,
): Promise<MonthEndStepResult> {
  const rows = await standingAccruals(trx, run.enterprise_id, { beforePeriod: run.period });
  const reversedOn = (row: AccrualRow) =>
    row.cut_over_date !== null && row.cut_over_date > run.period_start ? row.cut_over_date : run.period_start;
  let entries = 0;
  for (const date of [...new Set(rows.map(reversedOn))].sort()) {
    const postings = await reverse(
      trx,
      rows.filter((row) => reversedOn(row) === date),
      'month_end',
      (posting) =>
        post({
          branchId: posting.branchId,
          entryDate: date,
          lines: posting.lines,
          journal: 'INT',
          description: `Extourne des intérêts courus au ${date}`,
        }),
    );
    entries += postings.length;
  }
  const accruals = rows.map(accrualOf);
  return {
    entries,
    amount: totalOf(accruals),
    lines: accruals.map((accrual) => ({
      account: accrual.creditAccount,
      amount: formatAmount(accrual.amount),
      loanId: accrual.subjectId,
    })),
  };
}

interface AccruingLoanRow {
  id: string;
  branch_id: string;
  disbursed_on: string;
  interest_income_account_code: string;
  accrued_interest_account_code: string;
  installments: { due_date: string; interest_due: string; interest_paid: string }[];
}

/**
 * The loans that accrue at `periodEnd` with their schedule: disbursed by then, still running then, performing
 * then (R-2017/07 Art. 15-d: interest of an overdue or doubtful loan is income only when collected) and not in
 * litigation. Their class at the period's end is the position of the latest provisioning run as of that day or
 * before (performing without one): a month end run late must not read a class the loan took after it.
 */
async function accruingLoans(
  trx: Knex.Transaction,
  enterpriseId: string,
  periodEnd: string,
): Promise<AccruingLoanRow[]> {
  const result = await trx.raw<{ rows: AccruingLoanRow[] }>(
    `SELECT l.id, l.branch_id, to_char(l.disbursed_on, 'YYYY-MM-DD') AS disbursed_on, p.interest_income_account_code,
      p.accrued_interest_account_code,
            (SELECT json_agg(json_build_object('due_date', to_char(i.due_date, 'YYYY-MM-DD'), 'interest_due',
              i.interest_due::text, 'interest_paid', i.interest_paid::text) ORDER BY i.number)
               FROM loan_installments i WHERE i.loan_id = l.id) AS installments
       FROM loans l JOIN loan_products p ON p.id = l.product_id
      WHERE l.enterprise_id = :enterpriseId AND l.disbursed_on <= :periodEnd AND NOT l.litigious
        AND COALESCE((SELECT lp.classification FROM loan_provisions lp WHERE lp.loan_id = l.id
          AND lp.as_of <= :periodEnd ORDER BY lp.as_of DESC LIMIT 1), 'performing') = 'performing'
        AND l.status IN ('active', 'closed') AND (l.closed_on IS NULL OR l.closed_on > :periodEnd)
      ORDER BY l.id`,
    { enterpriseId, periodEnd },
  );
  return result.rows;
}

const installmentOf = (row: AccruingLoanRow['installments'][number]): AccrualInstallment => ({
  dueDate: row.due_date,
  interestDue: new Money(row.interest_due),
  interestPaid: new Money(row.interest_paid),
});

/** A loan product's accounts for the accrual's roles. */
export interface AccrualProductAccounts {
  interest_income_account_code: string;
  accrued_interest_account_code: string;
}

/**
 * The accounts a loan's accrual debits (accrued interest receivable) and credits (interest income): the rule's leg, its
 * roles read from the product.
 */
export function accrualAccountsOf(
  leg: RuleLeg,
  product: AccrualProductAccounts,
): { debitAccount: string; creditAccount: string } {
  const productAccounts = {
    interest_income: product.interest_income_account_code,
    accrued_interest: product.accrued_interest_account_code,
  };
  return {
    debitAccount: accountOf(leg.debit, defaultRoleAccounts, productAccounts),
    creditAccount: accountOf(leg.credit, defaultRoleAccounts, productAccounts),
  };
}

/**
 * The default rules' accrual (fixtures/accounting-rules.json): what an import names while the enterprise has no usable
 * rule of its own.
 */
const defaultAccrualLeg: RuleLeg = { debit: { role: 'accrued_interest' }, credit: { role: 'interest_income' } };

/**
 * The leg a month end would book an accrual with: the enterprise's interest_accrual rule of one leg, else the
 * default one. The go-live import names its accruals' accounts by it (docs/domain.md §15.2).
 */
export async function accrualLegOf(trx: Knex.Transaction, enterpriseId: string): Promise<RuleLeg> {
  const rule = await currentRule(trx, enterpriseId, 'interest_accrual');
  return rule?.is_active === true && rule.legs.length === 1 ? rule.legs[0]! : defaultAccrualLeg;
}

/** The refusal of a rule of other legs than the one this step books by. */
const unsupportedRule =
  'The interest_accrual rule must have one leg (accrued interest receivable / interest income) for the month ' +
  'end to book and reverse it.';

/** Step: this period's interest earned and not yet due on each performing loan, accrued on the period's last day. */
export async function accrueLoanInterest(
  trx: Knex.Transaction,
  { run, post }: MonthEndStepWork,
): Promise<MonthEndStepResult> {
  // The loans' off-balance engagements at the period's end ride on this step (no new step, so no workflow change).
  await postEngagementsAtMonthEnd(trx, run);
  const ruled = await accrualRuleOf(trx, run.enterprise_id, 'interest_accrual', unsupportedRule);
  if (ruled === undefined) return { entries: 0, amount: '0', lines: [] };
  const { rule, leg } = ruled;
  const accruals: Accrual[] = (await accruingLoans(trx, run.enterprise_id, run.period_end)).map((loan) => ({
    subjectId: loan.id,
    branchId: loan.branch_id,
    amount: accruedInterest(
      { disbursedOn: loan.disbursed_on, installments: loan.installments.map(installmentOf) },
      run.period_end,
    ),
    ...accrualAccountsOf(leg, loan),
  }));
  const postings = accrualPostings(accruals, 'accrue');
  await postOnPeriodEnd(
    { run, post },
    rule,
    postings,
    `Intérêts courus non échus au ${run.period_end}`,
    (posting, entryId) =>
      insertRows(
        trx,
        'loan_interest_accruals',
        posting.accruals.map((loan) => ({
          enterprise_id: run.enterprise_id,
          branch_id: loan.branchId,
          loan_id: loan.subjectId,
          run_id: run.id,
          period: run.period,
          amount: formatAmount(loan.amount),
          accrued_interest_account: loan.debitAccount,
          interest_income_account: loan.creditAccount,
          entry_id: entryId,
        })),
      ),
  );
  const booked = postings.flatMap((posting) => posting.accruals);
  return {
    entries: postings.length,
    amount: totalOf(booked),
    lines: booked.map((loan) => ({
      account: loan.debitAccount,
      amount: formatAmount(loan.amount),
      loanId: loan.subjectId,
    })),
  };
}

/**
 * At a reclassification to doubtful (the provisioning run): what was accrued on the loans and not yet reversed
 * is reversed on `date`, in the caller's transaction (R-2017/07 Art. 15-d: a doubtful loan's interest is income
 * only when collected). Answers the number of entries posted.
 */
export async function reverseStandingAccruals(
  trx: Knex.Transaction,
  input: { enterpriseId: string; loanIds: readonly string[]; date: string },
): Promise<number> {
  if (input.loanIds.length === 0) return 0;
  const rows = await standingAccruals(trx, input.enterpriseId, { loanIds: input.loanIds });
  const postings = await reverse(trx, rows, 'reclassification', (posting) =>
    postJournalEntry(trx, {
      enterpriseId: input.enterpriseId,
      branchId: posting.branchId,
      entryDate: input.date,
      lines: posting.lines,
      journal: 'INT',
      createdBy: null,
      description: 'Extourne des intérêts courus: créance déclassée douteuse',
    }),
  );
  return postings.length;
}
