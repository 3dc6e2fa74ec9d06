import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { AppError, NotFoundError } from '../../domain/errors';
import { accruePenalties, unpaidInsurance, type InstallmentState } from '../../domain/loans/position';
import {
  carriedInsurance,
  earlyRepaymentPosition,
  keptLevel,
  payoffQuote,
  prepaymentSeries,
  splitPrepayment,
  type EarlyRepaymentPosition,
  type PayoffQuote,
  type PrepaymentFeeTerms,
  type PrepaymentStrategy,
} from '../../domain/loans/prepayment';
import { periodsPerYear } from '../../domain/loans/schedule';
import { effectiveGlobalRate } from '../../domain/loans/teg';
import { formatAmount, Money } from '../../domain/money';
import { Loan } from '../../db/models/loan.model';
import { LoanProduct } from '../../db/models/loan-product.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor, DataContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { defaultRoleAccounts } from '../events/default-rules';
import { recordBusinessEvent } from '../events/record-business-event';
import { assertSameRequest, operationKey } from '../idempotency';
import { memberAccountLeg, moveAccountBalance } from '../members/member-account-leg';
import { installmentsJson, readInstallments, saveInstallmentsStatement } from './installments';
import {
  assertRepayable,
  paymentRequest,
  repaymentEvents,
  repaymentsQuery,
  type LoanPaymentInput,
  type LoanRepaymentDetail,
  type RepaymentFunding,
} from './loan-repayments.activity';
import { postLoanEngagements } from './off-balance';
import { replaceSchedule } from './schedule-versions';

/**
 * Early repayment (docs/domain.md §14.1): a partial prepayment, which puts a new schedule version in force, and a
 * payoff, which closes the loan. Each is one transaction with the loan locked: it pays the dues and the principal
 * as a repayment does (a loan_repayments row, the repayment's events), posts the fee (`loan_fee`), and keeps its own
 * row in loan_prepayments, where a retried Idempotency-Key finds it. Money comes in: no four eyes (§11).
 */

export type EarlyRepaymentInput = LoanPaymentInput;

export type PrepaymentKind = 'prepayment' | 'payoff';

/** A prepayment or a payoff as stored, with its loan's number. */
export interface LoanPrepaymentRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  loan_id: string;
  loan_number: string;
  kind: PrepaymentKind;
  repayment_id: string;
  amount: string;
  fee: string;
  principal_prepaid: string;
  business_date: string;
  strategy: PrepaymentStrategy | null;
  schedule_version: number | null;
  teg: string | null;
  request: Record<string, unknown>;
  recorded_by: string;
  created_at: Date;
}

/** As shown: with the repayment it made (principal, interest, penalties, allocation, channel). */
export type LoanPrepaymentDetail = LoanPrepaymentRow & { repayment: LoanRepaymentDetail };

/** Lists and details share the columns. */
export const prepaymentsQuery = (knex: Knex) =>
  knex('loan_prepayments as p').join('loans as l', 'l.id', 'p.loan_id').select('p.*', 'l.number as loan_number');

/** The rows with their repayments: one more query for a whole page. */
export async function withRepayments(knex: Knex, rows: readonly LoanPrepaymentRow[]): Promise<LoanPrepaymentDetail[]> {
  const repayments: LoanRepaymentDetail[] = await repaymentsQuery(knex).whereIn(
    'r.id',
    rows.map((row) => row.repayment_id),
  );
  return rows.map((row) => ({ ...row, repayment: repayments.find((repayment) => repayment.id === row.repayment_id)! }));
}

/** One prepayment or payoff with its repayment; undefined when there is none. */
export async function prepaymentById(
  knex: Knex,
  where: Record<string, string>,
): Promise<LoanPrepaymentDetail | undefined> {
  const row: LoanPrepaymentRow | undefined = await prepaymentsQuery(knex).where(where).first();
  return row === undefined ? undefined : (await withRepayments(knex, [row]))[0];
}

interface LockedLoan {
  loan: Loan;
  product: LoanProduct;
  businessDate: IsoDate;
  installments: InstallmentState[];
  position: EarlyRepaymentPosition;
}

const feeTermsOf = (product: LoanProduct): PrepaymentFeeTerms => ({
  rate: new Money(product.prepaymentFeeRate),
  minimum: new Money(product.prepaymentFeeMinimum),
});

/** The loan, locked when `lock`; 404 when there is none. */
async function loanOf(trx: Knex, loanId: string, lock: boolean): Promise<Loan> {
  const query = Loan.query(trx).findById(loanId);
  const loan = lock ? await query.forUpdate() : await query;
  if (loan === undefined) throw new NotFoundError('The loan');
  return loan;
}

/** Where a repayable loan stands at `date` (the business date by default), penalties accrued to it. */
async function standingOf(trx: Knex, loan: Loan, now: Date, date: IsoDate | null): Promise<LockedLoan> {
  assertRepayable(loan);
  const product = await LoanProduct.query(trx).findById(loan.productId).throwIfNotFound();
  const businessDate = await businessDateOf(trx, loan.enterpriseId, now);
  const asOf = date ?? businessDate;
  const installments = accruePenalties(await readInstallments(trx, loan.id), asOf, new Money(loan.penaltyRate));
  const position = earlyRepaymentPosition(installments, asOf, {
    annualRate: new Money(loan.annualRate),
    disbursedOn: loan.disbursedOn!,
  });
  return { loan, product, businessDate, installments, position };
}

export interface PayoffQuoteDetail extends PayoffQuote {
  loan: Loan;
  date: IsoDate;
  /** The quote's figures are those of its date: interest and penalties run by the day. */
  validUntil: IsoDate;
}

/** What settles the loan at `date` (not before the business date; the business date by default). */
export async function quoteLoanPayoff(
  context: DataContext,
  loanId: string,
  date: IsoDate | null,
): Promise<PayoffQuoteDetail> {
  const { loan, product, businessDate, position } = await standingOf(
    context.knex,
    await loanOf(context.knex, loanId, false),
    context.clock(),
    date,
  );
  if (date !== null && date < businessDate) {
    throw new AppError('validation', 'invalid_request', `The quote is at the business date ${businessDate} or later.`, [
      { field: 'date', message: `date must be on or after the business date ${businessDate}` },
    ]);
  }
  return { loan, date: position.asOf, validUntil: position.asOf, ...payoffQuote(position, feeTermsOf(product)) };
}

/** The earlier operation under the key, answered again when it is the same request. */
async function earlier(
  trx: Knex,
  enterpriseId: string,
  key: string,
  request: Record<string, unknown>,
): Promise<LoanPrepaymentDetail | undefined> {
  const found = await prepaymentById(trx, { 'p.enterprise_id': enterpriseId, 'p.idempotency_key': key });
  if (found !== undefined) assertSameRequest(found.request, request);
  return found;
}

/**
 * A partial prepayment: dues first, the rest lowers the principal; the schedule not yet due is recomputed under the
 * strategy.
 */
type Recorded = Promise<{ prepayment: LoanPrepaymentDetail; replayed: boolean }>;

export async function recordPrepayment(
  context: ActivityContext,
  actor: Actor,
  input: EarlyRepaymentInput & { strategy: PrepaymentStrategy | null },
): Recorded {
  const key = operationKey('prepayment', actor, input.idempotencyKey);
  return inTransaction(context.knex, async (trx) => {
    const loan = await loanOf(trx, input.loanId, true);
    const request = { kind: 'prepayment', ...paymentRequest(loan.id, input), strategy: input.strategy };
    const found = await earlier(trx, loan.enterpriseId, key, request);
    if (found !== undefined) return { prepayment: found, replayed: true };
    const locked = await standingOf(trx, loan, context.clock(), null);
    const { product, position } = locked;
    const strategy = input.strategy ?? product.prepaymentStrategy;
    const split = splitPrepayment(position, input.amount, feeTermsOf(product));
    if (!split.ok) throw prepaymentRefusal(split.reason, position, input.amount);
    const outstanding = position.principalAhead.minus(split.principal);
    const current = position.current!;
    const { series, insurance, teg } = prepaymentSchedule(locked, strategy, outstanding);
    const settled = await settleDues(trx, locked, split.principal);
    const version = await replaceSchedule(trx, {
      loanId: loan.id,
      reason: 'prepayment',
      effectiveOn: position.asOf,
      keptThrough: current.installment.number,
      replacement: series,
      insurance,
      outstandingPrincipal: outstanding,
      teg,
      createdBy: actor.userId,
    });
    await trx('loans')
      .where({ id: loan.id })
      .update({ outstanding_principal: formatAmount(outstanding), teg });
    const made = {
      kind: 'prepayment' as const,
      key,
      request,
      settled,
      fee: split.fee,
      principalPrepaid: split.principal,
      strategy,
      version,
      teg,
      outstanding,
    };
    return { prepayment: await recordOperation(trx, context.clock(), actor, locked, input, made), replayed: false };
  });
}

/** The series replacing the installments after the current one, with the spread premium it carries and its TEG. */
function prepaymentSchedule(locked: LockedLoan, strategy: PrepaymentStrategy, outstanding: Money) {
  const { loan, position } = locked;
  const current = position.current!;
  const series = prepaymentSeries({
    strategy,
    method: loan.method,
    frequency: loan.frequency,
    annualRate: new Money(loan.annualRate),
    outstanding,
    from: position.asOf,
    dueDates: [current.installment, ...position.later].map((row) => row.dueDate),
    level: keptLevel([current.installment, ...position.later], loan.method),
  });
  // The spread premium still to come rides on the new series, and so counts in its TEG (§14.6).
  const insurance = carriedInsurance([current.installment, ...position.later], series.length);
  const totals = series.map((row, index) => row.total.plus(insurance[index]!));
  const teg = effectiveGlobalRate({
    principal: outstanding,
    fees: new Money(0),
    installments: totals,
    periodsPerYear: periodsPerYear[loan.frequency],
  });
  return { series, insurance, teg };
}

function prepaymentRefusal(
  reason: 'below_dues' | 'use_payoff',
  position: EarlyRepaymentPosition,
  amount: Money,
): AppError {
  if (reason === 'use_payoff') {
    return new AppError(
      'conflict',
      'prepayment_settles_loan',
      `${formatAmount(amount)} XAF would settle the loan: a payoff is a separate operation (see the payoff quote).`,
    );
  }
  return new AppError(
    'unprocessable',
    'prepayment_below_dues',
    `A prepayment must exceed the dues of ${formatAmount(position.dues)} XAF and the fee.`,
    [{ field: 'amount', message: `amount must exceed the dues of ${formatAmount(position.dues)} XAF and the fee` }],
  );
}

/** The payoff: the quote at the business date, to the franc; the loan closes and its engagements are released. */
export async function recordPayoff(context: ActivityContext, actor: Actor, input: EarlyRepaymentInput): Recorded {
  const key = operationKey('payoff', actor, input.idempotencyKey);
  return inTransaction(context.knex, async (trx) => {
    const loan = await loanOf(trx, input.loanId, true);
    const request = { kind: 'payoff', ...paymentRequest(loan.id, input) };
    const found = await earlier(trx, loan.enterpriseId, key, request);
    if (found !== undefined) return { prepayment: found, replayed: true };
    const locked = await standingOf(trx, loan, context.clock(), null);
    const { product, position } = locked;
    const quote = payoffQuote(position, feeTermsOf(product));
    if (!input.amount.eq(quote.total)) {
      throw new AppError(
        'unprocessable',
        'payoff_amount_differs',
        `The payoff on ${position.asOf} is ${formatAmount(quote.total)} XAF.`,
        [{ field: 'amount', message: `amount must be the payoff quote of ${formatAmount(quote.total)} XAF` }],
      );
    }
    const settled = await settleDues(trx, locked, 'all');
    await trx('loans')
      .where({ id: loan.id })
      .update({ outstanding_principal: '0', status: 'closed', closed_on: position.asOf });
    // The guarantees received and any suspended interest leave class 9 with the loan (docs/domain.md §12.2).
    await postLoanEngagements(trx, { loanId: loan.id, date: position.asOf, createdBy: actor.userId });
    const made = {
      kind: 'payoff' as const,
      key,
      request,
      settled,
      fee: quote.fee,
      principalPrepaid: position.principalAhead,
      strategy: null,
      version: null,
      teg: null,
      outstanding: new Money(0),
    };
    return { prepayment: await recordOperation(trx, context.clock(), actor, locked, input, made), replayed: false };
  });
}

interface Allocation {
  number: number;
  due_date: string;
  penalty: Money;
  insurance: Money;
  interest: Money;
  principal: Money;
}

/** The installments due, paid in full: what each settles, and each as paid. */
function duesPaid(due: readonly InstallmentState[]): { allocations: Allocation[]; paid: InstallmentState[] } {
  const allocations: Allocation[] = due.map((row) => ({
    number: row.number,
    due_date: row.dueDate,
    penalty: row.penaltyDue.minus(row.penaltyPaid),
    insurance: unpaidInsurance(row),
    interest: row.interestDue.minus(row.interestPaid),
    principal: row.principalDue.minus(row.principalPaid),
  }));
  const paid: InstallmentState[] = due.map((row) => ({
    ...row,
    penaltyPaid: row.penaltyDue,
    insurancePaid: row.insuranceDue,
    interestPaid: row.interestDue,
    principalPaid: row.principalDue,
  }));
  return { allocations, paid };
}

/** A payoff's later installments: their principal paid, no interest or insurance owed (never earned). */
function laterPaidOff(later: readonly InstallmentState[]): { allocations: Allocation[]; paid: InstallmentState[] } {
  const allocations: Allocation[] = [];
  const paid: InstallmentState[] = [];
  for (const row of later) {
    allocations.push({
      number: row.number,
      due_date: row.dueDate,
      penalty: zero,
      insurance: zero,
      interest: zero,
      principal: row.principalDue.minus(row.principalPaid),
    });
    paid.push({
      ...row,
      principalPaid: row.principalDue,
      interestDue: row.interestPaid,
      insuranceDue: row.insurancePaid,
    });
  }
  return { allocations, paid };
}

/**
 * Settles the installments due and the current one, which becomes the early repayment's own installment: due on the
 * payment date, its interest to that day, its principal what it had paid and `principalAhead`. A payoff's later
 * installments are paid their principal and owe no interest (never earned); a prepayment's are replaced after this.
 * Insurance parts in arrears are paid; the current one's unpaid part goes to the new series (a prepayment) or, like
 * the later ones', is not owed (a payoff: the cover ends with the debt, §14.6).
 */
async function settleDues(
  trx: Knex.Transaction,
  locked: LockedLoan,
  principalAhead: Money | 'all',
): Promise<Allocation[]> {
  const { loan, position } = locked;
  const asOf = position.asOf;
  const { allocations, paid } = duesPaid(position.due);
  const current = position.current;
  if (current !== null) {
    const { installment, interestEarned } = current;
    const payoff = principalAhead === 'all';
    const ownPrincipal = payoff ? installment.principalDue.minus(installment.principalPaid) : principalAhead;
    const principalDue = installment.principalPaid.plus(ownPrincipal);
    await trx('loan_installments')
      .where({ loan_id: loan.id, number: installment.number })
      .update({ due_date: asOf, principal_due: formatAmount(principalDue) });
    const interest = interestEarned.minus(installment.interestPaid);
    allocations.push({
      number: installment.number,
      due_date: asOf,
      penalty: zero,
      insurance: zero,
      interest,
      principal: ownPrincipal,
    });
    paid.push({
      ...installment,
      dueDate: asOf,
      principalDue,
      principalPaid: principalDue,
      interestDue: interestEarned,
      interestPaid: interestEarned,
      insuranceDue: installment.insurancePaid,
      penaltyThrough: asOf,
    });
    if (payoff) {
      const later = laterPaidOff(position.later);
      allocations.push(...later.allocations);
      paid.push(...later.paid);
    }
  }
  if (paid.length > 0)
    await trx.raw(saveInstallmentsStatement, [
      installmentsJson(
        paid,
        () => asOf,
        () => new Money(0),
      ),
      loan.id,
    ]);
  return allocations;
}

interface Made {
  kind: PrepaymentKind;
  key: string;
  request: Record<string, unknown>;
  settled: Allocation[];
  fee: Money;
  principalPrepaid: Money;
  strategy: PrepaymentStrategy | null;
  version: number | null;
  teg: string | null;
  outstanding: Money;
}

const zero = new Money(0);
const total = (rows: readonly Allocation[], part: 'penalty' | 'insurance' | 'interest' | 'principal') =>
  rows.reduce((sum, row) => sum.plus(row[part]), new Money(0));

/** The allocations as the repayment row shows them: `insurance` only where some was paid. */
function allocationsOf(settled: readonly Allocation[]) {
  return settled.map((row) => ({
    number: row.number,
    due_date: row.due_date,
    penalty: formatAmount(row.penalty),
    ...(row.insurance.isZero() ? {} : { insurance: formatAmount(row.insurance) }),
    interest: formatAmount(row.interest),
    principal: formatAmount(row.principal),
  }));
}

/** What the operation posts and records beside the repayment row. */
interface Posting {
  funding: RepaymentFunding;
  repaymentId: string;
  input: EarlyRepaymentInput;
  made: Made;
}

/** The repayment's components posted, as a repayment's (the ledger's entry point). */
async function postRepayment(
  trx: Knex.Transaction,
  now: Date,
  actor: Actor,
  locked: LockedLoan,
  posting: Posting & { repaid: Money; totals: ReturnType<typeof settledTotals> },
): Promise<void> {
  const { loan, product, position } = locked;
  const { funding, repaid, repaymentId, totals, input, made } = posting;
  const accounts = {
    portfolio: product.portfolioAccountCode,
    interestIncome: product.interestIncomeAccountCode,
    penaltyIncome: product.penaltyIncomeAccountCode,
  };
  const repayment = {
    loan,
    businessDate: position.asOf,
    amount: repaid,
    funding,
    dues: 'payable',
    reference: input.reference,
    key: made.key,
    request: made.request,
    actorId: actor.userId,
  } as const;
  for (const event of repaymentEvents(repayment, accounts, repaymentId, totals))
    await recordBusinessEvent(trx, now, event);
}

/** The early repayment fee, from the member's account or the cash. */
async function postFee(
  trx: Knex.Transaction,
  now: Date,
  actor: Actor,
  locked: LockedLoan,
  posting: Posting,
): Promise<void> {
  const { loan, product } = locked;
  const { funding, repaymentId, input, made } = posting;
  const source = funding.channel === 'account' ? funding.leg.depositAccountCode : defaultRoleAccounts.cash!;
  await recordBusinessEvent(trx, now, {
    enterpriseId: loan.enterpriseId,
    branchId: loan.branchId,
    subjectId: funding.channel === 'account' ? funding.leg.account.id : loan.id,
    actorId: actor.userId,
    kind: 'loan_fee',
    amount: made.fee,
    payload: {
      loan: loan.id,
      loan_number: loan.number,
      repayment: repaymentId,
      channel: input.channel,
      early_repayment: made.kind,
    },
    idempotencyKey: `${made.key}:fee`,
    productAccounts: { cash: source, fee_income: product.feeIncomeAccountCode },
    description: `early repayment fee ${loan.number}`,
  });
}

/** The parts settled, summed as a repayment's components (an early repayment earns no unearned interest). */
function settledTotals(settled: readonly Allocation[]) {
  return {
    penalty: total(settled, 'penalty'),
    insurance: total(settled, 'insurance'),
    interest: total(settled, 'interest'),
    unearnedInterest: zero,
    principal: total(settled, 'principal'),
  };
}

/** The member's money moved, the repayment and the fee posted, the repayment and the prepayment rows written. */
async function recordOperation(
  trx: Knex.Transaction,
  now: Date,
  actor: Actor,
  locked: LockedLoan,
  input: EarlyRepaymentInput,
  made: Made,
): Promise<LoanPrepaymentDetail> {
  const { loan, position } = locked;
  const totals = settledTotals(made.settled);
  const repaid = totals.penalty.plus(totals.insurance).plus(totals.interest).plus(totals.principal);
  const funding: RepaymentFunding =
    input.channel === 'account'
      ? { channel: 'account', leg: await memberAccountLeg(trx, input.accountId!, loan.clientId) }
      : { channel: 'cash' };
  if (funding.channel === 'account') await moveAccountBalance(trx, funding.leg, repaid.plus(made.fee).negated());
  const repaymentId = randomUUID();
  await trx('loan_repayments').insert({
    id: repaymentId,
    enterprise_id: loan.enterpriseId,
    branch_id: loan.branchId,
    loan_id: loan.id,
    amount: formatAmount(repaid),
    principal: formatAmount(totals.principal),
    interest: formatAmount(totals.interest),
    penalty: formatAmount(totals.penalty),
    insurance: formatAmount(totals.insurance),
    channel: input.channel,
    account_id: input.accountId,
    reference: input.reference,
    business_date: position.asOf,
    outstanding_after: formatAmount(made.outstanding),
    idempotency_key: made.key,
    request: JSON.stringify(made.request),
    recorded_by: actor.userId,
    allocations: JSON.stringify(allocationsOf(made.settled)),
  });
  await postRepayment(trx, now, actor, locked, { funding, repaid, repaymentId, totals, input, made });
  if (made.fee.gt(0)) await postFee(trx, now, actor, locked, { funding, repaymentId, input, made });
  const id = randomUUID();
  await trx('loan_prepayments').insert({
    id,
    enterprise_id: loan.enterpriseId,
    branch_id: loan.branchId,
    loan_id: loan.id,
    kind: made.kind,
    repayment_id: repaymentId,
    amount: formatAmount(repaid.plus(made.fee)),
    fee: formatAmount(made.fee),
    principal_prepaid: formatAmount(made.principalPrepaid),
    strategy: made.strategy,
    schedule_version: made.version,
    teg: made.teg,
    business_date: position.asOf,
    idempotency_key: made.key,
    request: JSON.stringify(made.request),
    recorded_by: actor.userId,
  });
  await recordAudit(trx, actor, {
    action: `loan.${made.kind}`,
    entityType: 'loan',
    entityId: loan.id,
    enterpriseId: loan.enterpriseId,
    details: { ...made.request, fee: formatAmount(made.fee), schedule_version: made.version },
  });
  return (await prepaymentById(trx, { 'p.id': id }))!;
}
