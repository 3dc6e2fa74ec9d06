import type { Knex } from 'knex';
import { overCashLimit } from '../../domain/cash/till-transfers';
import { tillsQuery, type TillRow, type TillSessionRow } from './tills.queries';

/** A till transfer as read (docs/domain.md §13.2), with its till's code and account, amounts as whole-franc text. */
export interface TillTransferRow extends Pick<
  TillSessionRow,
  'id' | 'enterprise_id' | 'branch_id' | 'till_id' | 'till_code' | 'account_code'
> {
  kind: 'to_till' | 'to_vault';
  amount: string;
  count: Record<string, number> | null;
  status: 'pending' | 'confirmed' | 'cancelled';
  business_date: string;
  requested_by: string;
  request_entry_id: string;
  received_count: Record<string, number> | null;
  decided_by: string | null;
  decided_at: Date | null;
  decision_entry_id: string | null;
  created_at: Date;
}

export const tillTransfersQuery = (knex: Knex | Knex.Transaction): Knex.QueryBuilder =>
  knex('till_transfers as x')
    .join('tills as t', 't.id', 'x.till_id')
    .select(
      'x.id',
      'x.enterprise_id',
      'x.branch_id',
      'x.till_id',
      't.code as till_code',
      't.account_code',
      'x.kind',
      knex.raw('x.amount::text AS amount'),
      'x.count',
      'x.status',
      knex.raw("to_char(x.business_date, 'YYYY-MM-DD') AS business_date"),
      'x.requested_by',
      'x.request_entry_id',
      'x.received_count',
      'x.decided_by',
      'x.decided_at',
      'x.decision_entry_id',
      'x.created_at',
    );

export const tillTransferById = (knex: Knex | Knex.Transaction, id: string) =>
  tillTransfersQuery(knex).where('x.id', id).first() as Promise<TillTransferRow | undefined>;

/**
 * The warning a cash operation's answer carries when the operator's till, in session, holds more than its cash
 * limit (docs/domain.md §13.2): null when the operator has no till in session or the till has no limit.
 */
export async function tillLimitWarning(
  knex: Knex | Knex.Transaction,
  userId: string,
): Promise<{ till_over_limit: boolean; till_cash_limit: string } | null> {
  const till = (await tillsQuery(knex)
    .where({ 't.cashier_id': userId, 't.kind': 'till', 't.is_active': true })
    .whereNotNull('t.cash_limit')
    .whereExists(knex('till_sessions as s').whereRaw('s.till_id = t.id').where('s.status', 'open'))
    .first()) as TillRow | undefined;
  return till === undefined
    ? null
    : { till_over_limit: overCashLimit(till.balance, till.cash_limit), till_cash_limit: till.cash_limit! };
}
