import type { Knex } from 'knex';

export interface TransactionOptions {
  isolationLevel?: 'read committed' | 'repeatable read' | 'serializable';
  /** Total attempts when PostgreSQL aborts the transaction for a serialization failure or a deadlock. */
  attemptsMax?: number;
}

// SQLSTATEs after which the whole transaction may simply be run again.
const retryableSqlStates = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected
const retryDelayBaseMs = 10;

/**
 * Runs `work` in one database transaction: commit when it resolves, rollback when it throws.
 * A serialization failure or deadlock reruns the whole unit of work (retryOnConflict). `work` must therefore have
 * no effect outside the transaction.
 */
export async function inTransaction<T>(
  knex: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  return retryOnConflict(() => knex.transaction(work, { isolationLevel: options.isolationLevel }), options.attemptsMax);
}

/**
 * Runs `work` (a transaction, or a single statement that is its own transaction) again after a serialization
 * failure or a deadlock, a bounded number of times, with a short jittered pause so the competing transactions do
 * not collide again in lockstep.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attemptsMax = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!isRetryable(error) || attempt >= attemptsMax) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryDelayBaseMs * attempt * (1 + Math.random())));
    }
  }
}

/** A serialization failure or a deadlock: running the same work again may succeed. */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && retryableSqlStates.has(code);
}
