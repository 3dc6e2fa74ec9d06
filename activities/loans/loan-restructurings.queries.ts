import type { Knex } from 'knex';
import type { Role } from '../../domain/access';
import type { IsoDate } from '../../domain/calendar';
import type { LoanClass } from '../../domain/loans/classification';
import { transitionDays, type CapitalisedArrears, type RestructuringState } from '../../domain/loans/restructuring';
import { Money } from '../../domain/money';
import { loanOperationsQuery } from './loan-operations';

/** Reads of restructurings (docs/domain.md §14.2): what the provisioning run, the routes and the register read. */

interface StateRow {
  loan_id: string;
  number: number;
  class_before: LoanClass;
  first_due_date: string;
  required_payment: string;
  paid_since: string;
  missed: boolean;
}

/**
 * The latest restructuring applied by `asOf` of each of these loans that has one: what the borrower paid on the loan
 * since (its repayments recorded after the restructuring, dated by `asOf`), and whether an installment of the new
 * series fell due within the transition and was not paid by its due date (unpaid, or paid later).
 */
export async function restructuringStates(
  trx: Knex | Knex.Transaction,
  loanIds: readonly string[],
  asOf: IsoDate,
): Promise<Map<string, RestructuringState>> {
  if (loanIds.length === 0) return new Map();
  const result = await trx.raw<{ rows: StateRow[] }>(
    `SELECT DISTINCT ON (r.loan_id) r.loan_id, r.number, r.class_before,
      to_char(r.first_due_date, 'YYYY-MM-DD') AS first_due_date, r.required_payment,
            (SELECT COALESCE(sum(p.amount), 0) FROM loan_repayments p WHERE p.loan_id = r.loan_id
              AND p.created_at > r.applied_at AND p.business_date <= :asOf)::text AS paid_since,
            EXISTS (SELECT 1 FROM loan_installments i WHERE i.loan_id = r.loan_id AND i.number > r.kept_through
              AND i.due_date < :asOf
                      AND i.due_date < r.first_due_date + :transitionDays::int
                        AND (i.paid_on IS NULL OR i.paid_on > i.due_date)) AS missed
     FROM loan_restructurings r
     WHERE r.loan_id = ANY(:loanIds::uuid[]) AND r.status = 'approved' AND r.effective_on <= :asOf
     ORDER BY r.loan_id, r.number DESC`,
    { loanIds: [...loanIds], asOf, transitionDays },
  );
  return new Map(
    result.rows.map((row) => [
      row.loan_id,
      {
        count: row.number,
        classBefore: row.class_before,
        firstDueDate: row.first_due_date,
        required: new Money(row.required_payment),
        paidSince: new Money(row.paid_since),
        missedInTransition: row.missed,
      },
    ]),
  );
}

/** A restructuring as the routes read it: its row, its loan's number and its four-eyes request's decision. */
export interface RestructuringRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  loan_id: string;
  loan_number: string;
  status: 'pending' | 'approved' | 'rejected' | 'expired' | 'failed';
  term_periods: number;
  annual_rate: string;
  grace_periods: number;
  capitalise_arrears: boolean;
  capitalised_arrears: CapitalisedArrears;
  reason: string;
  requested_by: string;
  requested_at: Date;
  approval_request_id: string | null;
  approver_roles: Role[] | null;
  decided_by: string | null;
  request_reason: string | null;
  decision_reason: string | null;
  number: number | null;
  effective_on: string | null;
  class_before: LoanClass | null;
  outstanding_before: string | null;
  principal_capitalised: string | null;
  interest_capitalised: string | null;
  insurance_carried: string | null;
  restructured_amount: string | null;
  required_payment: string | null;
  first_due_date: string | null;
  schedule_version: number | null;
  teg: string | null;
}

/** Every restructuring with its loan's number and its request (the request's payload names the restructuring). */
export const restructuringsQuery = (knex: Knex) =>
  loanOperationsQuery(knex, 'loan_restructurings')
    .leftJoin('approval_requests as a', (join) =>
      join
        .on('a.operation', knex.raw('?', ['loan.restructure']))
        .andOn(knex.raw(`a.payload->>'restructuringId' = r.id::text`)),
    )
    .select(
      'r.status',
      'r.term_periods',
      'r.annual_rate',
      'r.grace_periods',
      'r.capitalise_arrears',
      'r.capitalised_arrears',
      'r.reason',
      'r.requested_by',
      'r.requested_at',
      'a.id as approval_request_id',
      'a.approver_roles',
      'a.decided_by',
      'a.reason as request_reason',
      'r.decision_reason',
      'r.number',
      knex.raw(`to_char(r.effective_on, 'YYYY-MM-DD') AS effective_on`),
      'r.class_before',
      'r.outstanding_before',
      'r.principal_capitalised',
      'r.interest_capitalised',
      'r.insurance_carried',
      'r.restructured_amount',
      'r.required_payment',
      knex.raw(`to_char(r.first_due_date, 'YYYY-MM-DD') AS first_due_date`),
      'r.schedule_version',
      'r.teg',
    );
