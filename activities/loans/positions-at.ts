import type { Knex } from 'knex';
import { provisionPositionsAt } from './provisioning.activity';
import { addMonthsClamped, parseIsoDate, type IsoDate } from '../../domain/calendar';
import type { LoanPositionAt } from '../../domain/loans/arrears-statement';
import type { LoanClass } from '../../domain/loans/classification';
import { Money } from '../../domain/money';

/** A loan at a date, with what the prudential report reads besides its position. */
export interface LoanAt extends LoanPositionAt {
  relatedParty: boolean;
  /**
   * Principal of its installments falling due in the three months after the date, unpaid at it (the liquidity ratio's
   * maturity ladder).
   */
  principalDueWithinThreeMonths: Money;
}

interface PositionRow {
  loan: string;
  loan_number: string;
  branch: string;
  member: string;
  member_number: string;
  member_name: string;
  related_party: boolean;
  classification: LoanClass;
  litigious: boolean;
  days_past_due: number;
  outstanding: string;
  uncovered: string;
  amount: string;
  arrears: string;
  due_soon: string;
}

/**
 * What an installment still owed at `asOf` counts of `column` (principal or interest): all of it when it was
 * paid off after the date, nothing when paid off by then, and the unpaid rest while it is not paid off. A
 * partial payment made after the date is counted as made by it (the installments keep what was paid, not
 * when): an approximation that can only lower the figure, and that disappears on the business date itself.
 */
export const unpaidAt = (column: 'principal' | 'interest') =>
  `CASE WHEN i.paid_on IS NULL THEN i.${column}_due - i.${column}_paid WHEN i.paid_on > :asOf THEN i.${column}_due
    ELSE 0 END`;

/**
 * Every loan of the portfolio at `asOf` in the branches (docs/domain.md §10): its position of that date (the
 * provisioning run's rows: class, days past due, outstanding principal, uncovered part, provision), its
 * member, its arrears at the date and the principal it has falling due within three months.
 */
export async function loansAt(
  knex: Knex,
  scope: { enterpriseId: string; asOf: IsoDate; branches: 'all' | readonly string[] },
): Promise<LoanAt[]> {
  const bindings = { asOf: scope.asOf, soon: addMonthsClamped(parseIsoDate(scope.asOf), 3) };
  // Every loan's installments summed in one pass (a subquery per loan and figure read them twice per loan).
  const dues = knex('loan_installments as i')
    .where('i.enterprise_id', scope.enterpriseId)
    .where('i.due_date', '<=', bindings.soon)
    // Paid off by the date: nothing owed (unpaidAt), so not read.
    .where((unpaid) => unpaid.whereNull('i.paid_on').orWhere('i.paid_on', '>', bindings.asOf))
    .groupBy('i.loan_id')
    .select(
      'i.loan_id',
      knex.raw(
        `sum(${unpaidAt('principal')} + ${unpaidAt('interest')}) FILTER (WHERE i.due_date <= :asOf) AS arrears`,
        bindings,
      ),
      knex.raw(`sum(${unpaidAt('principal')}) FILTER (WHERE i.due_date > :asOf) AS due_soon`, bindings),
    );
  const positions = provisionPositionsAt(knex, scope.asOf)
    .join('client_profiles as c', 'c.id', 'l.client_id')
    .leftJoin(dues.as('d'), 'd.loan_id', 'l.id')
    .where('l.enterprise_id', scope.enterpriseId)
    .select(
      'l.id as loan',
      'l.number as loan_number',
      'l.branch_id as branch',
      'l.client_id as member',
      'c.member_number',
      'c.related_party',
      'l.litigious',
      knex.raw(
        `CASE WHEN c.kind = 'natural_person' THEN trim(c.first_name || ' ' || c.last_name) ELSE c.legal_name
          END AS member_name`,
      ),
      knex.raw('COALESCE(p.days_past_due, 0) AS days_past_due'),
      knex.raw('CAST(COALESCE(d.arrears, 0) AS text) AS arrears'),
      knex.raw('CAST(COALESCE(d.due_soon, 0) AS text) AS due_soon'),
    );
  if (scope.branches !== 'all') positions.whereIn('l.branch_id', [...scope.branches]);
  const rows: PositionRow[] = await positions;
  return rows.map((row) => ({
    loan: row.loan,
    loanNumber: row.loan_number,
    branch: row.branch,
    member: row.member,
    memberNumber: row.member_number,
    memberName: row.member_name,
    relatedParty: row.related_party,
    classification: row.classification,
    litigious: row.litigious,
    daysPastDue: Number(row.days_past_due),
    outstanding: new Money(row.outstanding),
    uncovered: new Money(row.uncovered),
    provisions: new Money(row.amount),
    arrears: new Money(row.arrears),
    principalDueWithinThreeMonths: new Money(row.due_soon),
  }));
}
