import type { Knex } from 'knex';
import { addDaysTo, parseIsoDate, type IsoDate } from '../../domain/calendar';
import type { EventKind } from '../../domain/events/rules';
import type { ErrorCode } from '../../domain/error-catalogue';
import { AppError } from '../../domain/errors';
import { earlyClosureSettlement } from '../../domain/members/term-deposits';
import { formatAmount, Money } from '../../domain/money';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { recordBusinessEvent } from '../events/record-business-event';
import { recordDatedEvent } from '../events/record-dated-event';
import { assertNotPledged } from './account-holds';
import { lockedPayoutAccount } from './payout-accounts';
import { interestFigures } from './interest-figures';
import { creditPayoutAccount, termStartOf } from './term-deposits.activity';

/**
 * A term deposit closed at the member's request before its maturity (docs/domain.md §9), on the business date: the
 * running term (from its opening or last renewal to the day before the closure) earns the product's
 * `early_closure_rate` instead of the contract's, computed as any posting (the product's basis and day count, simple,
 * the gross to the franc, the tax at its withholding rate); what the term was already paid at the contract rate
 * (postings to the demand account) is set against it: the excess taken back from the deposit (the expense reduced,
 * the tax withheld on it given back), a shortfall paid into it. Then the principal with that difference moves to the
 * payout account through 459, and the account closes at zero. One transaction, the term account locked, then the
 * demand account; a `term_deposit_early_closures` row per account keeps the figures.
 */

/** The early closure as the table keeps it (and the API answers it). */
export interface EarlyClosureRow {
  id: string;
  compte_client_id: string;
  payout_account_id: string;
  closed_on: string;
  term_started_on: string;
  maturity_date: string;
  interest_to: string;
  interest_basis: string;
  day_count: string;
  early_closure_rate: string;
  withholding_tax_rate: string;
  principal: string;
  gross_due: string;
  tax_due: string;
  gross_paid: string;
  tax_paid: string;
  amount: string;
  interest_event_id: string | null;
  tax_event_id: string | null;
  closure_event_id: string | null;
  payout_event_id: string | null;
  closed_by: string | null;
  created_at: Date;
}

const refused = (code: ErrorCode, message: string) =>
  new AppError('conflict', code, message, [{ field: 'id', message }]);

/** The account must be an open term deposit whose maturity is still ahead: a matured one is the maturity run's. */
function assertClosable(term: CompteClient, product: SavingsProduct, closedOn: IsoDate): void {
  if (product.kind !== 'term_deposit' || term.maturityDate === null) {
    throw refused(
      'not_a_term_deposit',
      `Account ${term.number} is not a term deposit: only a term deposit is closed early (another account ` +
        `closes by …/close/).`,
    );
  }
  if (term.status !== 'open')
    throw refused(
      'account_not_open',
      `Term deposit ${term.number} is ${term.status}: only an open term deposit is closed early.`,
    );
  if (term.maturityDate <= closedOn) {
    throw refused(
      'term_deposit_matured',
      `Term deposit ${term.number} reached its maturity on ${term.maturityDate}: the maturity run pays it, ` +
        `it is not closed early.`,
    );
  }
}

/** What the running term was paid already (periodic postings to the demand account), gross and tax. */
async function paidInTerm(
  trx: Knex.Transaction,
  accountId: string,
  termStart: IsoDate,
): Promise<{ gross: Money; tax: Money }> {
  const row = await trx('savings_interest_postings')
    .where({ compte_client_id: accountId })
    .where('interest_from', '>=', termStart)
    .first(trx.raw('coalesce(sum(gross), 0)::text AS gross'), trx.raw('coalesce(sum(tax), 0)::text AS tax'));
  return { gross: new Money(row.gross as string), tax: new Money(row.tax as string) };
}

interface Adjustment {
  trx: Knex.Transaction;
  term: CompteClient;
  product: SavingsProduct;
  closedOn: IsoDate;
  payload: Record<string, unknown>;
}

/**
 * One side of the settlement as an event about the term account, dated the closure: a positive difference posted
 * as `owed` (interest or tax), a negative one as `returned` (interest recovered, tax refunded); none when zero.
 */
async function postDifference(
  adjustment: Adjustment,
  delta: Money,
  owed: EventKind,
  returned: EventKind,
): Promise<string | null> {
  if (delta.isZero()) return null;
  const { trx, term, product, closedOn, payload } = adjustment;
  const kind = delta.isPositive() ? owed : returned;
  const event = await recordDatedEvent(trx, {
    enterpriseId: term.enterpriseId,
    branchId: term.branchId,
    subjectId: term.id,
    actorId: null,
    date: closedOn,
    kind,
    amount: delta.abs(),
    payload,
    productAccounts: {
      member_deposits: product.depositAccountCode,
      interest_expense: product.interestExpenseAccountCode,
      withholding_tax: product.withholdingTaxAccountCode,
    },
    idempotencyKey: `${kind}:${term.id}:early-closure`,
    description: `${kind.replaceAll('_', ' ')}, early closure of ${term.number}`,
  });
  return event.eventId;
}

/**
 * The principal with the settlement, out of the term account (the member's request: money moving) and into the payout
 * account.
 */
async function payOut(
  trx: Knex.Transaction,
  now: Date,
  actor: Actor,
  term: CompteClient,
  product: SavingsProduct,
  payout: CompteClient,
  amount: Money,
  closedOn: IsoDate,
) {
  const closure = await recordBusinessEvent(trx, now, {
    enterpriseId: term.enterpriseId,
    branchId: term.branchId,
    subjectId: term.id,
    actorId: actor.userId,
    kind: 'term_deposit_early_closure',
    amount,
    payload: {
      account: term.id,
      account_number: term.number,
      payout_account: payout.id,
      payout_account_number: payout.number,
      closed_on: closedOn,
    },
    productAccounts: { member_deposits: product.depositAccountCode },
    idempotencyKey: `term-deposit-early-closure:${term.id}`,
    description: `term deposit ${term.number} closed before maturity, to ${payout.number}`,
  });
  return {
    closure: closure.eventId,
    payout: await creditPayoutAccount(trx, { term, payout, amount, date: closedOn, key: `${term.id}:early-closure` }),
  };
}

/** The running term's interest at the penalty rate, set against what the term was already paid. */
async function settlementOf(trx: Knex.Transaction, term: CompteClient, product: SavingsProduct, closedOn: IsoDate) {
  const termStart = await termStartOf(trx, term);
  const window = { from: termStart, to: addDaysTo(parseIsoDate(closedOn), -1) };
  const rate = new Money(product.earlyClosureRate ?? 0);
  // The penalty rate replaces the contract's rates over the whole term; closed on its first day, the term earns
  // nothing.
  const grossDue =
    window.from > window.to
      ? new Money(0)
      : (await interestFigures(trx, term, product, window, [{ from: termStart, annualRate: rate }])).gross;
  const paid = await paidInTerm(trx, term.id, termStart);
  const settled = earlyClosureSettlement({
    grossDue,
    withholdingTaxRate: new Money(product.withholdingTaxRate),
    grossPaid: paid.gross,
    taxPaid: paid.tax,
  });
  return { termStart, window, rate, grossDue, paid, settled };
}

type Settlement = Awaited<ReturnType<typeof settlementOf>>;

/** What the closure moved: the amount paid out, to which account, and the events posted. */
interface Moved {
  amount: Money;
  payout: CompteClient;
  interestEvent: string | null;
  taxEvent: string | null;
  events: { closure: string; payout: string } | null;
}

/** The closure's row, with the figures of its settlement and the events it posted. */
async function insertClosure(
  adjustment: Adjustment,
  actor: Actor,
  { termStart, window, rate, grossDue, paid, settled }: Settlement,
  moved: Moved,
): Promise<EarlyClosureRow> {
  const { trx, term, product, closedOn } = adjustment;
  const [row] = await trx('term_deposit_early_closures')
    .insert({
      enterprise_id: term.enterpriseId,
      branch_id: term.branchId,
      compte_client_id: term.id,
      payout_account_id: moved.payout.id,
      closed_on: closedOn,
      term_started_on: termStart,
      maturity_date: term.maturityDate,
      interest_to: window.to,
      interest_basis: product.interestBasis,
      day_count: product.dayCount,
      early_closure_rate: rate.toString(),
      withholding_tax_rate: product.withholdingTaxRate,
      principal: term.balance,
      gross_due: formatAmount(grossDue),
      tax_due: formatAmount(settled.taxDue),
      gross_paid: formatAmount(paid.gross),
      tax_paid: formatAmount(paid.tax),
      amount: formatAmount(moved.amount),
      interest_expense_account_code: product.interestExpenseAccountCode,
      withholding_tax_account_code: product.withholdingTaxAccountCode,
      deposit_account_code: product.depositAccountCode,
      interest_event_id: moved.interestEvent,
      tax_event_id: moved.taxEvent,
      closure_event_id: moved.events?.closure ?? null,
      payout_event_id: moved.events?.payout ?? null,
      closed_by: actor.userId,
    })
    .returning('*');
  return row as EarlyClosureRow;
}

/**
 * Closes the open term account `accountId` before its maturity (branch head and above, checked by the route): the
 * settlement above, the account closed at zero, the row and the audit record, all in one transaction.
 */
export async function closeTermDepositEarly(
  context: ActivityContext,
  actor: Actor,
  accountId: string,
  reason: string,
): Promise<EarlyClosureRow> {
  return inTransaction(context.knex, async (trx) => {
    const term = await CompteClient.query(trx).findById(accountId).forUpdate().throwIfNotFound();
    const product = await SavingsProduct.query(trx).findById(term.productId).throwIfNotFound();
    const closedOn = await businessDateOf(trx, term.enterpriseId, context.clock());
    assertClosable(term, product, closedOn);
    await assertNotPledged(trx, term);
    const settlement = await settlementOf(trx, term, product, closedOn);
    const { window, rate, settled } = settlement;
    const payload = {
      account: term.id,
      account_number: term.number,
      interest_from: window.from,
      interest_to: window.to,
      early_closure_rate: rate.toString(),
    };
    const adjustment = { trx, term, product, closedOn, payload };
    const interestEvent = await postDifference(
      adjustment,
      settled.interestDelta,
      'savings_interest',
      'savings_interest_recovery',
    );
    const taxEvent = await postDifference(adjustment, settled.taxDelta, 'withholding_tax', 'withholding_tax_refund');
    const amount = new Money(term.balance).plus(settled.memberDelta);
    const payout = await lockedPayoutAccount(trx, term);
    const events = amount.isZero()
      ? null
      : await payOut(trx, context.clock(), actor, term, product, payout, amount, closedOn);
    await trx('comptes_clients').where({ id: term.id }).update({ balance: 0, status: 'closed', closed_on: closedOn });
    const row = await insertClosure(adjustment, actor, settlement, { amount, payout, interestEvent, taxEvent, events });
    await recordAudit(trx, actor, {
      action: 'compte_client.close_early',
      entityType: 'compte_client',
      entityId: term.id,
      enterpriseId: term.enterpriseId,
      details: {
        reason,
        number: term.number,
        closed_on: closedOn,
        maturity_date: term.maturityDate,
        payout_account: payout.number,
        early_closure_rate: rate.toString(),
        amount: formatAmount(amount),
      },
    });
    return row;
  });
}
