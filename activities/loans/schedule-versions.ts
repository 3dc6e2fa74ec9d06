import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import type { Installment } from '../../domain/loans/schedule';
import { formatAmount, Money } from '../../domain/money';
import { loanEnterprise } from './installments';

/**
 * A loan's schedule versions (issue 30, docs/domain.md §4): `loan_installments` is the version in force with what
 * was paid on it; `loan_schedule_versions` keeps every version as it was made. A prepayment or a restructuring
 * replaces the installments not yet begun to be paid by a new series and records the new version.
 */

export type ScheduleVersionReason = 'original' | 'prepayment' | 'restructuring';

export interface ScheduleVersionInstallment {
  number: number;
  dueDate: IsoDate;
  principalDue: Money;
  interestDue: Money;
}

export interface ScheduleVersion {
  version: number;
  reason: ScheduleVersionReason;
  effectiveOn: IsoDate;
  outstandingPrincipal: Money;
  teg: string;
  installments: ScheduleVersionInstallment[];
  createdBy: string | null;
  createdAt: string;
}

interface VersionRow {
  version: number;
  reason: ScheduleVersionReason;
  effective_on: string;
  outstanding_principal: string;
  teg: string;
  installments: Array<{ number: number; due_date: string; principal_due: string; interest_due: string }>;
  created_by: string | null;
  created_at: Date;
}

/** Every version of a loan's schedule, the first first. */
export async function scheduleVersionsOf(knex: Knex, loanId: string): Promise<ScheduleVersion[]> {
  const rows: VersionRow[] = await knex('loan_schedule_versions').where({ loan_id: loanId }).orderBy('version');
  return rows.map((row) => ({
    version: row.version,
    reason: row.reason,
    effectiveOn: row.effective_on,
    outstandingPrincipal: new Money(row.outstanding_principal),
    teg: row.teg,
    installments: row.installments.map((installment) => ({
      number: installment.number,
      dueDate: installment.due_date,
      principalDue: new Money(installment.principal_due),
      interestDue: new Money(installment.interest_due),
    })),
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
  }));
}

interface NewVersion {
  version: number;
  reason: ScheduleVersionReason;
  effectiveOn: IsoDate;
  outstandingPrincipal: Money;
  teg: string;
  createdBy: string | null;
}

/** A version's installments as stored: those of `loan_installments i` (grouped by loan) as they now are due. */
const versionInstallments = `jsonb_agg(jsonb_build_object('number', i.number, 'due_date', i.due_date, 'principal_due',
  i.principal_due::text, 'interest_due', i.interest_due::text)
  ORDER BY i.number)`;

/** Records the version now in force, every installment of `loan_installments` as it now is due. */
async function recordVersion(trx: Knex.Transaction, loanId: string, version: NewVersion): Promise<void> {
  await trx.raw(
    `INSERT INTO loan_schedule_versions (enterprise_id, loan_id, version, reason, effective_on, outstanding_principal,
      teg, installments, created_by)
     SELECT (SELECT l.enterprise_id FROM loans l WHERE l.id = :loanId), :loanId, :version, :reason, :effectiveOn,
       :outstanding, :teg, ${versionInstallments}, :createdBy
       FROM loan_installments i WHERE i.loan_id = :loanId`,
    {
      loanId,
      version: version.version,
      reason: version.reason,
      effectiveOn: version.effectiveOn,
      outstanding: formatAmount(version.outstandingPrincipal),
      teg: version.teg,
      createdBy: version.createdBy,
    },
  );
}

/** Version 1, recorded by the disbursement once it has written the schedule it grants. */
export async function recordOriginalVersion(
  trx: Knex.Transaction,
  loan: { id: string; principal: Money; teg: string; disbursedOn: IsoDate; createdBy: string },
): Promise<void> {
  await recordVersion(trx, loan.id, {
    version: 1,
    reason: 'original',
    effectiveOn: loan.disbursedOn,
    outstandingPrincipal: loan.principal,
    teg: loan.teg,
    createdBy: loan.createdBy,
  });
}

/**
 * Version 1 of many loans in one statement (the go-live import's batches, docs/domain.md §15.2): each loan's
 * principal, TEG and disbursement date as its row holds them, its installments as written.
 */
export async function recordOriginalVersions(
  trx: Knex.Transaction,
  loanIds: readonly string[],
  createdBy: string,
): Promise<void> {
  await trx.raw(
    `INSERT INTO loan_schedule_versions (enterprise_id, loan_id, version, reason, effective_on, outstanding_principal,
      teg, installments, created_by)
     SELECT l.enterprise_id, l.id, 1, 'original', l.disbursed_on, l.principal, l.teg, ${versionInstallments}, :createdBy
       FROM loans l JOIN loan_installments i ON i.loan_id = l.id AND i.enterprise_id = l.enterprise_id
      WHERE l.id = ANY(:loanIds) GROUP BY l.id, l.enterprise_id`,
    { loanIds: [...loanIds], createdBy },
  );
}

export interface ScheduleReplacement {
  loanId: string;
  reason: Exclude<ScheduleVersionReason, 'original'>;
  effectiveOn: IsoDate;
  /** The installments numbered up to this one stay as they are; every later one is replaced. */
  keptThrough: number;
  /** The new series, numbered from 1: it is renumbered after the kept installments. */
  replacement: readonly Pick<Installment, 'dueDate' | 'principal' | 'interest'>[];
  /**
   * Each new installment's part of a spread insurance premium carried over (docs/domain.md §14.6); none when absent.
   */
  insurance?: readonly Money[];
  outstandingPrincipal: Money;
  teg: string;
  createdBy: string;
}

/**
 * Puts a new version in force: the installments after `keptThrough` go (none may have anything paid: the caller
 * settles or keeps them first), the replacement follows them, the loan points to the new version and the version
 * is recorded. The caller holds the loan's row lock. Returns the new version's number.
 */
export async function replaceSchedule(trx: Knex.Transaction, replacement: ScheduleReplacement): Promise<number> {
  const { loanId, keptThrough } = replacement;
  const paidLater = await trx('loan_installments')
    .where({ loan_id: loanId })
    .where('number', '>', keptThrough)
    .where((paid) =>
      paid
        .where('principal_paid', '>', 0)
        .orWhere('interest_paid', '>', 0)
        .orWhere('penalty_paid', '>', 0)
        .orWhere('insurance_paid', '>', 0),
    )
    .first('number');
  if (paidLater !== undefined)
    throw new Error(`installment ${paidLater.number} of loan ${loanId} has payments: it cannot be replaced`);
  await trx('loan_installments').where({ loan_id: loanId }).where('number', '>', keptThrough).delete();
  if (replacement.replacement.length > 0) {
    await trx('loan_installments').insert(
      replacement.replacement.map((installment, index) => ({
        enterprise_id: loanEnterprise(trx, loanId),
        loan_id: loanId,
        number: keptThrough + index + 1,
        due_date: installment.dueDate,
        principal_due: formatAmount(installment.principal),
        interest_due: formatAmount(installment.interest),
        insurance_due: formatAmount(replacement.insurance?.[index] ?? new Money(0)),
        penalty_through: installment.dueDate,
      })),
    );
  }
  const [{ schedule_version: version }] = await trx('loans')
    .where({ id: loanId })
    .increment('schedule_version', 1)
    .returning('schedule_version');
  const { reason, effectiveOn, outstandingPrincipal, teg, createdBy } = replacement;
  await recordVersion(trx, loanId, { version, reason, effectiveOn, outstandingPrincipal, teg, createdBy });
  return version;
}
