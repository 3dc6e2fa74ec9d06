import type { Knex } from 'knex';
import { accrualPostings, type Accrual } from '../../domain/accruals';
import { accountOf, type RuleLeg } from '../../domain/events/rules';
import type { MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import { cycleStartOf, interestWindow, postingDue } from '../../domain/members/savings-interest';
import { formatAmount, Money } from '../../domain/money';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import type { MonthEndStepWork } from '../enterprise/month-end.activity';
import { defaultRoleAccounts } from '../events/default-rules';
import { accrualRuleOf, postOnPeriodEnd } from '../enterprise/month-end-accrual';
import { heartbeat } from '../heartbeat';
import { interestFiguresOf, paidThroughOf, productsOf } from './interest-figures';
import { interestBatchSize } from './savings-interest.activity';
import { insertRows } from '../../db/insert-rows';

/**
 * Savings interest accrued at a month end (docs/domain.md §9): every account that earns interest and is not paid it
 * this month end (a quarterly or yearly product between its postings, a term deposit paying at maturity) has the
 * interest it has earned since it was last paid booked on the month's last day, expense against interest payable
 * (dettes rattachées), one entry per branch and pair of accounts with the per-account detail in
 * savings_interest_accruals; the next month end reverses it on its first day, before it accrues or posts again. So
 * each month's income statement carries the month's interest whatever the product's posting frequency.
 */

interface AccrualRow {
  id: string;
  compte_client_id: string;
  branch_id: string;
  amount: string;
  interest_expense_account: string;
  accrued_interest_account: string;
}

/** An account's accrual debits the interest expense and credits the interest payable. */
const accrualOf = (row: AccrualRow): Accrual & { rowId: string } => ({
  rowId: row.id,
  subjectId: row.compte_client_id,
  branchId: row.branch_id,
  amount: new Money(row.amount),
  debitAccount: row.interest_expense_account,
  creditAccount: row.accrued_interest_account,
});

const totalOf = (accruals: readonly Accrual[]) =>
  formatAmount(accruals.reduce((sum, accrual) => sum.plus(accrual.amount), new Money(0)));

/** Step: every savings accrual of an earlier period still standing, reversed on this period's first day. */
export async function reverseSavingsInterestAccrual(
  trx: Knex.Transaction,
  { run, post }: MonthEndStepWork,
): Promise<MonthEndStepResult> {
  const rows: AccrualRow[] = await trx('savings_interest_accruals')
    .where({ enterprise_id: run.enterprise_id })
    .whereNull('reversal_entry_id')
    .where('period', '<', run.period)
    .orderBy('id')
    .forUpdate()
    .select('id', 'compte_client_id', 'branch_id', 'amount', 'interest_expense_account', 'accrued_interest_account');
  const accruals = rows.map(accrualOf);
  const postings = accrualPostings(accruals, 'reverse');
  for (const posting of postings) {
    const entryId = await post({
      branchId: posting.branchId,
      entryDate: run.period_start,
      lines: posting.lines,
      journal: 'INT',
      description: `Extourne des intérêts courus sur l'épargne au ${run.period_start}`,
    });
    await trx('savings_interest_accruals')
      .whereIn(
        'id',
        posting.accruals.map((accrual) => accrual.rowId),
      )
      .update({ reversal_entry_id: entryId });
  }
  return {
    entries: postings.length,
    amount: totalOf(accruals),
    lines: accruals.map((accrual) => ({
      account: accrual.creditAccount,
      amount: formatAmount(accrual.amount),
      compteClientId: accrual.subjectId,
    })),
  };
}

/**
 * The accounts that accrue at the period's end: not closed, opened by then, of a product with a rate in force
 * whose posting does not fall due at this month end; a term account maturing by then is paid at its maturity.
 */
async function accruingAccounts(
  trx: Knex.Transaction,
  enterpriseId: string,
  periodEnd: string,
): Promise<{ account: CompteClient; product: SavingsProduct }[]> {
  const accounts = await CompteClient.query(trx)
    .alias('a')
    .join('savings_products as p', 'p.id', 'a.product_id')
    .where('a.enterprise_id', enterpriseId)
    .whereNot('a.status', 'closed')
    .where('a.opened_on', '<=', periodEnd)
    .where((maturity) => maturity.whereNull('a.maturity_date').orWhere('a.maturity_date', '>', periodEnd))
    .whereExists(
      trx('savings_product_rates as r')
        .whereRaw('r.product_id = p.id')
        .where('r.annual_rate', '>', 0)
        .where('r.effective_from', '<=', periodEnd),
    )
    .orderBy('a.id')
    .select('a.*');
  const products = await productsOf(trx, accounts);
  const paidNow = (product: SavingsProduct) =>
    product.interestPayment !== 'at_maturity' && postingDue(product.postingFrequency, periodEnd);
  return accounts
    .map((account) => ({ account, product: products.get(account.productId)! }))
    .filter(({ product }) => !paidNow(product));
}

/** A batch of accruing accounts' interest earned and not paid by the period's end, read in a few statements. */
async function accruedInterest(
  trx: Knex.Transaction,
  batch: readonly { account: CompteClient; product: SavingsProduct }[],
  periodEnd: string,
): Promise<{ account: CompteClient; product: SavingsProduct; from: string; amount: Money }[]> {
  const paid = await paidThroughOf(
    trx,
    batch.map(({ account }) => account.id),
  );
  const owing = batch.flatMap(({ account, product }) => {
    // A term paid at maturity owes its interest from its first day (opening or renewal, after the last paid), not from
    // the cycle's.
    const cycleStart =
      product.interestPayment === 'at_maturity' ? null : cycleStartOf(product.postingFrequency, periodEnd);
    const window = interestWindow({
      openedOn: account.openedOn,
      cycleStart,
      paidThrough: paid.get(account.id) ?? null,
      maturityDate: account.maturityDate,
      through: periodEnd,
    });
    return window === null ? [] : [{ account, product, window }];
  });
  const figures = await interestFiguresOf(
    trx,
    owing.map(({ account, product, window }) => ({ accountId: account.id, product, window })),
  );
  return owing.map(({ account, product, window }, index) => ({
    account,
    product,
    from: window.from,
    amount: figures[index]!.gross,
  }));
}

/** The accruals of the enterprise's accounts, read in batches, each with its leg's accounts. */
async function accrualsOf(
  trx: Knex.Transaction,
  run: MonthEndStepWork['run'],
  leg: RuleLeg,
): Promise<(Accrual & { from: string })[]> {
  const accruals: (Accrual & { from: string })[] = [];
  const accruing = await accruingAccounts(trx, run.enterprise_id, run.period_end);
  for (let start = 0; start < accruing.length; start += interestBatchSize) {
    for (const { account, product, from, amount } of await accruedInterest(
      trx,
      accruing.slice(start, start + interestBatchSize),
      run.period_end,
    )) {
      const productAccounts = {
        interest_expense: product.interestExpenseAccountCode,
        accrued_interest_payable: product.accruedInterestAccountCode,
      };
      accruals.push({
        subjectId: account.id,
        branchId: account.branchId,
        from,
        amount,
        debitAccount: accountOf(leg.debit, defaultRoleAccounts, productAccounts),
        creditAccount: accountOf(leg.credit, defaultRoleAccounts, productAccounts),
      });
    }
    heartbeat({
      step: 'accrueSavingsInterest',
      accounts: Math.min(start + interestBatchSize, accruing.length),
      of: accruing.length,
    });
  }
  return accruals;
}

/** The refusal of a rule of other legs than the one this step books by. */
const unsupportedRule =
  'The savings_interest_accrual rule must have one leg (interest expense / interest payable) for the ' +
  'month end to book and reverse it.';

/** Step: the interest each account has earned and not been paid, accrued on the period's last day. */
export async function accrueSavingsInterest(
  trx: Knex.Transaction,
  { run, post }: MonthEndStepWork,
): Promise<MonthEndStepResult> {
  const ruled = await accrualRuleOf(trx, run.enterprise_id, 'savings_interest_accrual', unsupportedRule);
  if (ruled === undefined) return { entries: 0, amount: '0', lines: [] };
  const { rule, leg } = ruled;
  const accruals = await accrualsOf(trx, run, leg);
  const postings = accrualPostings(accruals, 'accrue');
  const description = `Intérêts courus sur l'épargne au ${run.period_end}`;
  await postOnPeriodEnd({ run, post }, rule, postings, description, (posting, entryId) =>
    insertRows(
      trx,
      'savings_interest_accruals',
      posting.accruals.map((accrual) => ({
        enterprise_id: run.enterprise_id,
        branch_id: accrual.branchId,
        compte_client_id: accrual.subjectId,
        run_id: run.id,
        period: run.period,
        accrued_from: accrual.from,
        accrued_to: run.period_end,
        amount: formatAmount(accrual.amount),
        interest_expense_account: accrual.debitAccount,
        accrued_interest_account: accrual.creditAccount,
        entry_id: entryId,
      })),
    ),
  );
  const booked = postings.flatMap((posting) => posting.accruals);
  const lines = booked.map((accrual) => ({
    account: accrual.debitAccount,
    amount: formatAmount(accrual.amount),
    compteClientId: accrual.subjectId,
  }));
  return { entries: postings.length, amount: totalOf(booked), lines };
}
