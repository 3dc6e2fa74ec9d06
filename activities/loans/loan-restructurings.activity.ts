import type { Knex } from 'knex';
import type { Role } from '../../domain/access';
import { AppError, NotFoundError } from '../../domain/errors';
import type { ApprovalStep } from '../../domain/loans/approval';
import type { LoanClass } from '../../domain/loans/classification';
import { accruePenalties, unpaidInsurance, type InstallmentState } from '../../domain/loans/position';
import {
  approversAbove,
  assertRestructuringTerms,
  requiredPayment,
  restructuredSchedule,
  type CapitalisedArrears,
  type NewSchedule,
  type RestructuringTerms,
} from '../../domain/loans/restructuring';
import { formatAmount, Money } from '../../domain/money';
import { Loan } from '../../db/models/loan.model';
import { LoanProduct } from '../../db/models/loan-product.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { readInstallments } from './installments';
import { replaceSchedule } from './schedule-versions';

/**
 * Restructuring a loan (R-2017/07 Arts. 11–14, docs/domain.md §14.2): the request, recorded `pending` while its
 * four-eyes request (`loan.restructure`) waits for a decider above the level that granted the loan; its effect on
 * approval, one transaction; its end unapplied (rejected, expired, failed).
 */

export interface RestructuringRequest extends RestructuringTerms {
  loanId: string;
  capitaliseArrears: boolean;
  capitalisedArrears: CapitalisedArrears;
  reason: string;
}

export interface OpenedRestructuring {
  id: string;
  loanNumber: string;
  enterpriseId: string;
  branchId: string;
  /** Art. 13: the roles above the step that granted the loan. */
  approverRoles: Role[];
}

const notActive = (loan: Loan) =>
  new AppError(
    'conflict',
    'loan_not_active',
    `Loan ${loan.number} is ${loan.status}: only an active loan is restructured.`,
  );

/** Records the request, `pending`: one at a time per loan, its terms within the loan's product. */
export async function openRestructuring(
  context: DataContext,
  actor: Actor,
  input: RestructuringRequest,
): Promise<OpenedRestructuring> {
  return inTransaction(context.knex, async (trx) => {
    const loan = await Loan.query(trx).findById(input.loanId).forUpdate();
    if (loan === undefined) throw new NotFoundError('The loan');
    if (loan.status !== 'active') throw notActive(loan);
    const product = await LoanProduct.query(trx).findById(loan.productId).throwIfNotFound();
    assertRestructuringTerms(input, product);
    const pending = await trx('loan_restructurings').where({ loan_id: loan.id, status: 'pending' }).first('id');
    if (pending !== undefined)
      throw new AppError(
        'conflict',
        'restructuring_pending',
        `Loan ${loan.number} already has a restructuring awaiting its decision.`,
      );
    const application = await trx('loan_applications').where({ id: loan.applicationId }).first('final_step');
    const [{ id }] = await trx('loan_restructurings')
      .insert({
        enterprise_id: loan.enterpriseId,
        branch_id: loan.branchId,
        loan_id: loan.id,
        term_periods: input.termPeriods,
        annual_rate: input.annualRate.toFixed(6),
        grace_periods: input.gracePeriods,
        capitalise_arrears: input.capitaliseArrears,
        capitalised_arrears: input.capitalisedArrears,
        reason: input.reason,
        requested_by: actor.userId,
        requested_at: context.clock(),
      })
      .returning('id');
    await recordAudit(trx, actor, {
      action: 'loan_restructuring.request',
      entityType: 'loan_restructuring',
      entityId: id,
      enterpriseId: loan.enterpriseId,
      details: { loan: loan.number, reason: input.reason },
    });
    const grantedBy = (application?.final_step ?? 'direction') as ApprovalStep;
    return {
      id,
      loanNumber: loan.number,
      enterpriseId: loan.enterpriseId,
      branchId: loan.branchId,
      approverRoles: approversAbove(grantedBy),
    };
  });
}

interface RestructuringRow {
  id: string;
  loan_id: string;
  status: string;
  term_periods: number;
  annual_rate: string;
  grace_periods: number;
  capitalise_arrears: boolean;
  capitalised_arrears: CapitalisedArrears;
}

/** What capitalising the arrears settles: each installment due by the date and unpaid, and the totals. */
interface Capitalisation {
  part: CapitalisedArrears;
  rows: InstallmentState[];
  principal: Money;
  /** Interest and penalties: they stay interest in the new series. */
  interest: Money;
  /** Spread insurance parts in arrears: they stay the insurer's, carried to the new series. */
  insurance: Money;
}

const zero = new Money(0);

/** The arrears at `date`; with `part` = interest, their principal is left out (kept due). */
function arrearsAt(installments: readonly InstallmentState[], date: string, part: CapitalisedArrears): Capitalisation {
  const principalOwed = (row: InstallmentState) => (part === 'all' ? row.principalDue.minus(row.principalPaid) : zero);
  const owed = (row: InstallmentState) =>
    principalOwed(row)
      .plus(row.interestDue)
      .plus(row.penaltyDue)
      .minus(row.interestPaid)
      .minus(row.penaltyPaid)
      .plus(unpaidInsurance(row));
  const rows = installments.filter((row) => row.dueDate <= date && !owed(row).isZero());
  const sum = (of: (row: InstallmentState) => Money) => rows.reduce((total, row) => total.plus(of(row)), zero);
  return {
    part,
    rows,
    principal: sum(principalOwed),
    interest: sum((row) => row.interestDue.minus(row.interestPaid).plus(row.penaltyDue).minus(row.penaltyPaid)),
    insurance: sum(unpaidInsurance),
  };
}

/**
 * Settles the arrears by capitalisation: paid on the date, the amounts capitalised kept beside what was paid. With
 * the interest only, an installment still owing principal stays open (no `paid_on`): that principal is kept due.
 */
async function capitalise(trx: Knex.Transaction, loanId: string, arrears: Capitalisation, date: string): Promise<void> {
  const all = arrears.part === 'all';
  for (const row of arrears.rows) {
    const settled = all || row.principalPaid.eq(row.principalDue);
    await trx('loan_installments')
      .where({ loan_id: loanId, number: row.number })
      .update({
        ...(all
          ? {
              principal_capitalised: formatAmount(row.principalDue.minus(row.principalPaid)),
              principal_paid: formatAmount(row.principalDue),
            }
          : {}),
        interest_capitalised: formatAmount(row.interestDue.minus(row.interestPaid)),
        penalty_capitalised: formatAmount(row.penaltyDue.minus(row.penaltyPaid)),
        insurance_capitalised: formatAmount(unpaidInsurance(row)),
        penalty_due: formatAmount(row.penaltyDue),
        penalty_through: date,
        interest_paid: formatAmount(row.interestDue),
        penalty_paid: formatAmount(row.penaltyDue),
        insurance_paid: formatAmount(row.insuranceDue ?? zero),
        capitalised_on: date,
        paid_on: settled ? date : null,
      });
  }
}

/** What the restructuring replaces and carries to the new series, from the installments at its date. */
interface RestructuringPlan {
  arrears: Capitalisation;
  /** The last installment kept: every one begun (due by the date, or paid in part) stays. */
  keptThrough: number;
  capitalised: Capitalisation;
  insurance: Money;
  restructured: Money;
}

function restructuringPlan(
  installments: readonly InstallmentState[],
  effectiveOn: string,
  row: RestructuringRow,
): RestructuringPlan {
  const arrears = arrearsAt(installments, effectiveOn, row.capitalised_arrears);
  const paidSome = (installment: InstallmentState) =>
    installment.principalPaid
      .plus(installment.interestPaid)
      .plus(installment.penaltyPaid)
      .plus(installment.insurancePaid ?? zero)
      .gt(0);
  const begun = installments.filter((installment) => installment.dueDate <= effectiveOn || paidSome(installment));
  const keptThrough = begun.reduce((last, installment) => Math.max(last, installment.number), 0);
  const replaced = installments.filter((installment) => installment.number > keptThrough);
  const later = replaced.reduce((total, installment) => total.plus(installment.principalDue), zero);
  const capitalised = row.capitalise_arrears
    ? arrears
    : { part: 'all' as const, rows: [], principal: zero, interest: zero, insurance: zero };
  // The spread premium not yet paid rides on the new series: the parts replaced, and those capitalised (§14.6).
  const insurance = replaced.reduce(
    (total, installment) => total.plus(unpaidInsurance(installment)),
    capitalised.insurance,
  );
  const restructured = later.plus(capitalised.principal);
  return { arrears, keptThrough, capitalised, insurance, restructured };
}

/** The new series: the request's terms on the principal restructured, with what the plan carries to it. */
function newSeries(row: RestructuringRow, loan: Loan, plan: RestructuringPlan, effectiveOn: string): NewSchedule {
  const terms = {
    termPeriods: row.term_periods,
    annualRate: new Money(row.annual_rate),
    gracePeriods: row.grace_periods,
  };
  return restructuredSchedule({
    ...terms,
    principal: plan.restructured,
    capitalisedInterest: plan.capitalised.interest,
    insurance: plan.insurance,
    method: loan.method,
    frequency: loan.frequency,
    effectiveOn,
  });
}

/** Records the restructuring approved, with what Art. 14 will read. */
async function recordApplied(
  trx: Knex.Transaction,
  applied: {
    id: string;
    number: number;
    effectiveOn: string;
    now: Date;
    loan: Loan;
    plan: RestructuringPlan;
    schedule: NewSchedule;
    scheduleVersion: number;
  },
): Promise<void> {
  const { loan, plan, schedule } = applied;
  await trx('loan_restructurings')
    .where({ id: applied.id })
    .update({
      status: 'approved',
      number: applied.number,
      effective_on: applied.effectiveOn,
      applied_at: applied.now,
      class_before: loan.classification satisfies LoanClass,
      outstanding_before: loan.outstandingPrincipal,
      principal_capitalised: formatAmount(plan.capitalised.principal),
      interest_capitalised: formatAmount(plan.capitalised.interest),
      insurance_carried: formatAmount(plan.insurance),
      restructured_amount: formatAmount(plan.restructured),
      required_payment: formatAmount(requiredPayment(plan.restructured, plan.arrears.interest)),
      first_due_date: schedule.installments[0]!.dueDate,
      kept_through: plan.keptThrough,
      schedule_version: applied.scheduleVersion,
      teg: schedule.teg,
    });
}

/**
 * The restructuring approved (the four-eyes executor, as its maker): the arrears capitalised if asked, the
 * installments not yet due replaced by the new series (`replaceSchedule`, reason `restructuring`), the loan flagged,
 * and what Art. 14 will read recorded. Idempotent: an applied restructuring is answered as it is.
 */
export async function applyRestructuring(
  context: DataContext,
  maker: Actor,
  payload: { restructuringId: string },
): Promise<{ restructuringId: string; scheduleVersion: number }> {
  return inTransaction(context.knex, async (trx) => {
    const row = (await trx('loan_restructurings').where({ id: payload.restructuringId }).forUpdate().first()) as
      (RestructuringRow & { schedule_version: number | null }) | undefined;
    if (row === undefined) throw new NotFoundError('The restructuring');
    if (row.status === 'approved') return { restructuringId: row.id, scheduleVersion: row.schedule_version! };
    if (row.status !== 'pending')
      throw new AppError('conflict', 'restructuring_closed', `The restructuring is ${row.status}.`);
    const loan = await Loan.query(trx).findById(row.loan_id).forUpdate().throwIfNotFound();
    if (loan.status !== 'active') throw notActive(loan);
    const now = context.clock();
    const effectiveOn = await businessDateOf(trx, loan.enterpriseId, now);
    const installments = accruePenalties(
      await readInstallments(trx, loan.id),
      effectiveOn,
      new Money(loan.penaltyRate),
    );
    const plan = restructuringPlan(installments, effectiveOn, row);
    const { keptThrough, capitalised, restructured } = plan;
    if (restructured.isZero())
      throw new AppError(
        'conflict',
        'nothing_to_restructure',
        `Loan ${loan.number} has no principal left to fall due to restructure.`,
      );
    if (row.capitalise_arrears) await capitalise(trx, loan.id, capitalised, effectiveOn);
    const schedule = newSeries(row, loan, plan, effectiveOn);
    const scheduleVersion = await replaceSchedule(trx, {
      loanId: loan.id,
      reason: 'restructuring',
      effectiveOn,
      keptThrough,
      replacement: schedule.installments,
      insurance: schedule.insurance,
      outstandingPrincipal: new Money(loan.outstandingPrincipal),
      teg: schedule.teg,
      createdBy: maker.userId,
    });
    const number = loan.restructuringCount + 1;
    await Loan.query(trx).patchAndFetchById(loan.id, {
      restructured: true,
      restructuringCount: number,
      restructuredOn: effectiveOn,
      teg: schedule.teg,
    });
    await recordApplied(trx, { id: row.id, number, effectiveOn, now, loan, plan, schedule, scheduleVersion });
    await recordAudit(trx, maker, {
      action: 'loan.restructure',
      entityType: 'loan',
      entityId: loan.id,
      enterpriseId: loan.enterpriseId,
      details: { restructuring: row.id, number, schedule_version: scheduleVersion, teg: schedule.teg },
    });
    return { restructuringId: row.id, scheduleVersion };
  });
}

/** The request ended unapplied (the four-eyes closer, in its transaction): the restructuring ends with it, and why. */
export async function closeRestructuring(
  trx: Knex.Transaction,
  payload: { restructuringId: string },
  closing: { status: 'rejected' | 'expired' | 'failed'; reason: string | null },
): Promise<void> {
  await trx('loan_restructurings')
    .where({ id: payload.restructuringId, status: 'pending' })
    .update({ status: closing.status, decision_reason: closing.reason });
}
