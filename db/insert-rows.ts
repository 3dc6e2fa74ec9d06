import type { Knex } from 'knex';

/**
 * Rows per INSERT when a step writes many. PostgreSQL takes at most 65 535 parameters in one statement: the month
 * end's accruals of 10 000 loans (nine columns each) in one INSERT were refused. A thousand rows stay far below it.
 */
const rowsPerInsert = 1000;

/** Inserts the rows a thousand at a time, in order, in the caller's transaction. */
export async function insertRows(
  trx: Knex.Transaction,
  table: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += rowsPerInsert)
    await trx(table).insert(rows.slice(start, start + rowsPerInsert));
}
