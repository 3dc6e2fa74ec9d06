import type { Knex } from 'knex';
import type { GuaranteeKind } from '../../domain/loans/provisioning';

const columns = [
  'g.id',
  'g.enterprise_id',
  'g.application_id',
  'g.loan_id',
  'g.kind',
  'g.value',
  'g.start_date',
  'g.end_date',
  'g.description',
  'g.compte_client_id',
  'g.status',
  'g.created_by',
  'g.created_at',
  'g.guarantor_client_id',
  'g.document_reference',
];

export interface GuaranteeRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  application_id: string | null;
  loan_id: string | null;
  kind: GuaranteeKind;
  value: string;
  start_date: string;
  end_date: string | null;
  description: string;
  compte_client_id: string | null;
  guarantor_client_id: string | null;
  /** When the value was assessed (a guarantee recorded before issue 30: its start date). */
  valuation_date: string;
  document_reference: string;
  /** Its loan's status (null on an application). */
  loan_status: string | null;
  /** The loan's downgrade to doubtful (null: not doubtful, or an application), which the countable value reads. */
  doubtful_since: string | null;
  status: 'pending' | 'in_force' | 'refused';
  pending_change: 'add' | 'end' | 'revalue' | null;
  pending_end_date: string | null;
  /** A pending revaluation's value and valuation date. */
  pending_value: string | null;
  pending_valuation_date: string | null;
  requested_by: string | null;
  created_by: string;
  created_at: Date;
}

/**
 * The first pending four-eyes request of each guarantee, its addition or its end (the route asks one at a time; a race
 * may ask two).
 */
const pendingChanges = (knex: Knex) =>
  knex('approval_requests')
    .where({ operation: 'guarantee.change', status: 'pending' })
    .select(
      knex.raw(`DISTINCT ON (payload->>'guaranteeId') payload->>'guaranteeId' AS guarantee_id,
        payload->>'endDate' AS end_date, maker_id,
                    payload->>'value' AS value, payload->>'valuationDate' AS valuation_date,
                    CASE WHEN payload->>'change' = 'revalue' THEN 'revalue' WHEN payload->>'endDate' IS NULL THEN 'add'
                      ELSE 'end' END AS change`),
    )
    .orderByRaw(`payload->>'guaranteeId', created_at`)
    .as('r');

/**
 * Guarantees with the branch they belong to (their loan's or application's), for scoping, and their pending change:
 * an addition or an end awaiting its four-eyes request's approval (`guarantee.change`).
 */
export function guarantees(knex: Knex) {
  const rows = knex('loan_guarantees as g')
    .leftJoin('loans as l', 'l.id', 'g.loan_id')
    .leftJoin('loan_applications as a', 'a.id', 'g.application_id')
    .leftJoin(pendingChanges(knex), (join) => join.on(knex.raw('r.guarantee_id = g.id::text')))
    .select([
      ...columns,
      knex.raw('COALESCE(l.branch_id, a.branch_id) AS branch_id'),
      knex.raw('COALESCE(g.valuation_date, g.start_date) AS valuation_date'),
      'l.status AS loan_status',
      knex.raw(`to_char(l.doubtful_since, 'YYYY-MM-DD') AS doubtful_since`),
      'r.change AS pending_change',
      knex.raw(`to_char(r.end_date::date, 'YYYY-MM-DD') AS pending_end_date`),
      'r.value AS pending_value',
      'r.valuation_date AS pending_valuation_date',
      'r.maker_id AS requested_by',
    ]);
  return knex.from(rows.as('x')).select('*');
}

export const guaranteeById = async (knex: Knex, id: string): Promise<GuaranteeRow | undefined> =>
  guarantees(knex).where('x.id', id).first();
