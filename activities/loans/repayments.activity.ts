import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { EventKind } from '../../domain/events/rules';
import { AppError, NotFoundError } from '../../domain/errors';
import { allocateRepayment, type InstallmentAllocation, type InstallmentDue } from '../../domain/loans/allocation';
import { accruePenalties, isSettled, offsetDues, payableDues, waiveUnearnedInterest, type InstallmentState } from '../../domain/loans/position';
import { formatAmount, Money } from '../../domain/money';
import { Loan } from '../../db/models/loan.model';
import { LoanProduct } from '../../db/models/loan-product.model';
import { inTransaction } from '../../db/transaction';
import type { ActivityContext, Actor } from '../context';
import { assertSameRequest, operationKey } from '../idempotency';
import { businessDateOf } from '../enterprise/configuration.activity';
import { defaultRoleAccounts } from '../events/default-rules';
import { recordBusinessEvent } from '../events/record-business-event';
import { classAccounts } from './class-accounts';
import { readInstallments, saveInstallments } from './installments';
import { memberAccountLeg, moveAccountBalance, type MemberAccountLeg } from '../members/member-account-leg';

export interface RepaymentInput {
  loanId: string;
  amount: Money;
  channel: 'cash' | 'account';
  accountId: string | null;
  /** When given, must be the business date: entries are dated by the business date, never back-valued. */
  date: string | null;
  reference: string;
  /** The client's Idempotency-Key; null when none was sent (then nothing guards a retry). */
  idempotencyKey: string | null;
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
  channel: 'cash' | 'account' | 'share_refund';
  account_id: string | null;
  reference: string;
  business_date: string;
  allocations: { number: number; due_date: string; penalty: string; interest: string; principal: string }[];
  outstanding_after: string;
  request: Record<string, unknown>;
  recorded_by: string;
  created_at: Date;
}

const components = [
  { part: 'penalty', kind: 'repayment_penalty' },
  { part: 'interest', kind: 'repayment_interest' },
  { part: 'principal', kind: 'repayment_principal' },
] as const satisfies readonly { part: keyof InstallmentAllocation; kind: EventKind }[];

/**
 * Records a repayment in one transaction (docs/architecture.md §3): locks the loan (concurrent repayments of one loan
 * queue, so none overpays and none is lost), answers a retried request (same key) with the first result, then
 * applies it at the business date.
 */
export async function recordRepayment(context: ActivityContext, actor: Actor, input: RepaymentInput): Promise<{ repayment: LoanRepaymentRow; replayed: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const loan = await Loan.query(trx).findById(input.loanId).forUpdate();
    if (loan === undefined) throw new NotFoundError('The loan');
    const request = { loan: loan.id, amount: formatAmount(input.amount), channel: input.channel, account: input.accountId, reference: input.reference };
    const key = operationKey('repayment', actor, input.idempotencyKey);
    // Without a client key there is nothing to replay: one query less.
    const earlier: LoanRepaymentRow | undefined = input.idempotencyKey === null ? undefined : await trx('loan_repayments').where({ enterprise_id: loan.enterpriseId, idempotency_key: key }).first();
    if (earlier !== undefined) {
      assertSameRequest(earlier.request, request);
      return { repayment: earlier, replayed: true };
    }
    assertRepayable(loan);
    const now = context.clock();
    const businessDate = await businessDateOf(trx, loan.enterpriseId, now);
    if (input.date !== null && input.date !== businessDate) {
      throw new AppError('unprocessable', 'date_not_business_date', `Repayments are recorded at the business date ${businessDate}.`, [{ field: 'date', message: `date must be the business date ${businessDate}` }]);
    }
    const funding: RepaymentFunding = input.channel === 'account' ? { channel: 'account', leg: await memberAccountLeg(trx, input.accountId!, loan.clientId) } : { channel: 'cash' };
    const repayment = await applyRepayment(trx, now, { loan, businessDate, amount: input.amount, funding, dues: 'payable', reference: input.reference, key, request, actorId: actor.userId });
    return { repayment, replayed: false };
  });
}

function assertRepayable(loan: Loan): void {
  if (loan.status === 'awaiting_disbursement') throw new AppError('conflict', 'loan_not_disbursed', `Loan ${loan.number} has not been disbursed.`);
  if (loan.status === 'closed') throw new AppError('conflict', 'loan_closed', `Loan ${loan.number} is fully repaid and closed.`);
  if (loan.status === 'written_off') throw new AppError('conflict', 'loan_written_off', `Loan ${loan.number} was written off: a recovery is a separate operation.`);
}

/** Where the money comes from: the till, the member's account, or a share refund owed to the member (4411). */
export type RepaymentFunding = { channel: 'cash' } | { channel: 'account'; leg: MemberAccountLeg } | { channel: 'share_refund' };

export interface RepaymentToApply {
  /** Locked by the caller, repayable. */
  loan: Loan;
  businessDate: string;
  amount: Money;
  funding: RepaymentFunding;
  /** What may be paid: at the till, the dues and the next installment; a refund takes the dues, or all the principal when the member leaves. */
  dues: 'payable' | 'overdue' | 'overdue_and_principal';
  reference: string;
  key: string;
  request: Record<string, unknown>;
  actorId: string;
}

/** What each kind of repayment may take from the loan's installments at the business date. */
export function duesFor(installments: readonly InstallmentState[], businessDate: string, dues: RepaymentToApply['dues']): InstallmentDue[] {
  return dues === 'payable' ? payableDues(installments, businessDate) : offsetDues(installments, businessDate, dues === 'overdue_and_principal');
}

/**
 * A repayment in the caller's transaction: accrues penalties to the business date, allocates oldest
 * installment first (penalties, interest, principal), writes the installments and the LoanRepayment, and posts
 * one entry per component through the ledger's entry point. The loan closes when nothing is left.
 */
export async function applyRepayment(trx: Knex.Transaction, now: Date, input: RepaymentToApply): Promise<LoanRepaymentRow> {
  const { loan, businessDate } = input;
  const stored = await readInstallments(trx, loan.id);
  const installments = accruePenalties(stored, businessDate, new Money(loan.penaltyRate));
  const allocation = allocateRepayment({ amount: input.amount, dues: duesFor(installments, businessDate, input.dues) });
  if (!allocation.ok) {
    throw new AppError('conflict', 'exceeds_total_due', `At most ${formatAmount(allocation.totalDue)} XAF can be repaid on ${businessDate}: the installments due and the next one (an early payoff is a separate operation).`);
  }
  const paid = allocation.allocations.filter((row) => row.total.gt(0));
  const after = installments.map((installment) => waiveUnearnedInterest(applyPayment(installment, paid.find((row) => row.number === installment.number)), businessDate));
  // Only the rows that changed (accrual and payment functions return the same object otherwise).
  const changed = after.filter((installment, index) => installment !== stored[index]);
  await saveInstallments(trx, loan.id, changed, (installment) => (isSettled(installment) ? businessDate : null));

  const totals = { penalty: sumOf(paid, 'penalty'), interest: sumOf(paid, 'interest'), principal: sumOf(paid, 'principal') };
  const leg = input.funding.channel === 'account' ? input.funding.leg : null;
  if (leg !== null) await moveAccountBalance(trx, leg, input.amount.negated());
  const repaymentId = randomUUID();
  await postRepayment(trx, now, input, repaymentId, totals);
  const outstandingAfter = new Money(loan.outstandingPrincipal).minus(totals.principal);
  const closed = after.every(isSettled);
  await Loan.query(trx).patch({ outstandingPrincipal: formatAmount(outstandingAfter), ...(closed ? { status: 'closed', closedOn: businessDate } : {}) }).where('id', loan.id);
  const [repayment] = await trx('loan_repayments')
    .insert({
      id: repaymentId,
      enterprise_id: loan.enterpriseId,
      branch_id: loan.branchId,
      loan_id: loan.id,
      amount: formatAmount(input.amount),
      principal: formatAmount(totals.principal),
      interest: formatAmount(totals.interest),
      penalty: formatAmount(totals.penalty),
      channel: input.funding.channel,
      account_id: leg?.account.id ?? null,
      reference: input.reference,
      business_date: businessDate,
      allocations: JSON.stringify(paid.map((row) => ({
        number: row.number,
        due_date: row.dueDate,
        penalty: formatAmount(row.penalty),
        interest: formatAmount(row.interest),
        principal: formatAmount(row.principal),
      }))),
      outstanding_after: formatAmount(outstandingAfter),
      idempotency_key: input.key,
      request: JSON.stringify(input.request),
      recorded_by: input.actorId,
    })
    .returning('*');
  return repayment as LoanRepaymentRow;
}

/** One entry per component, from the funding's account to the loan's accounts of its class and product. */
async function postRepayment(trx: Knex.Transaction, now: Date, input: RepaymentToApply, repaymentId: string, totals: Record<'penalty' | 'interest' | 'principal', Money>): Promise<void> {
  const { loan, funding } = input;
  const product = await LoanProduct.query(trx).findById(loan.productId).throwIfNotFound();
  const source = { cash: defaultRoleAccounts.cash, share_refund: defaultRoleAccounts.members_capital, account: funding.channel === 'account' ? funding.leg.depositAccountCode : '' }[funding.channel];
  for (const { part, kind } of components) {
    if (totals[part].isZero()) continue;
    await recordBusinessEvent(trx, now, {
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
        // An overdue or doubtful loan's principal sits on the account of its class since its reclassification.
        loan_portfolio: classAccounts(product.portfolioAccountCode)[loan.classification],
        interest_income: product.interestIncomeAccountCode,
        penalty_income: product.penaltyIncomeAccountCode,
      },
      description: `${kind.replace('_', ' ')} ${loan.number}`,
    });
  }
}

const sumOf = (rows: readonly InstallmentAllocation[], part: 'penalty' | 'interest' | 'principal'): Money => rows.reduce((sum, row) => sum.plus(row[part]), new Money(0));

function applyPayment(installment: InstallmentState, paid: InstallmentAllocation | undefined): InstallmentState {
  if (paid === undefined) return installment;
  return {
    ...installment,
    penaltyPaid: installment.penaltyPaid.plus(paid.penalty),
    interestPaid: installment.interestPaid.plus(paid.interest),
    principalPaid: installment.principalPaid.plus(paid.principal),
  };
}

/** Lists and details share the columns. */
export const repaymentsQuery = (knex: Knex) => knex('loan_repayments as r').join('loans as l', 'l.id', 'r.loan_id').select('r.*', 'l.number as loan_number');
