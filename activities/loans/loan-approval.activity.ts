import type { Knex } from 'knex';
import { effectiveBusinessDate, type IsoDate } from '../../domain/calendar';
import type { ApplicationStatus, ApprovalStep, DecisionKind } from '../../domain/loans/approval';
import { loanTermsOf } from '../../domain/loans/loan-product';
import { simulateLoan } from '../../domain/loans/simulation';
import { AppError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { Loan } from '../../db/models/loan.model';
import { LoanApplication } from '../../db/models/loan-application.model';
import { LoanProduct } from '../../db/models/loan-product.model';
import { nextSequenceValue } from '../../db/sequences';
import { inTransaction } from '../../db/transaction';
import { auditRow, recordAudit } from '../audit';
import type { Requester } from '../context';
import { reportCommitted, reportOnCommit } from '../metrics-channel';
import { refusalAsOutcome, type Refused } from '../refusal-outcome';
import { assertCreditCaps } from './credit-exposure';
import { insertSchedule } from './installments';
import { postLoanEngagements } from './off-balance';
import { clientForCredit } from './loan-applications.activity';

/**
 * The activities of the `loanApproval` workflow: each persists one step of the process in one transaction,
 * keyed by the workflow's own ids so a retried activity finds its earlier write instead of repeating it.
 */

export interface DecisionToRecord {
  applicationId: string;
  /** `{workflowId}:{updateId}`: unique per decision. */
  idempotencyKey: string;
  step: ApprovalStep;
  decision: DecisionKind | 'withdraw';
  deciderId: string;
  comment: string;
  /** The API request that carried the decision and its client's address, for the audit trail. */
  requestId: string | null;
  address?: string;
  statusAfter: ApplicationStatus;
  stepAfter: ApprovalStep | null;
}

export type RecordedDecision =
  | {
      outcome: 'recorded';
      status: ApplicationStatus;
      loanId: string | null;
      /** ISO timestamp, from the activity's clock (workflows read no clock). */
      decidedAt: string;
    }
  /** A business rule refused it (the credit cap at final approval…): nothing was written, the step stays open. */
  | Refused;

export async function recordLoanDecision(knex: Knex, now: Date, input: DecisionToRecord): Promise<RecordedDecision> {
  return refusalAsOutcome(
    async () =>
      (input.statusAfter === 'approved' ? undefined : await recordInOneStatement(knex, now, input)) ??
      persistDecision(knex, now, input),
  );
}

/**
 * A decision that grants no loan, written in one statement outside a transaction (one round trip instead of four:
 * the decision's Update holds its workflow task while it runs). The update of the application takes its row lock
 * and matches only while the application is in review at the step decided and no decision has this key; the
 * decision and its audit are inserted from what it matched. Nothing matched (a retried activity, a closed
 * application): undefined, and the locked way answers as before.
 */
async function recordInOneStatement(
  knex: Knex,
  now: Date,
  input: DecisionToRecord,
): Promise<RecordedDecision | undefined> {
  const decidedAt = now.toISOString();
  const moved = knex('loan_applications')
    .where({ id: input.applicationId, status: 'in_review', current_step: input.step })
    .whereNotExists(
      knex('loan_application_decisions').where({ idempotency_key: input.idempotencyKey }).select(knex.raw('1')),
    )
    .update(stateAfter(input, decidedAt))
    .returning(['id', 'enterprise_id']);
  // The enterprise comes from the row the update matched.
  const { enterprise_id: _fromMoved, ...audit } = decisionAudit(input, '', null);
  const rows: unknown[] = await knex
    .with('moved', moved)
    .with('decision', insertForMoved(knex, 'loan_application_decisions', decisionRow(input, decidedAt)))
    .with('audit', insertForMoved(knex, 'audit_events', audit))
    .select('id')
    .from('moved');
  if (rows.length === 0) return undefined;
  reportCommitted({ work: 'loan_decision', labels: { decision: input.decision } });
  return { outcome: 'recorded', status: input.statusAfter, loanId: null, decidedAt };
}

/** The decision's row, but its enterprise. */
const decisionRow = (input: DecisionToRecord, decidedAt: string) => ({
  application_id: input.applicationId,
  step: input.step,
  decision: input.decision,
  comment: input.comment,
  decided_by: input.deciderId,
  decided_at: decidedAt,
  idempotency_key: input.idempotencyKey,
});

/** The decision's audit row, with the loan it granted. */
function decisionAudit(input: DecisionToRecord, enterpriseId: string, loanId: string | null) {
  return auditRow(
    { userId: input.deciderId, requestId: input.requestId, address: input.address },
    {
      action: `loan_application.${input.decision}`,
      entityType: 'loan_application',
      entityId: input.applicationId,
      enterpriseId,
      details: {
        step: input.step,
        comment: input.comment,
        status_after: input.statusAfter,
        step_after: input.stepAfter,
        loan: loanId,
      },
    },
  );
}

/** The application's columns once the decision is written. */
function stateAfter(input: DecisionToRecord, decidedAt: string) {
  const ended = input.statusAfter !== 'in_review';
  return {
    status: input.statusAfter,
    current_step: input.stepAfter,
    step_started_at: decidedAt,
    ended_at: ended ? decidedAt : null,
    status_reason: ended ? input.comment : '',
  };
}

/** An insert of one row per row of the statement's `moved`, with its enterprise: nothing when it matched nothing. */
function insertForMoved(knex: Knex, table: string, values: Record<string, Knex.Value>): Knex.Raw {
  const columns = Object.keys(values);
  const names = columns.map(() => '??').join(', ');
  const placeholders = columns.map(() => '?').join(', ');
  return knex.raw(`INSERT INTO ?? (enterprise_id, ${names}) SELECT moved.enterprise_id, ${placeholders} FROM moved`, [
    table,
    ...columns,
    ...Object.values(values),
  ]);
}

async function persistDecision(knex: Knex, now: Date, input: DecisionToRecord): Promise<RecordedDecision> {
  return inTransaction(knex, async (trx) => {
    // The application locked and a decision already written under this key (a retried activity), in one read.
    const earlierDecision = trx('loan_application_decisions')
      .where({ idempotency_key: input.idempotencyKey })
      .select('decided_at');
    const application = await LoanApplication.query(trx)
      .findById(input.applicationId)
      .forUpdate()
      .select('loan_applications.*', earlierDecision.as('earlier_decided_at'))
      .throwIfNotFound();
    const earlier = (application as LoanApplication & { earlierDecidedAt: Date | null }).earlierDecidedAt;
    if (earlier !== null)
      return {
        outcome: 'recorded',
        status: application.status as ApplicationStatus,
        loanId: await loanIdOf(trx, application.id),
        decidedAt: earlier.toISOString(),
      };
    const decidedAt = now.toISOString();
    if (application.status !== 'in_review')
      throw new AppError('conflict', 'application_closed', `The application is ${application.status}.`);
    // Final approval: the caps are checked again (other credit may have been granted meanwhile), then the loan.
    const loanId =
      input.statusAfter === 'approved'
        ? await createLoan(trx, now, application, {
            userId: input.deciderId,
            requestId: input.requestId,
            address: input.address,
          })
        : null;
    // The decision, its audit and the application's new state in one statement.
    await trx
      .with(
        'decision',
        trx('loan_application_decisions').insert({
          enterprise_id: application.enterpriseId,
          ...decisionRow(input, decidedAt),
        }),
      )
      .with('audit', trx('audit_events').insert(decisionAudit(input, application.enterpriseId, loanId)))
      .table('loan_applications')
      .where({ id: application.id })
      .update(stateAfter(input, decidedAt));
    reportOnCommit(trx, { work: 'loan_decision', labels: { decision: input.decision } });
    return { outcome: 'recorded', status: input.statusAfter, loanId, decidedAt };
  });
}

async function loanIdOf(trx: Knex.Transaction, applicationId: string): Promise<string | null> {
  const loan = await trx('loans').where({ application_id: applicationId }).first('id');
  return (loan?.id as string | undefined) ?? null;
}

/** The loan's schedule from the approval date: the fees and the insurance premium quoted at submission are charged. */
function quotedSimulation(product: LoanProduct, application: LoanApplication, approvedOn: IsoDate) {
  const principal = new Money(application.amount);
  const terms = loanTermsOf(
    product,
    { amount: principal, termPeriods: application.termPeriods, gracePeriods: application.gracePeriods },
    approvedOn,
  );
  const insurance = { premium: new Money(application.insurancePremium), collection: product.insuranceCollection };
  const simulation = simulateLoan({
    ...terms,
    feeRate: new Money(0),
    feeFixed: new Money(application.fees),
    insurance,
  });
  return { insurance, simulation };
}

/**
 * The loan an approved application becomes: numbered from LoanSequence (`{branch}-P{year}-{n}`, per branch
 * and year), its schedule provisionally from the approval date until disbursement dates it for good.
 */
async function createLoan(
  trx: Knex.Transaction,
  now: Date,
  application: LoanApplication,
  approvedBy: Requester,
): Promise<string> {
  const client = await clientForCredit(trx, application.clientId);
  const configuration = await EnterpriseConfiguration.query(trx)
    .findOne({ enterprise_id: application.enterpriseId })
    .throwIfNotFound();
  const principal = new Money(application.amount);
  await assertCreditCaps(trx, {
    enterpriseId: application.enterpriseId,
    clientId: client.id,
    relatedParty: client.related_party,
    requested: principal,
    mode: configuration.creditCapMode,
  });
  const product = await LoanProduct.query(trx).findById(application.productId).throwIfNotFound();
  const approvedOn = effectiveBusinessDate(configuration, now);
  const { insurance, simulation } = quotedSimulation(product, application, approvedOn);
  const year = Number(approvedOn.slice(0, 4));
  const sequence = await nextSequenceValue(trx, {
    name: 'loan',
    enterpriseId: application.enterpriseId,
    branchId: application.branchId,
    year,
  });
  const loan = await Loan.query(trx).insert({
    enterpriseId: application.enterpriseId,
    branchId: application.branchId,
    clientId: application.clientId,
    productId: product.id,
    applicationId: application.id,
    number: `${client.branch_code}-P${year}-${String(sequence).padStart(5, '0')}`,
    principal: formatAmount(principal),
    fees: formatAmount(simulation.fees),
    insurancePremium: formatAmount(insurance.premium),
    insuranceCollection: insurance.collection,
    annualRate: product.annualRate,
    penaltyRate: product.penaltyRate,
    method: product.method,
    frequency: product.frequency,
    termPeriods: application.termPeriods,
    gracePeriods: application.gracePeriods,
    teg: simulation.teg,
    status: 'awaiting_disbursement',
    approvedOn,
    outstandingPrincipal: formatAmount(principal),
    loanOfficerId: application.loanOfficerId,
  });
  await insertSchedule(trx, loan.id, simulation.schedule, simulation.insuranceParts);
  // Guarantees offered with the application now secure the loan.
  await trx('loan_guarantees')
    .where({ application_id: application.id })
    .whereNull('loan_id')
    .update({ loan_id: loan.id });
  // The financing commitment given and the guarantees in force go off-balance as the loan is granted (docs/domain.md
  // §12.2).
  await postLoanEngagements(trx, { loanId: loan.id, date: approvedOn, createdBy: approvedBy.userId });
  await recordAudit(trx, approvedBy, {
    action: 'loan.create',
    entityType: 'loan',
    entityId: loan.id,
    enterpriseId: loan.enterpriseId,
    details: { number: loan.number, application: application.number, principal: loan.principal },
  });
  return loan.id;
}

/** A step left undecided beyond its time limit: the application ends as expired, with the reason. */
export async function expireLoanApplication(
  knex: Knex,
  now: Date,
  input: { applicationId: string; step: ApprovalStep; limitSeconds: number },
): Promise<void> {
  await inTransaction(knex, async (trx) => {
    const application = await LoanApplication.query(trx).findById(input.applicationId).forUpdate().throwIfNotFound();
    if (application.status !== 'in_review') return;
    const reason = `The ${input.step} step was not decided within ${describeLimit(input.limitSeconds)}.`;
    await trx('loan_applications')
      .where({ id: application.id })
      .update({ status: 'expired', current_step: null, status_reason: reason, ended_at: now });
    await recordAudit(trx, null, {
      action: 'loan_application.expire',
      entityType: 'loan_application',
      entityId: application.id,
      enterpriseId: application.enterpriseId,
      details: { step: input.step, reason },
    });
  });
}

const describeLimit = (seconds: number): string =>
  seconds % 86_400 === 0 ? `${seconds / 86_400} day(s)` : `${seconds} second(s)`;
