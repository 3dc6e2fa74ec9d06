import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import type { LoanClass } from '../../domain/loans/classification';
import { provisionPositionsAt } from './provisioning.activity';

/** One restructured loan at a date: where it stands then and each of its restructurings applied by then. */
export interface RegisterLoan {
  loan: string;
  number: string;
  branch: string;
  memberNumber: string;
  memberName: string;
  /** Its class and outstanding principal at the date (its provisioning position then). */
  classification: LoanClass;
  outstanding: string;
  restructurings: {
    number: number;
    effectiveOn: string;
    classBefore: LoanClass;
    restructuredAmount: string;
    requiredPayment: string;
    teg: string;
  }[];
}

interface RegisterRow {
  loan: string;
  number: string;
  branch: string;
  member_number: string;
  member_name: string;
  classification: LoanClass;
  outstanding: string;
  restructurings: {
    number: number;
    effective_on: string;
    class_before: LoanClass;
    restructured_amount: string;
    required_payment: string;
    teg: string;
  }[];
}

/**
 * The restructured-loan register at `asOf` (docs/domain.md §14.2): every loan of the branches in the portfolio then
 * with a restructuring applied by then, its position at the date and its restructurings, by loan number.
 */
export async function restructuredRegister(
  knex: Knex,
  scope: { enterpriseId: string; asOf: IsoDate; branches: 'all' | readonly string[] },
): Promise<RegisterLoan[]> {
  const applied = knex('loan_restructurings as r')
    .where({ 'r.status': 'approved' })
    .where('r.effective_on', '<=', scope.asOf);
  const query = provisionPositionsAt(knex, scope.asOf)
    .join('client_profiles as c', 'c.id', 'l.client_id')
    .where('l.enterprise_id', scope.enterpriseId)
    .whereIn('l.id', applied.clone().select('r.loan_id'))
    .select(
      'l.id as loan',
      'l.number',
      'l.branch_id as branch',
      'c.member_number',
      knex.raw(
        `CASE WHEN c.kind = 'natural_person' THEN trim(c.first_name || ' ' || c.last_name) ELSE c.legal_name
          END AS member_name`,
      ),
      knex.raw(
        `(SELECT jsonb_agg(jsonb_build_object('number', r.number, 'effective_on', r.effective_on, 'class_before',
          r.class_before,
                   'restructured_amount', r.restructured_amount::text, 'required_payment', r.required_payment::text,
                     'teg', r.teg::text) ORDER BY r.number)
                 FROM loan_restructurings r WHERE r.loan_id = l.id AND r.status = 'approved'
                   AND r.effective_on <= ?) AS restructurings`,
        [scope.asOf],
      ),
    )
    .orderBy('l.number');
  if (scope.branches !== 'all') query.whereIn('l.branch_id', [...scope.branches]);
  const rows: RegisterRow[] = await query;
  return rows.map((row) => ({
    loan: row.loan,
    number: row.number,
    branch: row.branch,
    memberNumber: row.member_number,
    memberName: row.member_name,
    classification: row.classification,
    outstanding: String(row.outstanding),
    restructurings: row.restructurings.map((item) => ({
      number: item.number,
      effectiveOn: item.effective_on,
      classBefore: item.class_before,
      restructuredAmount: item.restructured_amount,
      requiredPayment: item.required_payment,
      teg: item.teg,
    })),
  }));
}
