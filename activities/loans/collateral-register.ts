import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { collateralRegister, type CollateralRegister } from '../../domain/loans/collateral-register';
import { countableValue, type GuaranteeKind } from '../../domain/loans/provisioning';
import { Money } from '../../domain/money';
import { provisionPositionsAt } from './provisioning.activity';

interface CollateralRow {
  guarantee: string;
  loan: string;
  loan_number: string;
  branch: string;
  member_number: string;
  member_name: string;
  classification: string;
  doubtful_since: string | null;
  outstanding: string;
  kind: GuaranteeKind;
  value: string;
  valuation_date: string;
  document_reference: string;
  guarantor: string | null;
  guarantor_name: string | null;
  account: string | null;
}

const nameOf = (alias: string) =>
  `CASE WHEN ${alias}.kind = 'natural_person' THEN trim(${alias}.first_name || ' ' || ${alias}.last_name)
    ELSE ${alias}.legal_name END`;

/**
 * A guarantee's value and valuation date in force at :asOf: its latest revaluation dated by then; before its first
 * one, the value that one replaced; never revalued, its own.
 */
const valueInForce = `SELECT value, valuation_date FROM (
    (SELECT r.value, r.valuation_date, 0 AS rank FROM guarantee_revaluations r
      WHERE r.guarantee_id = g.id AND r.valuation_date <= :asOf ORDER BY r.valuation_date DESC, r.created_at DESC
        LIMIT 1)
    UNION ALL
    (SELECT r.value_before, r.valuation_date_before, 1 FROM guarantee_revaluations r
      WHERE r.guarantee_id = g.id AND r.valuation_date > :asOf ORDER BY r.valuation_date, r.created_at LIMIT 1)
    UNION ALL
    SELECT g.value, COALESCE(g.valuation_date, g.start_date), 2
  ) AS candidates ORDER BY rank LIMIT 1`;

/**
 * The guarantees in force at `asOf` (confirmed, started, not ended before it, as the provisioning run counts them) on
 * the loans of the portfolio then, in the branches, with their loan's position of that date. A value is the one in
 * force at the date (`valueInForce`); a loan doubtful at the date counts its years from its downgrade.
 */
export async function collateralRegisterAt(
  knex: Knex,
  scope: { enterpriseId: string; asOf: IsoDate; branches: 'all' | readonly string[] },
): Promise<CollateralRegister> {
  const query = provisionPositionsAt(knex, scope.asOf)
    .join('loan_guarantees as g', 'g.loan_id', 'l.id')
    .join('client_profiles as c', 'c.id', 'l.client_id')
    .leftJoin('client_profiles as gc', 'gc.id', 'g.guarantor_client_id')
    .joinRaw(`CROSS JOIN LATERAL (${valueInForce}) AS v`, { asOf: scope.asOf })
    .where('l.enterprise_id', scope.enterpriseId)
    .where('g.status', 'in_force')
    .where('g.start_date', '<=', scope.asOf)
    .where((q) => q.whereNull('g.end_date').orWhere('g.end_date', '>=', scope.asOf))
    .select(
      'g.id as guarantee',
      'l.id as loan',
      'l.number as loan_number',
      'l.branch_id as branch',
      'c.member_number',
      'g.kind',
      'v.value',
      'g.document_reference',
      'g.guarantor_client_id as guarantor',
      'g.compte_client_id as account',
      knex.raw(`${nameOf('c')} AS member_name`),
      knex.raw(`CASE WHEN gc.id IS NULL THEN NULL ELSE ${nameOf('gc')} END AS guarantor_name`),
      knex.raw(`to_char(l.doubtful_since, 'YYYY-MM-DD') AS doubtful_since`),
      knex.raw(`to_char(v.valuation_date, 'YYYY-MM-DD') AS valuation_date`),
    )
    .orderBy([{ column: 'l.number' }, { column: 'g.created_at' }, { column: 'g.id' }]);
  if (scope.branches !== 'all') query.whereIn('l.branch_id', [...scope.branches]);
  const rows: CollateralRow[] = await query;
  return collateralRegister(
    rows.map((row) => {
      const value = new Money(row.value);
      const doubtfulSince = row.classification === 'doubtful' ? row.doubtful_since : null;
      return {
        guarantee: row.guarantee,
        loan: row.loan,
        loanNumber: row.loan_number,
        branch: row.branch,
        memberNumber: row.member_number,
        memberName: row.member_name,
        classification: row.classification,
        outstanding: new Money(row.outstanding),
        kind: row.kind,
        value,
        valuationDate: row.valuation_date,
        documentReference: row.document_reference,
        guarantor: row.guarantor,
        guarantorName: row.guarantor_name,
        account: row.account,
        countableValue: countableValue(row.kind, value, { doubtfulSince }, scope.asOf),
      };
    }),
  );
}
