import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { withheldAtDisbursement, type LoanInsurance } from '../../domain/loans/loan-product';
import { simulateLoan } from '../../domain/loans/simulation';
import { Money } from '../../domain/money';
import { Loan } from '../../db/models/loan.model';
import { LoanProduct } from '../../db/models/loan-product.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { defaultRoleAccounts } from '../events/default-rules';
import { recordBusinessEvent, type BusinessEvent } from '../events/record-business-event';
import { writeSchedule } from './installments';
import { recordOriginalVersion } from './schedule-versions';
import { memberAccountLeg, moveAccountBalance } from '../members/member-account-leg';
import { postLoanEngagements } from './off-balance';

/** Maker-checker: the money is paid out by someone other than the approver who granted the loan. */
async function assertNotFinalApprover(trx: Knex.Transaction, loan: Loan, actor: Actor): Promise<void> {
  const approval = await trx('loan_application_decisions')
    .where({ application_id: loan.applicationId, decision: 'approve' })
    .orderBy('decided_at', 'desc')
    .first('decided_by');
  if (approval?.decided_by === actor.userId) {
    throw new AppError(
      'forbidden',
      'approver_cannot_disburse',
      `The user who granted loan ${loan.number} cannot also pay it out.`,
    );
  }
}

export interface DisbursementInput {
  loanId: string;
  channel: 'account' | 'cash';
  /** The borrower's account to credit, for the `account` channel. */
  accountId: string | null;
}

interface WithheldCharges {
  event: Pick<BusinessEvent, 'enterpriseId' | 'branchId' | 'subjectId' | 'actorId'>;
  loan: Loan;
  channel: DisbursementInput['channel'];
  fundsAccount: string;
  feeIncomeAccount: string;
  fees: Money;
  insurance: LoanInsurance;
}

/**
 * The fees (to the product's fee income) and a withheld insurance premium (to the insurer, 461: docs/domain.md §14.6),
 * from the money paid out.
 */
async function postWithheldCharges(trx: Knex.Transaction, now: Date, charges: WithheldCharges): Promise<void> {
  const { event, loan, channel, fundsAccount, fees, insurance } = charges;
  const payload = { loan: loan.id, loan_number: loan.number, channel };
  if (fees.gt(0)) {
    await recordBusinessEvent(trx, now, {
      ...event,
      kind: 'loan_fee',
      amount: fees,
      payload,
      idempotencyKey: `loan-fee:${loan.id}`,
      productAccounts: { cash: fundsAccount, fee_income: charges.feeIncomeAccount },
      description: `fees ${loan.number}`,
    });
  }
  if (insurance.collection === 'withheld' && insurance.premium.gt(0)) {
    await recordBusinessEvent(trx, now, {
      ...event,
      kind: 'loan_insurance_premium',
      amount: insurance.premium,
      payload,
      idempotencyKey: `loan-insurance:${loan.id}`,
      productAccounts: { cash: fundsAccount },
      description: `insurance premium ${loan.number}`,
    });
  }
}

/** The loan, locked, if it awaits its disbursement: a second disbursement waits, then is refused. */
async function lockedLoanAwaitingDisbursement(trx: Knex.Transaction, loanId: string): Promise<Loan> {
  const loan = await Loan.query(trx).findById(loanId).forUpdate().throwIfNotFound();
  if (loan.status !== 'awaiting_disbursement')
    throw new AppError(
      'conflict',
      'loan_not_awaiting_disbursement',
      `Loan ${loan.number} is ${loan.status}: it cannot be disbursed.`,
    );
  return loan;
}

/** The loan's schedule from its own terms, as granted: a product changed since approval does not change it. */
async function writeGrantedSchedule(trx: Knex.Transaction, loan: Loan, disbursedOn: string, insurance: LoanInsurance) {
  const simulation = simulateLoan({
    method: loan.method,
    frequency: loan.frequency,
    annualRate: new Money(loan.annualRate),
    feeRate: new Money(0),
    feeFixed: new Money(loan.fees),
    principal: new Money(loan.principal),
    termPeriods: loan.termPeriods,
    gracePeriods: loan.gracePeriods,
    startDate: disbursedOn,
    insurance,
  });
  await writeSchedule(trx, loan.id, simulation.schedule, simulation.insuranceParts);
  return simulation;
}

const auditDisbursement = (trx: Knex.Transaction, actor: Actor, loan: Loan, channel: DisbursementInput['channel']) =>
  recordAudit(trx, actor, {
    action: 'loan.disburse',
    entityType: 'loan',
    entityId: loan.id,
    enterpriseId: loan.enterpriseId,
    details: {
      number: loan.number,
      channel,
      principal: loan.principal,
      fees: loan.fees,
      insurance_premium: loan.insurancePremium,
    },
  });

/**
 * Pays an approved loan out, in one transaction: dates the schedule from the business date (the first
 * installment one period later), posts the disbursement (portfolio / member's account or till), the fees
 * and a withheld insurance premium (member's account or till / fee income, insurer) through the ledger's entry
 * point, and makes the loan active.
 * The loan row is locked: a second disbursement waits, then finds it active and is refused.
 */
export async function disburseLoan(context: ActivityContext, actor: Actor, input: DisbursementInput): Promise<Loan> {
  return inTransaction(context.knex, async (trx) => {
    const loan = await lockedLoanAwaitingDisbursement(trx, input.loanId);
    await assertNotFinalApprover(trx, loan, actor);
    const product = await LoanProduct.query(trx).findById(loan.productId).throwIfNotFound();
    const now = context.clock();
    const disbursedOn = await businessDateOf(trx, loan.enterpriseId, now);
    const principal = new Money(loan.principal);
    const fees = new Money(loan.fees);
    const insurance: LoanInsurance = {
      premium: new Money(loan.insurancePremium),
      collection: loan.insuranceCollection,
    };
    const leg = input.channel === 'account' ? await memberAccountLeg(trx, input.accountId!, loan.clientId) : null;
    // The till or the member's account: the one side that differs between the two channels.
    const fundsAccount = leg?.depositAccountCode ?? defaultRoleAccounts.cash;
    // The member's account, when one is moved, is the subject: its statement and the reconciliation read
    // its ledger lines through it. The loan's own history is its schedule and repayments.
    const event = {
      enterpriseId: loan.enterpriseId,
      branchId: loan.branchId,
      subjectId: leg?.account.id ?? loan.id,
      actorId: actor.userId,
    };
    await recordBusinessEvent(trx, now, {
      ...event,
      kind: 'loan_disbursement',
      amount: principal,
      payload: { loan: loan.id, loan_number: loan.number, channel: input.channel, account: leg?.account.id ?? null },
      idempotencyKey: `loan-disbursement:${loan.id}`,
      productAccounts: { loan_portfolio: product.portfolioAccountCode, member_deposits: fundsAccount },
      description: `disbursement ${loan.number}`,
    });
    await postWithheldCharges(trx, now, {
      event,
      loan,
      channel: input.channel,
      fundsAccount,
      feeIncomeAccount: product.feeIncomeAccountCode,
      fees,
      insurance,
    });
    if (leg !== null) await moveAccountBalance(trx, leg, principal.minus(withheldAtDisbursement(fees, insurance)));
    const simulation = await writeGrantedSchedule(trx, loan, disbursedOn, insurance);
    const disbursed = await Loan.query(trx).patchAndFetchById(loan.id, {
      status: 'active',
      disbursedOn,
      disbursementChannel: input.channel,
      disbursementAccountId: leg?.account.id ?? null,
      disbursedBy: actor.userId,
      teg: simulation.teg,
    });
    await recordOriginalVersion(trx, {
      id: loan.id,
      principal,
      teg: disbursed.teg,
      disbursedOn,
      createdBy: actor.userId,
    });
    // The financing commitment (922) is released as the money goes out: docs/domain.md §12.2.
    await postLoanEngagements(trx, { loanId: loan.id, date: disbursedOn, createdBy: actor.userId });
    await auditDisbursement(trx, actor, loan, input.channel);
    return disbursed;
  });
}
