import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import type { ResultAllocationRow } from './result-allocations.activity';

/** The reads of the result allocations (docs/domain.md §7): each with its year's code and the entries it posted. */

export type AllocationRow = ResultAllocationRow & { exercice_code: string };

/** An allocation as answered: the result a Money, and the journal entries posted, one per branch. */
export type AllocationDetail = Omit<AllocationRow, 'result'> & { result: Money; entries: string[] };

export const allocationsQuery = (knex: Knex): Knex.QueryBuilder =>
  knex('result_allocations as a')
    .join('exercices_comptables as y', 'y.id', 'a.exercice_id')
    .select('a.*', 'y.code as exercice_code');

export const allocationById = (knex: Knex, id: string) =>
  allocationsQuery(knex).where('a.id', id).first() as Promise<AllocationRow | undefined>;

/** The allocations each with the entries it posted, in one query. */
export async function withEntries(knex: Knex, rows: readonly AllocationRow[]): Promise<AllocationDetail[]> {
  const entries: { allocation_id: string; id: string }[] = await knex('result_allocation_entries as x')
    .join('journal_entries as e', 'e.id', 'x.entry_id')
    .whereIn(
      'x.allocation_id',
      rows.map((row) => row.id),
    )
    .orderBy('e.id')
    .select('x.allocation_id', 'e.id');
  return rows.map((row) => ({
    ...row,
    result: new Money(row.result),
    entries: entries.filter((entry) => entry.allocation_id === row.id).map((entry) => entry.id),
  }));
}

/** An allocation as it is now, once recorded or cancelled by the request. */
export const allocationDetail = async (knex: Knex, id: string) =>
  (await withEntries(knex, [(await allocationById(knex, id))!]))[0]!;
