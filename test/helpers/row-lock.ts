import type { Knex } from 'knex';
import type { Teardown } from './teardown';
import { until } from './until';

/** A row held `FOR UPDATE` by an open transaction of the test: whoever locks or references it waits. */
export interface HeldRowLock {
  /**
   * Resolves once `count` sessions wait on this lock, directly or queued behind another waiter (each stopped inside its
   * transaction).
   */
  waiters(count: number): Promise<void>;
  /** Rolls the holding transaction back: the waiters go on (or, if their process died meanwhile, roll back). */
  release(): Promise<void>;
}

// The sessions the holder blocks, and those queued behind them for the same lock.
const waitingSessions = `WITH RECURSIVE waiting(pid) AS (
    SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))
    UNION SELECT a.pid FROM pg_stat_activity a JOIN waiting w ON w.pid = ANY(pg_blocking_pids(a.pid))
  ) SELECT count(*)::int AS n FROM waiting`;

/**
 * Locks the row `id` of `table` in a transaction of its own, released at the latest when `scope` ends. A test uses
 * it to stop another process at a known point of its work (its transaction open, waiting) and to crash it there,
 * rather than killing it at a random time.
 */
export async function holdRowLock(scope: Teardown, knex: Knex, table: string, id: string): Promise<HeldRowLock> {
  const trx = await knex.transaction();
  let released: Promise<void> | undefined;
  const release = () =>
    (released ??= trx.rollback().then(
      () => undefined,
      () => undefined,
    ));
  scope.teardown(release);
  const { rows } = await trx.raw<{ rows: { pid: number }[] }>('SELECT pg_backend_pid() AS pid');
  const holder = rows[0]!.pid;
  if ((await trx(table).where({ id }).forUpdate().first()) === undefined) {
    await release();
    throw new Error(`no row ${id} in ${table} to lock`);
  }
  const waiting = async () => (await knex.raw<{ rows: { n: number }[] }>(waitingSessions, [holder])).rows[0]!.n;
  return {
    waiters: (count) =>
      until(`${count} session(s) waiting on the lock of ${table} ${id}`, async () => (await waiting()) >= count),
    release,
  };
}
