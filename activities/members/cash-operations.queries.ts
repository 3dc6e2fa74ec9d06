import type { Knex } from 'knex';
import { cashOperationsQuery, type CashDirection, type CashOperationRow } from './cash-operations.activity';

/** The reads of deposits and withdrawals: lists newest first, and one receipt with where it was made. */

/** A cash operation with where it was made. */
export type CashOperationAt = CashOperationRow & { enterprise_id: string; branch_id: string };

/** The deposits or the withdrawals over the business dates asked, newest first. */
export function cashOperationsOf(
  knex: Knex,
  direction: CashDirection,
  range: { date_from?: string; date_to?: string },
): Knex.QueryBuilder {
  const builder = cashOperationsQuery(knex)
    .where('ev.kind', direction)
    .orderBy([{ column: 'ev.created_at', order: 'desc' }, { column: 'ev.id' }]);
  if (range.date_from !== undefined) builder.where('ev.business_date', '>=', range.date_from);
  if (range.date_to !== undefined) builder.where('ev.business_date', '<=', range.date_to);
  return builder;
}

export const cashOperationAt = (knex: Knex, direction: CashDirection, id: string) =>
  cashOperationsQuery(knex)
    .select('ev.enterprise_id', 'ev.branch_id')
    .where('ev.id', id)
    .where('ev.kind', direction)
    .first() as Promise<CashOperationAt | undefined>;
