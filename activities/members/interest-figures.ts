import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import {
  interestOver,
  type BalanceHistory,
  type DayRange,
  type InterestFigures,
  type RatePeriod,
} from '../../domain/members/savings-interest';
import { Money } from '../../domain/money';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { accountMovements } from './account-ledger';

/**
 * The reads behind savings interest (docs/domain.md §9), a batch of accounts at a time: a month end reads every
 * account's balance history, last day paid, product rates and contract rates in four statements per batch, not
 * four per account. The figures themselves are interestOver's, in decimal.js, one account at a time: the rounding
 * stays the one rule of domain/members/savings-interest.ts.
 */

/** The last day each account was paid interest for; an account never paid is absent. */
export async function paidThroughOf(
  trx: Knex.Transaction,
  accountIds: readonly string[],
): Promise<Map<string, IsoDate>> {
  if (accountIds.length === 0) return new Map();
  const rows: { compte_client_id: string; paid_through: string }[] = await trx('savings_interest_postings')
    .whereIn('compte_client_id', accountIds)
    .groupBy('compte_client_id')
    .select('compte_client_id', trx.raw(`to_char(max(interest_to), 'YYYY-MM-DD') AS paid_through`));
  return new Map(rows.map((row) => [row.compte_client_id, row.paid_through]));
}

/** The last day an account was paid interest for, if ever. */
export async function paidThrough(trx: Knex.Transaction, accountId: string): Promise<IsoDate | null> {
  return (await paidThroughOf(trx, [accountId])).get(accountId) ?? null;
}

/** Each product's rates, oldest first (docs/domain.md §9: a change applies from its date). */
async function ratesOf(trx: Knex.Transaction, productIds: readonly string[]): Promise<Map<string, RatePeriod[]>> {
  const rows: { product_id: string; from: string; annual_rate: string }[] = await trx('savings_product_rates')
    .whereIn('product_id', productIds)
    .orderBy(['product_id', 'effective_from'])
    .select('product_id', trx.raw(`to_char(effective_from, 'YYYY-MM-DD') AS "from"`), 'annual_rate');
  const rates = new Map<string, RatePeriod[]>(productIds.map((id) => [id, []]));
  for (const row of rows) rates.get(row.product_id)!.push({ from: row.from, annualRate: new Money(row.annual_rate) });
  return rates;
}

/** The accounts with a rate of their own (an imported term deposit's contract: docs/domain.md §9), by id. */
async function contractRatesOf(
  trx: Knex.Transaction,
  accountIds: readonly string[],
): Promise<Map<string, RatePeriod[]>> {
  const rows: { id: string; contract_rate: string }[] = await trx('comptes_clients')
    .whereIn('id', accountIds)
    .whereNotNull('contract_rate')
    .select('id', 'contract_rate');
  return new Map(rows.map((row) => [row.id, [{ from: '1900-01-01', annualRate: new Money(row.contract_rate) }]]));
}

/** An account whose interest is wanted over a window, with its product's terms; a batch holds each account once. */
export interface InterestSubject {
  accountId: string;
  product: SavingsProduct;
  window: DayRange;
  /** Rates given instead of the product's (a term deposit closed early earns its penalty rate). */
  rates?: readonly RatePeriod[];
}

/**
 * Each account's balance at the end of the day before its window, and its movements within it, in one statement:
 * the ledger's lines and an imported account's opening balance (account-ledger.ts), those before the window summed
 * into one row (day null), those within it by day.
 */
async function balanceHistories(
  trx: Knex.Transaction,
  subjects: readonly InterestSubject[],
): Promise<Map<string, BalanceHistory>> {
  const windows = [
    subjects.map((subject) => subject.accountId),
    subjects.map((subject) => subject.window.from),
    subjects.map((subject) => subject.window.to),
  ];
  const rows: { account_id: string; day: string | null; amount: string }[] = await accountMovements(
    trx,
    subjects.map((subject) => subject.accountId),
  )
    .joinRaw(
      'JOIN unnest(?::uuid[], ?::date[], ?::date[]) AS w(account_id, from_date, to_date) ON w.account_id = m.account',
      windows,
    )
    .whereRaw('m.entry_date <= w.to_date')
    .groupByRaw('1, 2')
    .select(
      'w.account_id',
      trx.raw(`CASE WHEN m.entry_date < w.from_date THEN NULL ELSE to_char(m.entry_date, 'YYYY-MM-DD') END AS day`),
      trx.raw('sum(m.amount)::text AS amount'),
    );
  const histories = new Map<string, { opening: Money; movements: { date: IsoDate; amount: Money }[] }>(
    subjects.map((subject) => [subject.accountId, { opening: new Money(0), movements: [] }]),
  );
  for (const row of rows) {
    const history = histories.get(row.account_id)!;
    if (row.day === null) history.opening = new Money(row.amount);
    else history.movements.push({ date: row.day, amount: new Money(row.amount) });
  }
  return histories;
}

/**
 * The figures of each account's interest over its window, its product's terms and rates (or its own contract rate,
 * or the rates given); the rate in force at the window's end beside them. In the subjects' order.
 */
export async function interestFiguresOf(
  trx: Knex.Transaction,
  subjects: readonly InterestSubject[],
): Promise<(InterestFigures & { rateAtEnd: Money })[]> {
  if (subjects.length === 0) return [];
  const rates = await ratesOf(trx, [...new Set(subjects.map((subject) => subject.product.id))]);
  const histories = await balanceHistories(trx, subjects);
  const contracts = await contractRatesOf(
    trx,
    subjects.map((subject) => subject.accountId),
  );
  return subjects.map(({ accountId, product, window, rates: given }) => {
    const inForce = given ?? contracts.get(accountId) ?? rates.get(product.id)!;
    const terms = {
      basis: product.interestBasis,
      dayCount: product.dayCount,
      rates: inForce,
      withholdingTaxRate: new Money(product.withholdingTaxRate),
    };
    const rateAtEnd = [...inForce].reverse().find((rate) => rate.from <= window.to)?.annualRate ?? new Money(0);
    return { ...interestOver(histories.get(accountId)!, window, terms), rateAtEnd };
  });
}

/** One account's figures (interestFiguresOf for one). */
export async function interestFigures(
  trx: Knex.Transaction,
  account: { id: string },
  product: SavingsProduct,
  window: DayRange,
  rates?: readonly RatePeriod[],
): Promise<InterestFigures & { rateAtEnd: Money }> {
  return (
    await interestFiguresOf(trx, [
      { accountId: account.id, product, window, ...(rates === undefined ? {} : { rates }) },
    ])
  )[0]!;
}

/** The products of the accounts, by id. */
export async function productsOf(
  trx: Knex.Transaction,
  accounts: readonly { productId: string }[],
): Promise<Map<string, SavingsProduct>> {
  const products = await SavingsProduct.query(trx).whereIn('id', [
    ...new Set(accounts.map((account) => account.productId)),
  ]);
  return new Map(products.map((product) => [product.id, product]));
}
