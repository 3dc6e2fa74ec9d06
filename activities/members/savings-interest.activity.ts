import type { Knex } from 'knex';
import { parseIsoDate, type IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { cycleStartOf, interestOver, interestWindow, isMonthEnd, postingDue, postingFrequencies, type DayRange, type InterestFigures, type RatePeriod } from '../../domain/members/savings-interest';
import { formatAmount, Money } from '../../domain/money';
import type { MonthEndStepLine, MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { inTransaction } from '../../db/transaction';
import type { ActivityContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { recordDatedEvent } from '../events/record-dated-event';
import { accountMovements } from './account-ledger';
import { payoutAccountAtMaturity } from './payout-accounts';

/**
 * Savings interest at a month end (docs/domain.md §9): every account of an interest-bearing product whose posting
 * falls due at the period's end earns, from its balance history, the interest of the days not paid yet; the gross is
 * posted (interest expense to the member's deposit account), then the tax withheld (deposit account to the State),
 * both dated the period's end, and the account's kept balance moves by the net in the same transaction. One
 * transaction per account, its row locked first: a `savings_interest_postings` row per (account, period end) makes a
 * rerun, or a twin run, post nothing and answer the first run's figures.
 */

/** The month end a step runs for: the enterprise and the calendar month's first and last days. */
export interface MonthEndPeriod {
  enterpriseId: string;
  periodStart: IsoDate;
  periodEnd: IsoDate;
}

export type StepContext = Pick<ActivityContext, 'knex' | 'clock'>;

const invalidPeriod = (field: string, message: string) => new AppError('validation', 'invalid_request', message, [{ field, message }]);

/** A month end is a past calendar month: its postings need the whole month's movements. */
export async function assertMonthEndPeriod(context: StepContext, period: MonthEndPeriod): Promise<void> {
  for (const field of ['periodStart', 'periodEnd'] as const) {
    try {
      parseIsoDate(period[field]);
    } catch {
      throw invalidPeriod(field, `${field} must be a date as YYYY-MM-DD`);
    }
  }
  if (!isMonthEnd(period.periodEnd)) throw invalidPeriod('periodEnd', 'periodEnd must be the last day of a month');
  if (period.periodStart !== `${period.periodEnd.slice(0, 8)}01`) throw invalidPeriod('periodStart', 'periodStart must be the first day of the month of periodEnd');
  const businessDate = await businessDateOf(context.knex, period.enterpriseId, context.clock());
  if (period.periodEnd > businessDate) throw new AppError('unprocessable', 'period_not_ended', `The period ends ${period.periodEnd}, after the business date ${businessDate}.`);
}

/** A posting as the table keeps it: what an accountant checks, per account. */
export interface InterestPostingRow {
  compte_client_id: string;
  gross: string;
  tax: string;
  net: string;
  interest_expense_account_code: string;
  withholding_tax_account_code: string;
  deposit_account_code: string;
}

/** The lines of interest postings: the gross debited to the expense, the net and the tax credited, per account. */
export function interestLines(rows: readonly InterestPostingRow[]): MonthEndStepLine[] {
  return rows.flatMap((row) => [
    { account: row.interest_expense_account_code, amount: row.gross, compteClientId: row.compte_client_id },
    { account: row.deposit_account_code, amount: `-${row.net}`, compteClientId: row.compte_client_id },
    ...(row.tax === '0' ? [] : [{ account: row.withholding_tax_account_code, amount: `-${row.tax}`, compteClientId: row.compte_client_id }]),
  ]);
}

/** The account's balance at the end of the day before the window, and its movements within it: the ledger's, and an imported account's opening. */
async function balanceHistory(trx: Knex.Transaction, accountId: string, window: DayRange) {
  const movements = accountMovements(trx).where('m.account', accountId);
  const opening = await movements.clone().where('m.entry_date', '<', window.from).first(trx.raw('coalesce(sum(m.amount), 0)::text AS amount'));
  const days: { date: string; amount: string }[] = await movements
    .clone()
    .whereBetween('m.entry_date', [window.from, window.to])
    .groupBy('m.entry_date')
    .select(trx.raw(`to_char(m.entry_date, 'YYYY-MM-DD') AS date`), trx.raw('sum(m.amount)::text AS amount'));
  return { opening: new Money(opening.amount), movements: days.map((day) => ({ date: day.date, amount: new Money(day.amount) })) };
}

/** The last day an account was paid interest for, if ever. */
export async function paidThrough(trx: Knex.Transaction, accountId: string): Promise<IsoDate | null> {
  const row = await trx('savings_interest_postings').where({ compte_client_id: accountId }).first(trx.raw(`to_char(max(interest_to), 'YYYY-MM-DD') AS paid_through`));
  return (row?.paid_through as string | null | undefined) ?? null;
}

/** A product's rates, oldest first (docs/domain.md §9: a change applies from its date). */
async function ratesOf(trx: Knex.Transaction, productId: string): Promise<RatePeriod[]> {
  const rows: { from: string; annual_rate: string }[] = await trx('savings_product_rates').where({ product_id: productId }).orderBy('effective_from')
    .select(trx.raw(`to_char(effective_from, 'YYYY-MM-DD') AS "from"`), 'annual_rate');
  return rows.map((row) => ({ from: row.from, annualRate: new Money(row.annual_rate) }));
}

/**
 * The figures of an account's interest over a window, its product's terms and rates (or `rates` given: a term
 * deposit closed early earns its product's penalty rate instead); the rate in force at the window's end beside them.
 */
export async function interestFigures(
  trx: Knex.Transaction, account: CompteClient, product: SavingsProduct, window: DayRange, given?: readonly RatePeriod[],
): Promise<InterestFigures & { rateAtEnd: Money }> {
  const rates = given ?? await ratesOf(trx, product.id);
  const terms = { basis: product.interestBasis, dayCount: product.dayCount, rates, withholdingTaxRate: new Money(product.withholdingTaxRate) };
  const rateAtEnd = [...rates].reverse().find((rate) => rate.from <= window.to)?.annualRate ?? new Money(0);
  return { ...interestOver(await balanceHistory(trx, account.id, window), window, terms), rateAtEnd };
}

export interface InterestPosting {
  account: CompteClient;
  product: SavingsProduct;
  /** The account the net is paid into and its product (locked by the caller): the earning account itself unless it pays to its payout account. */
  creditTo?: { account: CompteClient; product: SavingsProduct };
  window: DayRange;
  /** The key of the posting and its date: the period's end, or the maturity day. */
  periodEnd: IsoDate;
  occasion: 'periodic' | 'maturity';
}

/**
 * Posts an account's interest over the window, the account locked by the caller: the gross, then the tax, as two
 * events about the account dated `periodEnd`, its balance moved by the net, and the posting's row. Nothing when the
 * interest rounds to zero. Answers the net credited.
 */
export async function postInterest(trx: Knex.Transaction, posting: InterestPosting): Promise<{ net: Money; entries: number }> {
  const { account, product, window, periodEnd } = posting;
  const credited = posting.creditTo ?? { account, product };
  const figures = await interestFigures(trx, account, product, window);
  if (figures.gross.isZero()) return { net: new Money(0), entries: 0 };
  const productAccounts = {
    member_deposits: credited.product.depositAccountCode, interest_expense: product.interestExpenseAccountCode, withholding_tax: product.withholdingTaxAccountCode,
  };
  // The events are about the account credited: its statement shows the interest and its tax.
  const event = { enterpriseId: account.enterpriseId, branchId: credited.account.branchId, subjectId: credited.account.id, actorId: null, productAccounts, date: periodEnd };
  const payload = {
    account: account.id, account_number: account.number, interest_from: window.from, interest_to: window.to, gross: formatAmount(figures.gross), tax: formatAmount(figures.tax),
  };
  // A renewed term may mature on a month end that also pays it periodically: the maturity's key is its own.
  const key = `${account.id}:${posting.occasion === 'maturity' ? 'maturity:' : ''}${periodEnd}`;
  const interest = await recordDatedEvent(trx, {
    ...event, kind: 'savings_interest', amount: figures.gross, payload, idempotencyKey: `savings-interest:${key}`,
    description: `savings interest ${account.number} ${window.from} to ${window.to}`,
  });
  const tax = figures.tax.isZero()
    ? null
    : await recordDatedEvent(trx, {
        ...event, kind: 'withholding_tax', amount: figures.tax, payload, idempotencyKey: `withholding-tax:${key}`,
        description: `tax withheld on the interest of ${account.number} ${window.from} to ${window.to}`,
      });
  await trx('comptes_clients').where({ id: credited.account.id }).update({ balance: trx.raw('balance + ?::numeric', [formatAmount(figures.net)]) });
  await trx('savings_interest_postings').insert({
    enterprise_id: account.enterpriseId, branch_id: account.branchId, compte_client_id: account.id, credited_account_id: credited.account.id,
    period_end: periodEnd, occasion: posting.occasion,
    interest_from: window.from, interest_to: window.to, interest_basis: product.interestBasis, day_count: product.dayCount, interest_rate: figures.rateAtEnd.toString(),
    withholding_tax_rate: product.withholdingTaxRate, gross: formatAmount(figures.gross), tax: formatAmount(figures.tax), net: formatAmount(figures.net),
    interest_expense_account_code: product.interestExpenseAccountCode, withholding_tax_account_code: product.withholdingTaxAccountCode,
    deposit_account_code: credited.product.depositAccountCode, interest_event_id: interest.eventId, tax_event_id: tax?.eventId ?? null,
  });
  return { net: figures.net, entries: tax === null ? 1 : 2 };
}

/**
 * The accounts that may earn a periodic posting at this month end: not closed (a frozen account still earns: the
 * freeze stops the member's movements, not the contract), of a product with a rate whose posting falls due, opened
 * by the period's end, not yet posted for it; a term account maturing by then is left to its maturity, and a term
 * product paying at maturity has no periodic posting (its interest is accrued meanwhile).
 */
async function dueAccountIds(knex: Knex, period: MonthEndPeriod): Promise<string[]> {
  const due = postingFrequencies.filter((frequency) => postingDue(frequency, period.periodEnd));
  return knex('comptes_clients as a')
    .join('savings_products as p', 'p.id', 'a.product_id')
    .where({ 'a.enterprise_id': period.enterpriseId })
    .whereNot('a.status', 'closed')
    .whereExists(knex('savings_product_rates as r').whereRaw('r.product_id = p.id').where('r.annual_rate', '>', 0).where('r.effective_from', '<=', period.periodEnd))
    .whereIn('p.posting_frequency', due)
    .whereNot('p.interest_payment', 'at_maturity')
    .where('a.opened_on', '<=', period.periodEnd)
    .where((maturity) => maturity.whereNull('a.maturity_date').orWhere('a.maturity_date', '>', period.periodEnd))
    .whereNotExists(knex('savings_interest_postings as s').whereRaw('s.compte_client_id = a.id').where({ 's.period_end': period.periodEnd, 's.occasion': 'periodic' }))
    .orderBy('a.id')
    .pluck('a.id');
}

/** Where a term deposit paying to its payout account is paid, locked after the term account; undefined: the account itself. */
async function payoutOf(trx: Knex.Transaction, account: CompteClient, product: SavingsProduct): Promise<InterestPosting['creditTo']> {
  if (product.interestPayment !== 'to_payout_account') return undefined;
  const payout = await CompteClient.query(trx).findById((await payoutAccountAtMaturity(trx, account)).id).forUpdate().throwIfNotFound();
  return { account: payout, product: await SavingsProduct.query(trx).findById(payout.productId).throwIfNotFound() };
}

/** One account's periodic posting, in its own transaction, the account locked; 0 entries when already done or nothing is owed. */
async function postAccountInterest(knex: Knex, accountId: string, periodEnd: IsoDate): Promise<number> {
  return inTransaction(knex, async (trx) => {
    const account = await CompteClient.query(trx).findById(accountId).forUpdate().throwIfNotFound();
    const posted = await trx('savings_interest_postings').where({ compte_client_id: accountId, period_end: periodEnd, occasion: 'periodic' }).first('id');
    if (account.status === 'closed' || posted !== undefined) return 0;
    const product = await SavingsProduct.query(trx).findById(account.productId).throwIfNotFound();
    const window = interestWindow({
      openedOn: account.openedOn,
      cycleStart: cycleStartOf(product.postingFrequency, periodEnd),
      paidThrough: await paidThrough(trx, accountId),
      maturityDate: account.maturityDate,
      through: periodEnd,
    });
    if (window === null) return 0;
    return (await postInterest(trx, { account, product, creditTo: await payoutOf(trx, account, product), window, periodEnd, occasion: 'periodic' })).entries;
  });
}

/**
 * The month-end step "savings interest": posts what is due at `periodEnd` (monthly products every month, quarterly at
 * the end of Mar/Jun/Sep/Dec, yearly at Dec), account by account, and answers every periodic posting of that period
 * end, the first run's included: `entries` counts what this execution posted.
 */
export async function postSavingsInterest(context: StepContext, input: MonthEndPeriod): Promise<MonthEndStepResult> {
  await assertMonthEndPeriod(context, input);
  let entries = 0;
  for (const accountId of await dueAccountIds(context.knex, input)) entries += await postAccountInterest(context.knex, accountId, input.periodEnd);
  const rows: InterestPostingRow[] = await context.knex('savings_interest_postings')
    .where({ enterprise_id: input.enterpriseId, period_end: input.periodEnd, occasion: 'periodic' })
    .orderBy('compte_client_id')
    .select('compte_client_id', 'gross', 'tax', 'net', 'interest_expense_account_code', 'withholding_tax_account_code', 'deposit_account_code');
  const gross = rows.reduce((sum, row) => sum.plus(row.gross), new Money(0));
  return { entries, amount: formatAmount(gross), lines: interestLines(rows) };
}
