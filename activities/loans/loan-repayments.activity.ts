import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { effectiveBusinessDate } from '../../domain/calendar';
import type { EventKind } from '../../domain/events/rules';
import { AppError, NotFoundError } from '../../domain/errors';
import { allocateRepayment, type InstallmentAllocation, type InstallmentDue } from '../../domain/loans/allocation';
import type { LoanClass } from '../../domain/loans/classification';
import { unearnedPart } from '../../domain/loans/interest-accrual';
import {
  accruePenalties,
  isSettled,
  offsetDues,
  payableDues,
  waiveUnearnedInterest,
  type InstallmentState,
} from '../../domain/loans/position';
import { formatAmount, Money } from '../../domain/money';
import type { Loan, LoanStatus } from '../../db/models/loan.model';
import { inTransaction, isRetryable } from '../../db/transaction';
import type { Actor, DataContext } from '../context';
import { assertSameRequest, operationKey } from '../idempotency';
import { defaultRoleAccounts } from '../events/default-rules';
import {
  recordedEventsBindings,
  recordedEventsStatement,
  reportPostings,
  type BusinessEvent,
  type EventPosting,
} from '../events/record-business-event';
import { ledgerCall } from '../events/ledger-refusal';
import { principalAccountOf } from './class-accounts';
import { installmentsJson, installmentStates, saveInstallmentsStatement, type InstallmentRow } from './installments';
import { memberAccountLeg, moveAccountBalance, type MemberAccountLeg } from '../members/member-account-leg';

/** Money paid on a loan: a repayment, a prepayment or payoff, a recovery after write-off. */
export interface LoanPaymentInput {
  loanId: string;
  amount: Money;
  channel: 'cash' | 'account';
  accountId: string | null;
  reference: string;
  /** The client's Idempotency-Key; null when none was sent (then nothing guards a retry). */
  idempotencyKey: string | null;
}

/** What a payment's retry must repeat to the letter (its idempotency key's request). */
export const paymentRequest = (loanId: string, input: LoanPaymentInput) => ({
  loan: loanId,
  amount: formatAmount(input.amount),
  channel: input.channel,
  account: input.accountId,
  reference: input.reference,
});

export interface RepaymentInput extends LoanPaymentInput {
  /** When given, must be the business date: entries are dated by the business date, never back-valued. */
  date: string | null;
}

export interface LoanRepaymentRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  loan_id: string;
  amount: string;
  principal: string;
  interest: string;
  penalty: string;
  /** What it paid of spread insurance premiums, for the insurer (docs/domain.md §14.6). */
  insurance: string;
  channel: 'cash' | 'account' | 'share_refund';
  account_id: string | null;
  reference: string;
  business_date: string;
  /** `insurance` only where the repayment paid some of a spread insurance premium (issue 30). */
  allocations: {
    number: number;
    due_date: string;
    penalty: string;
    insurance?: string;
    interest: string;
    principal: string;
  }[];
  outstanding_after: string;
  request: Record<string, unknown>;
  recorded_by: string;
  created_at: Date;
}

/** A repayment as it is shown: with the loan's number. */
export type LoanRepaymentDetail = LoanRepaymentRow & { loan_number: string };

/** What a repayment needs of its loan (a Loan row has it all). */
export type LoanToRepay = Pick<
  Loan,
  | 'id'
  | 'enterpriseId'
  | 'branchId'
  | 'clientId'
  | 'number'
  | 'status'
  | 'classification'
  | 'doubtfulAccountCode'
  | 'penaltyRate'
  | 'outstandingPrincipal'
>;

/**
 * What a repayment posts, each part under its kind: the interest earned at its date, and the interest paid before it is
 * earned (docs/domain.md §3).
 */
type RepaymentPart = 'penalty' | 'insurance' | 'interest' | 'unearnedInterest' | 'principal';

const components = [
  { part: 'penalty', kind: 'repayment_penalty' },
  // A spread insurance premium's part is the insurer's: docs/domain.md §14.6.
  { part: 'insurance', kind: 'repayment_insurance' },
  { part: 'interest', kind: 'repayment_interest' },
  { part: 'unearnedInterest', kind: 'repayment_interest_unearned' },
  { part: 'principal', kind: 'repayment_principal' },
] as const satisfies readonly { part: RepaymentPart; kind: EventKind }[];

/**
 * Records a repayment (docs/architecture.md §3, §4): answers a retried request (same key) with the first result,
 * then applies it at the business date. A cash repayment is first tried without a transaction: one read of the
 * loan, then one statement that writes it all only if the loan's row is still the version read (else it fails
 * whole, as a serialization failure). A repayment whose loan changed in between, and one from an account (two
 * rows to keep in step), run in a transaction with the loan locked: concurrent repayments of one loan queue, so
 * none overpays and none is lost.
 */
export async function recordRepayment(
  context: DataContext,
  actor: Actor,
  input: RepaymentInput,
): Promise<{ repayment: LoanRepaymentDetail; replayed: boolean }> {
  if (input.channel === 'cash') {
    try {
      return await repay(context, context.knex, actor, input);
    } catch (error) {
      if (!isRetryable(error)) throw error;
    }
  }
  return inTransaction(context.knex, async (trx) => repay(context, trx, actor, input));
}

/**
 * A repayment in `db`: a transaction, which the read locks the loan for, or the pool (its statement then checks the
 * loan's version).
 */
async function repay(
  context: DataContext,
  db: Knex,
  actor: Actor,
  input: RepaymentInput,
): Promise<{ repayment: LoanRepaymentDetail; replayed: boolean }> {
  const key = operationKey('repayment', actor, input.idempotencyKey);
  // Without a client key there is nothing to replay: the read looks for no earlier repayment.
  const found = await loanForRepayment(db, input.loanId, input.idempotencyKey === null ? null : key);
  if (found === undefined) throw new NotFoundError('The loan');
  const { loan } = found;
  const request = paymentRequest(loan.id, input);
  if (found.earlierRepaymentId !== null) {
    const earlier: LoanRepaymentDetail = await repaymentsQuery(db).where('r.id', found.earlierRepaymentId).first();
    assertSameRequest(earlier.request, request);
    return { repayment: earlier, replayed: true };
  }
  assertRepayable(loan);
  const now = context.clock();
  const businessDate = effectiveBusinessDate(found.configuration, now);
  if (input.date !== null && input.date !== businessDate) {
    throw new AppError(
      'unprocessable',
      'date_not_business_date',
      `Repayments are recorded at the business date ${businessDate}.`,
      [{ field: 'date', message: `date must be the business date ${businessDate}` }],
    );
  }
  const funding: RepaymentFunding =
    input.channel === 'account'
      ? { channel: 'account', leg: await memberAccountLeg(db as Knex.Transaction, input.accountId!, loan.clientId) }
      : { channel: 'cash' };
  const repaid = {
    loan,
    businessDate,
    amount: input.amount,
    funding,
    dues: 'payable',
    reference: input.reference,
    key,
    request,
    actorId: actor.userId,
  } as const;
  const repayment = await settleRepayment(db, now, repaid, found);
  return { repayment: { ...repayment, loan_number: loan.number }, replayed: false };
}

/** A loan that takes repayments: disbursed, neither closed nor written off. */
export function assertRepayable(loan: Pick<LoanToRepay, 'number' | 'status'>): void {
  if (loan.status === 'awaiting_disbursement')
    throw new AppError('conflict', 'loan_not_disbursed', `Loan ${loan.number} has not been disbursed.`);
  if (loan.status === 'closed')
    throw new AppError('conflict', 'loan_closed', `Loan ${loan.number} is fully repaid and closed.`);
  if (loan.status === 'written_off')
    throw new AppError(
      'conflict',
      'loan_written_off',
      `Loan ${loan.number} was written off: a recovery is a separate operation.`,
    );
}

/** Where the money comes from: the till, the member's account, or a share refund owed to the member (4411). */
/**
 * Where a repayment's money comes from: the till, a member's account, or the capital a share refund owes the member
 * (its account).
 */
export type RepaymentFunding =
  { channel: 'cash' } | { channel: 'account'; leg: MemberAccountLeg } | { channel: 'share_refund'; account: string };

export interface RepaymentToApply {
  /** Locked by the caller, repayable. */
  loan: LoanToRepay;
  businessDate: string;
  amount: Money;
  funding: RepaymentFunding;
  /**
   * What may be paid: at the till, the dues and the next installment; a refund takes the dues, or all the principal
   * when the member leaves.
   */
  dues: 'payable' | 'overdue' | 'overdue_and_principal';
  reference: string;
  key: string;
  request: Record<string, unknown>;
  actorId: string;
}

/** What each kind of repayment may take from the loan's installments at the business date. */
export function duesFor(
  installments: readonly InstallmentState[],
  businessDate: string,
  dues: RepaymentToApply['dues'],
): InstallmentDue[] {
  return dues === 'payable'
    ? payableDues(installments, businessDate)
    : offsetDues(installments, businessDate, dues === 'overdue_and_principal');
}

/** A repayment in the caller's transaction, the loan locked by the caller (a share refund's offset). */
export async function applyRepayment(
  trx: Knex.Transaction,
  now: Date,
  input: RepaymentToApply,
): Promise<LoanRepaymentRow> {
  const found = await loanForRepayment(trx, input.loan.id, null);
  if (found === undefined) throw new NotFoundError('The loan');
  return settleRepayment(trx, now, input, found);
}

/**
 * The loan of a repayment as coopbank_loan_for_repayment reads it (see its migration): locked, with all a repayment
 * needs.
 */
/** The loan's product accounts a repayment posts to. */
export interface RepaymentAccounts {
  portfolio: string;
  interestIncome: string;
  penaltyIncome: string;
}

interface LoanForRepayment {
  loan: LoanToRepay;
  accounts: RepaymentAccounts;
  configuration: { businessDate: string | null; timeZone: string };
  /** The installments not yet settled, by number. */
  installments: InstallmentState[];
  /** The day each of them began to earn its interest (the previous due date, or the disbursement), by number. */
  periodStarts: ReadonlyMap<number, string>;
  /** The repayment already recorded under the operation's key. */
  earlierRepaymentId: string | null;
  /**
   * The loan row's version (xmin) when read outside a transaction, which the writing statement checks; null when read
   * locked.
   */
  version: string | null;
}

/**
 * Outside a transaction, the row's version comes from the statement's snapshot, taken before the function's reads:
 * never newer than what they read, so a loan that changed in between fails the check and nothing is written stale.
 */
async function loanForRepayment(db: Knex, loanId: string, key: string | null): Promise<LoanForRepayment | undefined> {
  // Named statements: PostgreSQL parses and plans each once per connection.
  const { rows } =
    db.isTransaction === true
      ? await db
          .raw('SELECT coopbank_loan_for_repayment(?, ?) AS found, NULL AS version', [loanId, key])
          .options({ name: 'coopbank_loan_for_repayment_locked' })
      : await db
          .raw(
            'SELECT coopbank_loan_for_repayment(?, ?) AS found, (SELECT xmin::text FROM loans WHERE id = ?) AS version',
            [loanId, key, loanId],
          )
          .options({ name: 'coopbank_loan_for_repayment_versioned' });
  const found = rows[0].found as
    | (Record<string, string> & {
        installments: InstallmentRow[];
        business_date: string | null;
        earlier_repayment_id: string | null;
      })
    | null;
  if (found === null) return undefined;
  return {
    loan: {
      id: found.id!,
      enterpriseId: found.enterprise_id!,
      branchId: found.branch_id!,
      clientId: found.client_id!,
      number: found.number!,
      status: found.status as LoanStatus,
      classification: found.classification as LoanClass,
      doubtfulAccountCode: (found.doubtful_account_code as string | null | undefined) ?? null,
      penaltyRate: found.penalty_rate!,
      outstandingPrincipal: found.outstanding_principal!,
    },
    accounts: {
      portfolio: found.portfolio_account_code!,
      interestIncome: found.interest_income_account_code!,
      penaltyIncome: found.penalty_income_account_code!,
    },
    configuration: { businessDate: found.business_date, timeZone: found.time_zone! },
    installments: installmentStates(found.installments),
    periodStarts: new Map(found.installments.map((row) => [row.number, row.period_start!])),
    earlierRepaymentId: found.earlier_repayment_id,
    version: rows[0].version as string | null,
  };
}

/**
 * Allocates the repayment oldest installment first, on the installments with their penalties accrued to the business
 * date, and applies it: the installments after, those that changed, and the unearned interest paid per installment.
 */
function allocatedRepayment(input: RepaymentToApply, found: LoanForRepayment) {
  const { loan, businessDate } = input;
  const stored = found.installments;
  const installments = accruePenalties(stored, businessDate, new Money(loan.penaltyRate));
  const allocation = allocateRepayment({ amount: input.amount, dues: duesFor(installments, businessDate, input.dues) });
  if (!allocation.ok) {
    throw new AppError(
      'conflict',
      'exceeds_total_due',
      `At most ${formatAmount(allocation.totalDue)} XAF can be repaid on ${businessDate}: ` +
        `the installments due and the next one (an early payoff is a separate operation).`,
    );
  }
  const paid = allocation.allocations.filter((row) => row.total.gt(0));
  const after = waiveUnearnedInterest(
    installments.map((installment) =>
      applyPayment(
        installment,
        paid.find((row) => row.number === installment.number),
      ),
    ),
    businessDate,
  );
  // Only the rows that changed (accrual and payment functions return the same object otherwise).
  const changed = after.filter((installment, index) => installment !== stored[index]);
  const unearned = unearnedPaid(installments, after, paid, found.periodStarts, businessDate);
  return { paid, after, changed, unearned };
}

/**
 * Accrues penalties to the business date, allocates oldest installment first (penalties, interest, principal),
 * writes the installments, the loan, the LoanRepayment and one entry per component (the ledger's entry point)
 * in one statement. The loan closes when nothing is left.
 */
async function settleRepayment(
  db: Knex,
  now: Date,
  input: RepaymentToApply,
  found: LoanForRepayment,
): Promise<LoanRepaymentRow> {
  const { loan, businessDate } = input;
  const { paid, after, changed, unearned } = allocatedRepayment(input, found);
  const interest = sumOf(paid, 'interest');
  const unearnedInterest = [...unearned.values()].reduce((sum, part) => sum.plus(part), new Money(0));
  const totals = {
    penalty: sumOf(paid, 'penalty'),
    insurance: sumOf(paid, 'insurance'),
    interest: interest.minus(unearnedInterest),
    unearnedInterest,
    principal: sumOf(paid, 'principal'),
  };
  const leg = input.funding.channel === 'account' ? input.funding.leg : null;
  if (leg !== null) await moveAccountBalance(db as Knex.Transaction, leg, input.amount.negated());
  const repaymentId = randomUUID();
  const outstandingAfter = new Money(loan.outstandingPrincipal).minus(totals.principal);
  // Only open installments were read: the loan is settled when they all are.
  const closedOn = after.every(isSettled) ? businessDate : null;
  const events = repaymentEvents(input, found.accounts, repaymentId, totals);
  const bindings = [
    installmentsJson(
      changed,
      (installment) => (isSettled(installment) ? businessDate : null),
      (installment) => unearned.get(installment.number) ?? new Money(0),
    ),
    loan.id,
    formatAmount(outstandingAfter),
    closedOn,
    closedOn,
    loan.id,
    found.version,
    ...recordedEventsBindings(now, events),
    repaymentId,
    loan.enterpriseId,
    loan.branchId,
    formatAmount(input.amount),
    formatAmount(totals.principal),
    formatAmount(interest),
    formatAmount(totals.penalty),
    formatAmount(totals.insurance),
    input.funding.channel,
    leg?.account.id ?? null,
    input.reference,
    businessDate,
    allocationsJson(paid),
    formatAmount(outstandingAfter),
    input.key,
    JSON.stringify(input.request),
    input.actorId,
  ];
  const { recorded, ...repayment } = await ledgerCall<LoanRepaymentRow & { recorded: EventPosting[] }>(
    db.raw(repaymentStatements[events.length - 1]!, bindings).options({ name: `coopbank_repayment_${events.length}` }),
  );
  reportPostings(db, events, recorded);
  return repayment;
}

const repaymentColumns =
  'id, enterprise_id, branch_id, loan_id, amount, principal, interest, penalty, insurance, channel, account_id, ' +
  'reference, business_date, allocations, outstanding_after, request, recorded_by, created_at';

/**
 * The installments, the loan, the repayment and the entries of its components in one statement, one text per number
 * of components posted: a named statement, which PostgreSQL parses and plans once per connection and which is sent
 * without knex building nested queries. The loan's update runs first (the repayment's loan_id is what it matched)
 * and, on a version that changed, fails it all. It names the columns it returns: a prepared statement whose result
 * would change with the table (RETURNING * after a new column) fails until the connection closes.
 */
const repaymentStatements = components.map(
  (_, index) => `WITH installments AS (${saveInstallmentsStatement}),
     loan AS (UPDATE loans SET outstanding_principal = ?, status = CASE WHEN ?::date IS NULL THEN status ELSE 'closed'
       END, closed_on = COALESCE(?::date, closed_on)
              WHERE id = ? AND xmin = COALESCE(?::xid, xmin) RETURNING id),
     recorded AS (${recordedEventsStatement(index + 1)})
INSERT INTO loan_repayments (id, enterprise_id, branch_id, loan_id, amount, principal, interest, penalty, insurance,
  channel, account_id, reference, business_date,
                             allocations, outstanding_after, idempotency_key, request, recorded_by)
VALUES (?, ?, ?, coopbank_unchanged_loan((SELECT id FROM loan)), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING ${repaymentColumns}, (SELECT json_agg(json_build_object('entry_id', r.entry_id, 'replayed', r.replayed)
  ORDER BY r.ord) FROM recorded r) AS recorded`,
);

const allocationsJson = (paid: readonly InstallmentAllocation[]): string =>
  JSON.stringify(
    paid.map((row) => ({
      number: row.number,
      due_date: row.dueDate,
      penalty: formatAmount(row.penalty),
      // Only where it paid some: the allocations of loans without insurance keep their shape.
      ...(row.insurance.isZero() ? {} : { insurance: formatAmount(row.insurance) }),
      interest: formatAmount(row.interest),
      principal: formatAmount(row.principal),
    })),
  );

/**
 * One event per component paid, each posting one entry from the funding's account to the loan's accounts of its class
 * and product.
 */
export function repaymentEvents(
  input: RepaymentToApply,
  accounts: RepaymentAccounts,
  repaymentId: string,
  totals: Record<RepaymentPart, Money>,
): BusinessEvent[] {
  const { loan, funding } = input;
  const source =
    funding.channel === 'cash'
      ? defaultRoleAccounts.cash!
      : funding.channel === 'account'
        ? funding.leg.depositAccountCode
        : funding.account;
  return components
    .filter(({ part }) => !totals[part].isZero())
    .map(({ part, kind }) => ({
      enterpriseId: loan.enterpriseId,
      branchId: loan.branchId,
      // As at disbursement: the member's account when it pays, so its statement shows the debit.
      subjectId: funding.channel === 'account' ? funding.leg.account.id : loan.id,
      actorId: input.actorId,
      kind,
      amount: totals[part],
      payload: { loan: loan.id, loan_number: loan.number, repayment: repaymentId, channel: funding.channel },
      idempotencyKey: `${input.key}:${part}`,
      productAccounts: {
        cash: source,
        // An overdue or doubtful loan's principal sits on the account of its class since its reclassification (a
        // doubtful one's, of its cover).
        loan_portfolio: principalAccountOf(loan, accounts.portfolio),
        interest_income: accounts.interestIncome,
        penalty_income: accounts.penaltyIncome,
      },
      description: `${kind.replaceAll('_', ' ')} ${loan.number}`,
    }));
}

/**
 * What of the interest each installment is paid now is not yet earned at `asOf` (docs/domain.md §3): the part beyond
 * the interest it has earned by then and not yet been paid, as the month end's accrual measures it. By number; none
 * for an installment paid only what it has earned. `before` and `after` are the installments, index for index.
 */
function unearnedPaid(
  before: readonly InstallmentState[],
  after: readonly InstallmentState[],
  paid: readonly InstallmentAllocation[],
  periodStarts: ReadonlyMap<number, string>,
  asOf: string,
): Map<number, Money> {
  const unearned = new Map<number, Money>();
  for (const row of paid) {
    if (row.interest.isZero() || row.dueDate <= asOf) continue;
    const index = after.findIndex((installment) => installment.number === row.number);
    // The interest as it stands after the payment (a waiver lowers it to what was paid): what the month end prorates.
    const { dueDate, interestDue } = after[index]!;
    const part = unearnedPart(
      { from: periodStarts.get(row.number)!, dueDate, interestDue },
      before[index]!.interestPaid,
      row.interest,
      asOf,
    );
    if (!part.isZero()) unearned.set(row.number, part);
  }
  return unearned;
}

const sumOf = (
  rows: readonly InstallmentAllocation[],
  part: 'penalty' | 'insurance' | 'interest' | 'principal',
): Money => rows.reduce((sum, row) => sum.plus(row[part]), new Money(0));

function applyPayment(installment: InstallmentState, paid: InstallmentAllocation | undefined): InstallmentState {
  if (paid === undefined) return installment;
  return {
    ...installment,
    penaltyPaid: installment.penaltyPaid.plus(paid.penalty),
    insurancePaid: (installment.insurancePaid ?? new Money(0)).plus(paid.insurance),
    interestPaid: installment.interestPaid.plus(paid.interest),
    principalPaid: installment.principalPaid.plus(paid.principal),
  };
}

/** Lists and details share the columns. */
export const repaymentsQuery = (knex: Knex | Knex.Transaction) =>
  knex('loan_repayments as r').join('loans as l', 'l.id', 'r.loan_id').select('r.*', 'l.number as loan_number');
