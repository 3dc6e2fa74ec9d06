import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { interestWindow, maturityDateOf, monthEndOf } from '../../domain/members/savings-interest';
import { termMonthsBetween, type MaturityInstruction } from '../../domain/members/term-deposits';
import { formatAmount, Money } from '../../domain/money';
import type { MonthEndStepLine, MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import { recordDatedEvent } from '../events/record-dated-event';
import { heartbeat } from '../heartbeat';
import { businessDateOf } from '../enterprise/configuration.activity';
import { lockedPayoutAccount } from './payout-accounts';
import { paidThrough } from './interest-figures';
import { postingFigureColumns } from './savings-interest.queries';
import {
  assertMonthEndPeriod,
  interestLines,
  postInterest,
  type InterestPostingRow,
  type MonthEndPeriod,
  type StepContext,
} from './savings-interest.activity';
import type { Refusal } from '../../domain/refusal';

/**
 * Term deposits reaching their term by a month end (docs/domain.md §9): the final interest (the days not paid yet,
 * up to the day before maturity), then what the product's maturity instruction says: the capital with it moved to
 * the member's demand account and the term account closed at zero (`pay_out`), or the account renewed for a new
 * term of the same length, the interest paid out (`renew`) or kept as principal (`renew_with_interest`); all dated
 * the maturity day, in one transaction per account (the term account locked, then the demand account). A renewed
 * account keeps its number, statement and payout account, and matures again: its maturity rows, one per (account,
 * maturity day), are its terms' history. Money moves through 459 (internal transfers) as two events, one about each
 * account, so each member account's statement and reconciliation see their own movement. The row makes a rerun
 * post nothing and answer the first run's figures.
 */

/** Open term accounts whose maturity falls by the period's end (an earlier month end not run included). */
const maturingAccountIds = (knex: Knex, period: MonthEndPeriod): Promise<string[]> =>
  knex('comptes_clients as a')
    .where({ 'a.enterprise_id': period.enterpriseId, 'a.status': 'open' })
    .where('a.maturity_date', '<=', period.periodEnd)
    .whereNotExists(
      knex('term_deposit_maturities as m').whereRaw('m.compte_client_id = a.id AND m.maturity_date = a.maturity_date'),
    )
    .orderBy('a.id')
    .pluck('a.id');

/**
 * The first day of an account's running term: the day of its last renewal (the maturity before the current one), or
 * its opening day.
 */
export async function termStartOf(trx: Knex.Transaction, term: CompteClient): Promise<IsoDate> {
  const renewed = await trx('term_deposit_maturities')
    .where({ compte_client_id: term.id })
    .where('maturity_date', '<', term.maturityDate!)
    .first(trx.raw(`to_char(max(maturity_date), 'YYYY-MM-DD') AS day`));
  return (renewed?.day as string | null | undefined) ?? term.openedOn;
}

/** `amount` credited to the member's demand account, from 459, by an event about it; its kept balance moved alike. */
export async function creditPayoutAccount(
  trx: Knex.Transaction,
  transfer: { term: CompteClient; payout: CompteClient; amount: Money; date: IsoDate; key: string },
): Promise<string> {
  const { term, payout, amount, date } = transfer;
  const payoutProduct = await SavingsProduct.query(trx).findById(payout.productId).throwIfNotFound();
  const paid = await recordDatedEvent(trx, {
    enterpriseId: term.enterpriseId,
    actorId: null,
    amount,
    date,
    kind: 'term_deposit_payout',
    branchId: payout.branchId,
    subjectId: payout.id,
    payload: {
      account: term.id,
      account_number: term.number,
      payout_account: payout.id,
      payout_account_number: payout.number,
      date,
    },
    productAccounts: { member_deposits: payoutProduct.depositAccountCode },
    idempotencyKey: `term-deposit-payout:${transfer.key}`,
    description: `term deposit ${term.number} paid to ${payout.number}`,
  });
  await trx('comptes_clients')
    .where({ id: payout.id })
    .update({ balance: trx.raw('balance + ?::numeric', [formatAmount(amount)]) });
  return paid.eventId;
}

/**
 * What leaves the term account at maturity (capital, final interest or only the interest) for the payout account
 * through 459.
 */
async function transferAtMaturity(
  trx: Knex.Transaction,
  term: CompteClient,
  payout: CompteClient,
  amount: Money,
): Promise<{ maturity: string; payoutEvent: string }> {
  const termProduct = await SavingsProduct.query(trx).findById(term.productId).throwIfNotFound();
  const date = term.maturityDate!;
  const key = `${term.id}:${date}`;
  const maturity = await recordDatedEvent(trx, {
    enterpriseId: term.enterpriseId,
    actorId: null,
    amount,
    date,
    kind: 'term_deposit_maturity',
    branchId: term.branchId,
    subjectId: term.id,
    payload: {
      account: term.id,
      account_number: term.number,
      payout_account: payout.id,
      payout_account_number: payout.number,
      maturity_date: date,
    },
    productAccounts: { member_deposits: termProduct.depositAccountCode },
    idempotencyKey: `term-deposit-maturity:${key}`,
    description: `term deposit ${term.number} matured, to ${payout.number}`,
  });
  return {
    maturity: maturity.eventId,
    payoutEvent: await creditPayoutAccount(trx, { term, payout, amount, date, key }),
  };
}

/**
 * What a maturity does with the principal and its final interest (net): moved to the payout account, renewed, or both.
 */
function settleAtMaturity(
  instruction: MaturityInstruction,
  principal: Money,
  interest: Money,
): { moved: Money; renewed: Money | null } {
  if (instruction === 'renew') return { moved: interest, renewed: principal };
  if (instruction === 'renew_with_interest') return { moved: new Money(0), renewed: principal.plus(interest) };
  return { moved: principal.plus(interest), renewed: null };
}

/** The final interest of the term: owed for the whole term, no cycle bound, only what earlier postings paid. */
async function postFinalInterest(
  trx: Knex.Transaction,
  term: CompteClient,
  product: SavingsProduct,
): Promise<{ net: Money; entries: number }> {
  const window = interestWindow({
    openedOn: await termStartOf(trx, term),
    cycleStart: null,
    paidThrough: await paidThrough(trx, term.id),
    maturityDate: term.maturityDate,
    through: term.maturityDate!,
  });
  // A product without interest posts nothing: its gross rounds to zero.
  if (window === null) return { net: new Money(0), entries: 0 };
  return postInterest(trx, { account: term, product, window, periodEnd: term.maturityDate!, occasion: 'maturity' });
}

/** One term account's maturity in its own transaction: matured false when it was done already. */
async function matureAccount(
  knex: Knex,
  accountId: string,
  periodEnd: IsoDate,
): Promise<{ matured: boolean; entries: number }> {
  return inTransaction(knex, async (trx) => {
    const term = await CompteClient.query(trx).findById(accountId).forUpdate().throwIfNotFound();
    const date = term.maturityDate;
    if (
      term.status !== 'open' ||
      date === null ||
      (await trx('term_deposit_maturities').where({ compte_client_id: term.id, maturity_date: date }).first('id')) !==
        undefined
    ) {
      return { matured: false, entries: 0 };
    }
    const product = await SavingsProduct.query(trx).findById(term.productId).throwIfNotFound();
    const instruction = product.maturityInstruction ?? 'pay_out';
    const interest = await postFinalInterest(trx, term, product);
    const { moved, renewed } = settleAtMaturity(instruction, new Money(term.balance), interest.net);
    // Paid out, the capital needs a demand account even when nothing is left to move; renewed, only if money moves.
    const payout = instruction === 'pay_out' || !moved.isZero() ? await lockedPayoutAccount(trx, term) : null;
    const events = moved.isZero() ? null : await transferAtMaturity(trx, term, payout!, moved);
    const renewedUntil =
      renewed === null ? null : maturityDateOf(date, termMonthsBetween(await termStartOf(trx, term), date));
    await trx('comptes_clients')
      .where({ id: term.id })
      .update(
        renewedUntil === null
          ? { balance: 0, status: 'closed', closed_on: date }
          : // Renewed: a new contract, at the product's rates (an imported term's own rate ends with its term).
            {
              balance: trx.raw('balance - ?::numeric', [formatAmount(moved)]),
              maturity_date: renewedUntil,
              contract_rate: null,
            },
      );
    await trx('term_deposit_maturities').insert({
      enterprise_id: term.enterpriseId,
      compte_client_id: term.id,
      payout_account_id: payout?.id ?? null,
      maturity_date: date,
      period_end: periodEnd,
      instruction,
      amount: formatAmount(moved),
      renewed_principal: renewed === null ? null : formatAmount(renewed),
      renewed_until: renewedUntil,
      maturity_event_id: events?.maturity ?? null,
      payout_event_id: events?.payoutEvent ?? null,
    });
    await recordAudit(trx, null, {
      action: renewedUntil === null ? 'compte_client.mature' : 'compte_client.renew',
      entityType: 'compte_client',
      entityId: term.id,
      enterpriseId: term.enterpriseId,
      details: {
        number: term.number,
        maturity_date: date,
        instruction,
        payout_account: payout?.number ?? null,
        amount: formatAmount(moved),
        month_end: periodEnd,
        ...(renewed === null ? {} : { renewed_principal: formatAmount(renewed), renewed_until: renewedUntil }),
      },
    });
    return { matured: true, entries: interest.entries + (events === null ? 0 : 2) };
  });
}

/**
 * What the month end `periodEnd` matured: the final interest postings and the money moved, per account and maturity.
 */
async function maturedBy(knex: Knex, period: MonthEndPeriod): Promise<{ amount: Money; lines: MonthEndStepLine[] }> {
  const matured: {
    compte_client_id: string;
    payout_account_id: string | null;
    amount: string;
    term_code: string;
    payout_code: string | null;
  }[] = await knex('term_deposit_maturities as m')
    .join('comptes_clients as t', 't.id', 'm.compte_client_id')
    .join('savings_products as tp', 'tp.id', 't.product_id')
    .leftJoin('comptes_clients as d', 'd.id', 'm.payout_account_id')
    .leftJoin('savings_products as dp', 'dp.id', 'd.product_id')
    .where({ 'm.enterprise_id': period.enterpriseId, 'm.period_end': period.periodEnd })
    .orderBy(['m.compte_client_id', 'm.maturity_date'])
    .select(
      'm.compte_client_id',
      'm.payout_account_id',
      'm.amount',
      'tp.deposit_account_code as term_code',
      'dp.deposit_account_code as payout_code',
    );
  const finalInterest: InterestPostingRow[] = await knex('savings_interest_postings as s')
    .join('term_deposit_maturities as m', (on) =>
      on.on('m.compte_client_id', 's.compte_client_id').andOn('m.maturity_date', 's.period_end'),
    )
    .where({ 'm.enterprise_id': period.enterpriseId, 'm.period_end': period.periodEnd, 's.occasion': 'maturity' })
    .orderBy(['s.compte_client_id', 's.period_end'])
    .select('s.compte_client_id', ...postingFigureColumns);
  const moved = matured
    .filter((row) => row.amount !== '0')
    .flatMap((row) => [
      { account: row.term_code, amount: row.amount, compteClientId: row.compte_client_id },
      { account: row.payout_code!, amount: `-${row.amount}`, compteClientId: row.payout_account_id! },
    ]);
  return {
    amount: matured.reduce((sum, row) => sum.plus(row.amount), new Money(0)),
    lines: [...interestLines(finalInterest), ...moved],
  };
}

/**
 * The month-end step "term-deposit maturity": every open term account maturing by `periodEnd` matures (see above),
 * a renewed one again if its new term ends by then too, and the answer is everything this month end matured, the
 * first run's included: `amount` is the money moved to demand accounts (final interest net of tax included; a
 * renewal keeps its principal), `entries` what this execution posted.
 */
export async function matureTermDeposits(context: StepContext, input: MonthEndPeriod): Promise<MonthEndStepResult> {
  await assertMonthEndPeriod(context, input);
  let entries = 0;
  for (
    let due = await maturingAccountIds(context.knex, input);
    due.length > 0;
    due = await maturingAccountIds(context.knex, input)
  ) {
    let matured = 0;
    for (const accountId of due) {
      const done = await matureAccount(context.knex, accountId, input.periodEnd);
      entries += done.entries;
      if (done.matured) matured += 1;
      heartbeat({ step: 'matureTermDeposits', matured });
    }
    // Another run matured them meanwhile: the next query would find the same ones.
    if (matured === 0) break;
  }
  const { amount, lines } = await maturedBy(context.knex, input);
  return { entries, amount: formatAmount(amount), lines };
}

/** A term account the daily run could not mature, and why (the refusal's code and message, as the API answers it). */
interface MaturityRefusal extends Pick<Refusal, 'code' | 'message'> {
  account: string;
}

/** Open term accounts whose running term ends by the business date, not matured for it yet. */
const dueByBusinessDate = (
  knex: Knex,
  enterpriseId: string,
  businessDate: IsoDate,
): Promise<{ id: string; maturity_date: string }[]> =>
  knex('comptes_clients as a')
    .where({ 'a.enterprise_id': enterpriseId, 'a.status': 'open' })
    .where('a.maturity_date', '<=', businessDate)
    .whereNotExists(
      knex('term_deposit_maturities as m').whereRaw('m.compte_client_id = a.id AND m.maturity_date = a.maturity_date'),
    )
    .orderBy('a.id')
    .select('a.id', knex.raw(`to_char(a.maturity_date, 'YYYY-MM-DD') AS maturity_date`));

/**
 * The daily maturities (docs/domain.md §9): every open term account whose maturity falls by the business date
 * matures on its day, not at the next month end (a renewed one again while its new term ends by then: a run days
 * late catches up term by term); each is recorded under the month end of its maturity, which then answers it among
 * what it matured. Run by the daily Schedule's workflow and by `POST …/term-deposit-maturities/runs/`. `matured`
 * counts the maturities this run did.
 */
export async function matureDueTermDeposits(
  context: StepContext,
  input: { enterpriseId: string },
): Promise<{ matured: number; entries: number; refused: MaturityRefusal[] }> {
  const businessDate = await businessDateOf(context.knex, input.enterpriseId, context.clock());
  let entries = 0;
  let matured = 0;
  // One account refused (no demand account to receive it) does not hold the others back; the month end refuses it
  // again.
  const refused: MaturityRefusal[] = [];
  for (let progress = true; progress;) {
    progress = false;
    const due = (await dueByBusinessDate(context.knex, input.enterpriseId, businessDate)).filter(
      (account) => !refused.some((refusal) => refusal.account === account.id),
    );
    for (const account of due) {
      try {
        const done = await matureAccount(context.knex, account.id, monthEndOf(account.maturity_date));
        entries += done.entries;
        if (done.matured) {
          matured += 1;
          progress = true;
        }
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        refused.push({ account: account.id, code: error.code, message: error.message });
      }
    }
  }
  return { matured, entries, refused };
}
