import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';

/**
 * The reads of vault counts and of the settlements of cash differences (issue 29, docs/domain.md §13.2), and the
 * two questions the branch's day close asks (§13.3).
 */

export interface VaultCountRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  business_date: string;
  count: Record<string, number>;
  total: string;
  book_balance: string;
  entry_id: string | null;
  counted_by: string;
  settlement_id: string | null;
  created_at: Date;
}

export const vaultCountsQuery = (knex: Knex | Knex.Transaction): Knex.QueryBuilder =>
  knex('vault_counts as v')
    .leftJoin('cash_settlements as cs', 'cs.difference_entry_id', 'v.entry_id')
    .select(
      'v.id',
      'v.enterprise_id',
      'v.branch_id',
      knex.raw("to_char(v.business_date, 'YYYY-MM-DD') AS business_date"),
      'v.count',
      knex.raw('v.total::text AS total'),
      knex.raw('v.book_balance::text AS book_balance'),
      'v.entry_id',
      'v.counted_by',
      'cs.id as settlement_id',
      'v.created_at',
    );

export const vaultCountById = (knex: Knex | Knex.Transaction, id: string) =>
  vaultCountsQuery(knex).where('v.id', id).first() as Promise<VaultCountRow | undefined>;

export interface SettlementRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  difference_entry_id: string;
  kind: 'shortage' | 'excess';
  mode: 'recovered' | 'written_off' | 'returned';
  amount: string;
  account_code: string;
  entry_id: string;
  settled_by: string;
  created_at: Date;
}

export const settlementsQuery = (knex: Knex | Knex.Transaction): Knex.QueryBuilder =>
  knex('cash_settlements as cs').select(
    'cs.id',
    'cs.enterprise_id',
    'cs.branch_id',
    'cs.difference_entry_id',
    'cs.kind',
    'cs.mode',
    knex.raw('cs.amount::text AS amount'),
    'cs.account_code',
    'cs.entry_id',
    'cs.settled_by',
    'cs.created_at',
  );

export const settlementById = (knex: Knex | Knex.Transaction, id: string) =>
  settlementsQuery(knex).where('cs.id', id).first() as Promise<SettlementRow | undefined>;

const unsettled = (column: string) =>
  `(${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM cash_settlements cs WHERE cs.difference_entry_id = ${column}))`;

/**
 * For the branch's day close: the till sessions of the branch on that business date with a count difference (at the
 * opening or at the close) not yet settled, the first opened first.
 */
export function unsettledTillSessions(
  knex: Knex | Knex.Transaction,
  branchId: string,
  date: IsoDate,
): Promise<string[]> {
  return knex('till_sessions as s')
    .where({ 's.branch_id': branchId, 's.business_date': date })
    .where((pending) => pending.whereRaw(unsettled('s.opening_entry_id')).orWhereRaw(unsettled('s.closing_entry_id')))
    .orderBy('s.opened_at')
    .pluck('s.id');
}

/** For the branch's day close: the branch head counted the vault of the branch for that business date. */
export async function vaultCounted(knex: Knex | Knex.Transaction, branchId: string, date: IsoDate): Promise<boolean> {
  return (await knex('vault_counts').where({ branch_id: branchId, business_date: date }).first('id')) !== undefined;
}
