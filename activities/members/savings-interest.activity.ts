import type { Knex } from 'knex';
import { parseIsoDate, type IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import {
  cycleStartOf,
  interestWindow,
  isMonthEnd,
  postingDue,
  postingFrequencies,
  type DayRange,
  type InterestFigures,
} from '../../domain/members/savings-interest';
import { formatAmount, Money } from '../../domain/money';
import type { MonthEndStepLine, MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { inTransaction } from '../../db/transaction';
import type { ActivityContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { logDatedEvents, postLoggedEvents, type DatedEvent } from '../events/record-dated-event';
import { heartbeat } from '../heartbeat';
import { interestFigures, interestFiguresOf, paidThroughOf, productsOf } from './interest-figures';
import { lockedPayoutAccount } from './payout-accounts';

/**
 * Savings interest at a month end (docs/domain.md §9): every account of an interest-bearing product whose posting
 * falls due at the period's end earns, from its balance history, the interest of the days not paid yet; the gross is
 * posted (interest expense to the member's deposit account), then the tax withheld (deposit account to the State),
 * both dated the period's end, and the account's kept balance moves by the net in the same transaction. One
 * transaction per batch of accounts, their rows locked first: a `savings_interest_postings` row per (account, period
 * end) makes a rerun, or a twin run, post nothing and answer the first run's figures.
 */

/** The month end a step runs for: the enterprise and the calendar month's first and last days. */
export interface MonthEndPeriod {
  enterpriseId: string;
  periodStart: IsoDate;
  periodEnd: IsoDate;
}

export type StepContext = Pick<ActivityContext, 'knex' | 'clock'>;

const invalidPeriod = (field: string, message: string) =>
  new AppError('validation', 'invalid_request', message, [{ field, message }]);

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
  if (period.periodStart !== `${period.periodEnd.slice(0, 8)}01`)
    throw invalidPeriod('periodStart', 'periodStart must be the first day of the month of periodEnd');
  const businessDate = await businessDateOf(context.knex, period.enterpriseId, context.clock());
  if (period.periodEnd > businessDate)
    throw new AppError(
      'unprocessable',
      'period_not_ended',
      `The period ends ${period.periodEnd}, after the business date ${businessDate}.`,
    );
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
    ...(row.tax === '0'
      ? []
      : [{ account: row.withholding_tax_account_code, amount: `-${row.tax}`, compteClientId: row.compte_client_id }]),
  ]);
}

export interface InterestPosting {
  account: CompteClient;
  product: SavingsProduct;
  /**
   * The account the net is paid into and its product (locked by the caller): the earning account itself unless it pays
   * to its payout account.
   */
  creditTo?: { account: CompteClient; product: SavingsProduct };
  window: DayRange;
  /** The key of the posting and its date: the period's end, or the maturity day. */
  periodEnd: IsoDate;
  occasion: 'periodic' | 'maturity';
}

/** A posting and its figures, read for its batch. */
type FiguredPosting = InterestPosting & { figures: InterestFigures & { rateAtEnd: Money } };

const keyOf = (posting: InterestPosting) =>
  // A renewed term may mature on a month end that also pays it periodically: the maturity's key is its own.
  `${posting.account.id}:${posting.occasion === 'maturity' ? 'maturity:' : ''}${posting.periodEnd}`;

/**
 * The gross, then the tax (when any), as events about the account credited: its statement shows the interest and its
 * tax.
 */
function postingEvents(posting: FiguredPosting): DatedEvent[] {
  const { account, product, window, periodEnd, figures } = posting;
  const credited = posting.creditTo ?? { account, product };
  const productAccounts = {
    member_deposits: credited.product.depositAccountCode,
    interest_expense: product.interestExpenseAccountCode,
    withholding_tax: product.withholdingTaxAccountCode,
  };
  const event = {
    enterpriseId: account.enterpriseId,
    branchId: credited.account.branchId,
    subjectId: credited.account.id,
    actorId: null,
    productAccounts,
    date: periodEnd,
  };
  const payload = {
    account: account.id,
    account_number: account.number,
    interest_from: window.from,
    interest_to: window.to,
    gross: formatAmount(figures.gross),
    tax: formatAmount(figures.tax),
  };
  const interest: DatedEvent = {
    ...event,
    kind: 'savings_interest',
    amount: figures.gross,
    payload,
    idempotencyKey: `savings-interest:${keyOf(posting)}`,
    description: `savings interest ${account.number} ${window.from} to ${window.to}`,
  };
  if (figures.tax.isZero()) return [interest];
  return [
    interest,
    {
      ...event,
      kind: 'withholding_tax',
      amount: figures.tax,
      payload,
      idempotencyKey: `withholding-tax:${keyOf(posting)}`,
      description: `tax withheld on the interest of ${account.number} ${window.from} to ${window.to}`,
    },
  ];
}

/**
 * Posts accounts' interest, the accounts locked by the caller, each over its window: per account the gross and the
 * tax as two events dated its `periodEnd` (postingEvents), the kept balance of the account credited moved by the net,
 * and the posting's row; nothing for an account whose interest rounds to zero. In a few statements for the whole
 * batch: the events logged (logDatedEvents), the balances, the rows, then the entries (postLoggedEvents). Answers the
 * entries posted.
 */
async function writeInterest(trx: Knex.Transaction, postings: readonly FiguredPosting[]): Promise<number> {
  const owed = postings.filter((posting) => !posting.figures.gross.isZero());
  if (owed.length === 0) return 0;
  const events = owed.flatMap(postingEvents);
  const drafts = await logDatedEvents(trx, events);
  const recorded = new Map(drafts.map((draft, index) => [events[index]!.idempotencyKey, draft.event]));
  const credits = owed.map((posting) => ({
    id: (posting.creditTo ?? posting).account.id,
    net: formatAmount(posting.figures.net),
  }));
  // Several term accounts may pay into one payout account: its credits are summed.
  await trx.raw(
    `
    UPDATE comptes_clients a SET balance = a.balance + c.net
      FROM (SELECT id, sum(net) AS net FROM jsonb_to_recordset(?::jsonb) AS x(id uuid, net numeric) GROUP BY id) c
     WHERE a.id = c.id`,
    [JSON.stringify(credits)],
  );
  await trx('savings_interest_postings').insert(
    owed.map((posting) => {
      const { account, product, window, figures } = posting;
      return {
        enterprise_id: account.enterpriseId,
        branch_id: account.branchId,
        compte_client_id: account.id,
        credited_account_id: (posting.creditTo ?? posting).account.id,
        period_end: posting.periodEnd,
        occasion: posting.occasion,
        interest_from: window.from,
        interest_to: window.to,
        interest_basis: product.interestBasis,
        day_count: product.dayCount,
        interest_rate: figures.rateAtEnd.toString(),
        withholding_tax_rate: product.withholdingTaxRate,
        gross: formatAmount(figures.gross),
        tax: formatAmount(figures.tax),
        net: formatAmount(figures.net),
        interest_expense_account_code: product.interestExpenseAccountCode,
        withholding_tax_account_code: product.withholdingTaxAccountCode,
        deposit_account_code: (posting.creditTo ?? posting).product.depositAccountCode,
        interest_event_id: recorded.get(`savings-interest:${keyOf(posting)}`),
        tax_event_id: recorded.get(`withholding-tax:${keyOf(posting)}`) ?? null,
      };
    }),
  );
  // Last: the first entry takes the journal's number, which a concurrent batch then waits for until this commit.
  await postLoggedEvents(trx, drafts);
  return events.length;
}

/**
 * Posts one account's interest over the window (writeInterest for one), the account locked by the caller. Answers the
 * net credited.
 */
export async function postInterest(
  trx: Knex.Transaction,
  posting: InterestPosting,
): Promise<{ net: Money; entries: number }> {
  const figures = await interestFigures(trx, posting.account, posting.product, posting.window);
  const entries = await writeInterest(trx, [{ ...posting, figures }]);
  return { net: entries === 0 ? new Money(0) : figures.net, entries };
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
    .whereExists(
      knex('savings_product_rates as r')
        .whereRaw('r.product_id = p.id')
        .where('r.annual_rate', '>', 0)
        .where('r.effective_from', '<=', period.periodEnd),
    )
    .whereIn('p.posting_frequency', due)
    .whereNot('p.interest_payment', 'at_maturity')
    .where('a.opened_on', '<=', period.periodEnd)
    .where((maturity) => maturity.whereNull('a.maturity_date').orWhere('a.maturity_date', '>', period.periodEnd))
    .whereNotExists(
      knex('savings_interest_postings as s')
        .whereRaw('s.compte_client_id = a.id')
        .where({ 's.period_end': period.periodEnd, 's.occasion': 'periodic' }),
    )
    .orderBy('a.id')
    .pluck('a.id');
}

/**
 * Where a term deposit paying to its payout account is paid, locked after the term account; undefined: the account
 * itself.
 */
async function payoutOf(
  trx: Knex.Transaction,
  account: CompteClient,
  product: SavingsProduct,
): Promise<InterestPosting['creditTo']> {
  if (product.interestPayment !== 'to_payout_account') return undefined;
  const payout = await lockedPayoutAccount(trx, account);
  return { account: payout, product: await SavingsProduct.query(trx).findById(payout.productId).throwIfNotFound() };
}

/**
 * Accounts per transaction of the savings interest: a batch's rows are locked together, its postings written in a few
 * statements.
 */
export const interestBatchSize = 1000;

/**
 * One batch of accounts' periodic postings, in one transaction, the accounts locked (in id order, as every batch
 * and the member operations take them); an account closed or posted meanwhile is skipped. Answers the entries posted.
 */
async function postBatchInterest(knex: Knex, accountIds: readonly string[], periodEnd: IsoDate): Promise<number> {
  return inTransaction(knex, async (trx) => {
    const locked = await CompteClient.query(trx).whereIn('id', accountIds).orderBy('id').forUpdate();
    const posted = new Set(
      await trx('savings_interest_postings')
        .whereIn('compte_client_id', accountIds)
        .where({ period_end: periodEnd, occasion: 'periodic' })
        .pluck('compte_client_id'),
    );
    const accounts = locked.filter((account) => account.status !== 'closed' && !posted.has(account.id));
    const products = await productsOf(trx, accounts);
    const paid = await paidThroughOf(
      trx,
      accounts.map((account) => account.id),
    );
    const due = accounts.flatMap((account) => {
      const product = products.get(account.productId)!;
      const window = interestWindow({
        openedOn: account.openedOn,
        cycleStart: cycleStartOf(product.postingFrequency, periodEnd),
        paidThrough: paid.get(account.id) ?? null,
        maturityDate: account.maturityDate,
        through: periodEnd,
      });
      return window === null ? [] : [{ account, product, window, periodEnd, occasion: 'periodic' as const }];
    });
    const figures = await interestFiguresOf(
      trx,
      due.map(({ account, product, window }) => ({ accountId: account.id, product, window })),
    );
    const postings: FiguredPosting[] = [];
    for (const [index, posting] of due.entries())
      postings.push({
        ...posting,
        creditTo: await payoutOf(trx, posting.account, posting.product),
        figures: figures[index]!,
      });
    return writeInterest(trx, postings);
  });
}

/**
 * The month-end step "savings interest": posts what is due at `periodEnd` (monthly products every month, quarterly at
 * the end of Mar/Jun/Sep/Dec, yearly at Dec), `batchSize` accounts a transaction, two at a time (a worker lost
 * mid-step leaves whole batches: the step run again finds only the accounts not posted), a heartbeat after each; and
 * answers every periodic posting of that period end, the first run's included: `entries` counts what this execution
 * posted.
 */
export async function postSavingsInterest(
  context: StepContext,
  input: MonthEndPeriod,
  batchSize = interestBatchSize,
): Promise<MonthEndStepResult> {
  await assertMonthEndPeriod(context, input);
  let entries = 0;
  let posted = 0;
  const due = await dueAccountIds(context.knex, input);
  const batches: string[][] = [];
  for (let start = 0; start < due.length; start += batchSize) batches.push(due.slice(start, start + batchSize));
  // Two batches in flight: one computes in Node while the other's statements run. Their accounts are disjoint; the
  // second waits for the first's commit only at its entries, posted last (journal_sequences' number). A failed batch
  // stops both: the other's batch ends, committed or not, before the step fails.
  let failed = false;
  const poster = async () => {
    for (let batch = batches.shift(); batch !== undefined && !failed; batch = batches.shift()) {
      try {
        const batchEntries = await postBatchInterest(context.knex, batch, input.periodEnd);
        entries += batchEntries;
      } catch (error) {
        failed = true;
        throw error;
      }
      posted += batch.length;
      heartbeat({ step: 'postSavingsInterest', accounts: posted, of: due.length });
    }
  };
  const outcomes = await Promise.allSettled([poster(), poster()]);
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  const rows: InterestPostingRow[] = await context
    .knex('savings_interest_postings')
    .where({ enterprise_id: input.enterpriseId, period_end: input.periodEnd, occasion: 'periodic' })
    .orderBy('compte_client_id')
    .select(
      'compte_client_id',
      'gross',
      'tax',
      'net',
      'interest_expense_account_code',
      'withholding_tax_account_code',
      'deposit_account_code',
    );
  const gross = rows.reduce((sum, row) => sum.plus(row.gross), new Money(0));
  return { entries, amount: formatAmount(gross), lines: interestLines(rows) };
}
