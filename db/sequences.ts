import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/** Which counter: a name and its scope. A missing enterprise, branch or year means "not scoped by it". */
export interface SequenceScope {
  name: string;
  enterpriseId?: string | null;
  branchId?: string | null;
  year?: number | null;
}

/**
 * Takes the next number of a gap-free counter inside the caller's transaction.
 *
 * One upsert both creates the counter at 1 and increments it; the row stays locked until the caller commits
 * or rolls back. A rollback gives the number back (no gap) and a concurrent caller of the same counter waits
 * for our commit before it increments (no duplicate). The price is that numbering of one counter is serial:
 * take the number late in the transaction, once everything that may fail has been checked.
 */
export async function nextSequenceValue(trx: Knex.Transaction, scope: SequenceScope): Promise<number> {
  const result = await trx.raw<{ rows: { value: string }[] }>(
    `INSERT INTO sequence_counters AS counter (name, enterprise_id, branch_id, year, value)
     VALUES (?, ?, ?, ?, 1)
     ON CONFLICT ON CONSTRAINT sequence_counters_scope_unique
     DO UPDATE SET value = counter.value + 1
     RETURNING counter.value`,
    [scope.name, scope.enterpriseId ?? null, scope.branchId ?? null, scope.year ?? null],
  );
  const value = Number(result.rows[0]?.value);
  if (!Number.isSafeInteger(value)) throw new Error(`sequence ${scope.name} returned no usable value`);
  return value;
}

/**
 * A new record that a workflow follows: its id, known before the insert (the workflow id is made from it), and its
 * number of the business date's year, `format`ted from that year and the counter's next value.
 */
export async function newYearlyRecord(
  trx: Knex.Transaction,
  scope: Omit<SequenceScope, 'year'>,
  businessDate: string,
  format: (year: number, sequence: number) => string,
): Promise<{ id: string; number: string }> {
  const year = Number(businessDate.slice(0, 4));
  const sequence = await nextSequenceValue(trx, { ...scope, year });
  return { id: randomUUID(), number: format(year, sequence) };
}
