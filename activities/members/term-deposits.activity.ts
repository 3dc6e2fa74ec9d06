import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { interestWindow, monthEndOf } from '../../domain/members/savings-interest';
import { formatAmount, Money } from '../../domain/money';
import type { MonthEndStepLine, MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import { recordDatedEvent } from '../events/record-dated-event';
import { businessDateOf } from '../enterprise/configuration.activity';
import { payoutAccountAtMaturity } from './payout-accounts';
import { assertMonthEndPeriod, interestLines, paidThrough, postInterest, type InterestPostingRow, type MonthEndPeriod, type StepContext } from './savings-interest.activity';

/**
 * Term deposits reaching their term by a month end (docs/domain.md §9): the final interest (the days not paid yet,
 * up to the day before maturity), then the capital with it moved to the member's demand account, then the term
 * account closed at zero; all dated the maturity day, in one transaction per account (the term account locked, then
 * the demand account). The capital goes through 459 (internal transfers) as two events, one about each account, so
 * each member account's statement and reconciliation see their own movement. A `term_deposit_maturities` row per
 * account makes a rerun post nothing and answer the first run's figures.
 */

/** Open term accounts whose maturity falls by the period's end (an earlier month end not run included). */
const maturingAccountIds = (knex: Knex, period: MonthEndPeriod): Promise<string[]> =>
  knex('comptes_clients as a')
    .where({ 'a.enterprise_id': period.enterpriseId, 'a.status': 'open' })
    .where('a.maturity_date', '<=', period.periodEnd)
    .whereNotExists(knex('term_deposit_maturities as m').whereRaw('m.compte_client_id = a.id'))
    .orderBy('a.id')
    .pluck('a.id');

/** The capital (final interest included) moved from the term account to the payout account through 459. */
async function transferCapital(trx: Knex.Transaction, term: CompteClient, payout: CompteClient, capital: Money): Promise<{ maturity: string; payoutEvent: string }> {
  const [termProduct, payoutProduct] = await Promise.all([term.productId, payout.productId].map((id) => SavingsProduct.query(trx).findById(id).throwIfNotFound()));
  const date = term.maturityDate!;
  const payload = { account: term.id, account_number: term.number, payout_account: payout.id, payout_account_number: payout.number, maturity_date: date };
  const common = { enterpriseId: term.enterpriseId, actorId: null, amount: capital, payload, date };
  const maturity = await recordDatedEvent(trx, {
    ...common, kind: 'term_deposit_maturity', branchId: term.branchId, subjectId: term.id, productAccounts: { member_deposits: termProduct!.depositAccountCode },
    idempotencyKey: `term-deposit-maturity:${term.id}`, description: `term deposit ${term.number} matured, to ${payout.number}`,
  });
  const paid = await recordDatedEvent(trx, {
    ...common, kind: 'term_deposit_payout', branchId: payout.branchId, subjectId: payout.id, productAccounts: { member_deposits: payoutProduct!.depositAccountCode },
    idempotencyKey: `term-deposit-payout:${term.id}`, description: `term deposit ${term.number} paid to ${payout.number}`,
  });
  await trx('comptes_clients').where({ id: payout.id }).update({ balance: trx.raw('balance + ?::numeric', [formatAmount(capital)]) });
  return { maturity: maturity.eventId, payoutEvent: paid.eventId };
}

/** One term account's maturity in its own transaction: 0 entries when it was done already. */
async function matureAccount(knex: Knex, accountId: string, periodEnd: IsoDate): Promise<number> {
  return inTransaction(knex, async (trx) => {
    const term = await CompteClient.query(trx).findById(accountId).forUpdate().throwIfNotFound();
    if (term.status !== 'open' || term.maturityDate === null || (await trx('term_deposit_maturities').where({ compte_client_id: term.id }).first('id')) !== undefined) return 0;
    const payout = await CompteClient.query(trx).findById((await payoutAccountAtMaturity(trx, term)).id).forUpdate().throwIfNotFound();
    const product = await SavingsProduct.query(trx).findById(term.productId).throwIfNotFound();
    // The final interest is owed for the whole term: no cycle bound, only what earlier postings paid.
    const window = interestWindow({
      openedOn: term.openedOn, cycleStart: null, paidThrough: await paidThrough(trx, term.id), maturityDate: term.maturityDate, through: term.maturityDate,
    });
    // A product without interest posts nothing: its gross rounds to zero.
    const interest = window === null
      ? { net: new Money(0), entries: 0 }
      : await postInterest(trx, { account: term, product, window, periodEnd: term.maturityDate, occasion: 'maturity' });
    const capital = new Money(term.balance).plus(interest.net);
    const events = capital.isZero() ? null : await transferCapital(trx, term, payout, capital);
    await trx('comptes_clients').where({ id: term.id }).update({ balance: 0, status: 'closed', closed_on: term.maturityDate });
    await trx('term_deposit_maturities').insert({
      enterprise_id: term.enterpriseId, compte_client_id: term.id, payout_account_id: payout.id, maturity_date: term.maturityDate, period_end: periodEnd,
      amount: formatAmount(capital), maturity_event_id: events?.maturity ?? null, payout_event_id: events?.payoutEvent ?? null,
    });
    await recordAudit(trx, null, {
      action: 'compte_client.mature', entityType: 'compte_client', entityId: term.id, enterpriseId: term.enterpriseId,
      details: { number: term.number, maturity_date: term.maturityDate, payout_account: payout.number, amount: formatAmount(capital), month_end: periodEnd },
    });
    return interest.entries + (events === null ? 0 : 2);
  });
}

/** What the month end `periodEnd` matured: the final interest postings and the capital moved, per account. */
async function maturedBy(knex: Knex, period: MonthEndPeriod): Promise<{ amount: Money; lines: MonthEndStepLine[] }> {
  const matured: { compte_client_id: string; payout_account_id: string; amount: string; term_code: string; payout_code: string }[] = await knex('term_deposit_maturities as m')
    .join('comptes_clients as t', 't.id', 'm.compte_client_id')
    .join('savings_products as tp', 'tp.id', 't.product_id')
    .join('comptes_clients as d', 'd.id', 'm.payout_account_id')
    .join('savings_products as dp', 'dp.id', 'd.product_id')
    .where({ 'm.enterprise_id': period.enterpriseId, 'm.period_end': period.periodEnd })
    .orderBy('m.compte_client_id')
    .select('m.compte_client_id', 'm.payout_account_id', 'm.amount', 'tp.deposit_account_code as term_code', 'dp.deposit_account_code as payout_code');
  const finalInterest: InterestPostingRow[] = await knex('savings_interest_postings as s')
    .join('term_deposit_maturities as m', 'm.compte_client_id', 's.compte_client_id')
    .where({ 'm.enterprise_id': period.enterpriseId, 'm.period_end': period.periodEnd, 's.occasion': 'maturity' })
    .orderBy('s.compte_client_id')
    .select('s.compte_client_id', 's.gross', 's.tax', 's.net', 's.interest_expense_account_code', 's.withholding_tax_account_code', 's.deposit_account_code');
  const moved = matured.filter((row) => row.amount !== '0').flatMap((row) => [
    { account: row.term_code, amount: row.amount, compteClientId: row.compte_client_id },
    { account: row.payout_code, amount: `-${row.amount}`, compteClientId: row.payout_account_id },
  ]);
  return { amount: matured.reduce((sum, row) => sum.plus(row.amount), new Money(0)), lines: [...interestLines(finalInterest), ...moved] };
}

/**
 * The month-end step "term-deposit maturity": every open term account maturing by `periodEnd` matures (see above),
 * and the answer is everything this month end matured, the first run's included: `amount` is the capital moved
 * (final interest net of tax included), `entries` what this execution posted.
 */
export async function matureTermDeposits(context: StepContext, input: MonthEndPeriod): Promise<MonthEndStepResult> {
  await assertMonthEndPeriod(context, input);
  let entries = 0;
  for (const accountId of await maturingAccountIds(context.knex, input)) entries += await matureAccount(context.knex, accountId, input.periodEnd);
  const { amount, lines } = await maturedBy(context.knex, input);
  return { entries, amount: formatAmount(amount), lines };
}

/** A term account the daily run could not mature, and why. */
interface MaturityRefusal {
  account: string;
  code: string;
  message: string;
}

/**
 * The daily maturities (docs/domain.md §9): every open term account whose maturity falls by the business date
 * matures on its day, not at the next month end; each is recorded under the month end of its maturity, which then
 * answers it among what it matured. Run by the daily Schedule's workflow and by `POST …/term-deposit-maturities/runs/`.
 */
export async function matureDueTermDeposits(context: StepContext, input: { enterpriseId: string }): Promise<{ matured: number; entries: number; refused: MaturityRefusal[] }> {
  const businessDate = await businessDateOf(context.knex, input.enterpriseId, context.clock());
  const due: { id: string; maturity_date: string }[] = await context.knex('comptes_clients as a')
    .where({ 'a.enterprise_id': input.enterpriseId, 'a.status': 'open' }).where('a.maturity_date', '<=', businessDate)
    .whereNotExists(context.knex('term_deposit_maturities as m').whereRaw('m.compte_client_id = a.id'))
    .orderBy('a.id').select('a.id', context.knex.raw(`to_char(a.maturity_date, 'YYYY-MM-DD') AS maturity_date`));
  let entries = 0;
  // One account refused (no demand account to receive it) does not hold the others back; the month end refuses it again.
  const refused: MaturityRefusal[] = [];
  for (const account of due) {
    try {
      entries += await matureAccount(context.knex, account.id, monthEndOf(account.maturity_date));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      refused.push({ account: account.id, code: error.code, message: error.message });
    }
  }
  return { matured: due.length - refused.length, entries, refused };
}
