import type { Knex } from 'knex';

/** Cursors open at once in one process: each gets its own name, for a transaction that would hold two. */
let cursors = 0;

/**
 * A query's rows through a cursor, `batchSize` at a time, in a transaction of its own (a savepoint when `knex` is one
 * already, as in the reporting pack): PostgreSQL runs the query once, sorting it once, and hands its rows over as they
 * are read. Batches that each start after the last row read sort the rest again for every batch, which grows with the
 * square of the rows. Each batch comes with the cursor's transaction, for the reads that go with it; the next batch
 * is fetched meanwhile.
 */
export async function* cursorBatches<T>(
  knex: Knex,
  query: Knex.Sql,
  batchSize: number,
): AsyncGenerator<{ rows: T[]; trx: Knex.Transaction }> {
  const name = `coopbank_cursor_${(cursors += 1)}`;
  const trx = await knex.transaction();
  const fetch = () => {
    const rows = (async () => ((await trx.raw(`FETCH ${batchSize} FROM ${name}`)) as { rows: T[] }).rows)();
    // Fetched ahead while the reader works: a failure is handled when the batch is awaited, not as unhandled meanwhile.
    rows.catch(() => undefined);
    return rows;
  };
  let next: Promise<T[]> | undefined;
  let failed = false;
  try {
    // The whole cursor is read: plan for all its rows, not for a fast first tenth (PostgreSQL's default for cursors).
    await trx.raw('SET LOCAL cursor_tuple_fraction = 1');
    // Its sort in memory: a year of the busy account's ledger (500 000 lines, some 50 MB to sort) went to disk at the
    // default 4 MB, 0.8 s more. One cursor per download or book, so the memory is bounded by those running at once.
    await trx.raw("SET LOCAL work_mem = '64MB'");
    await trx.raw(`DECLARE ${name} NO SCROLL CURSOR FOR ${query.sql}`, query.bindings);
    next = fetch();
    for (;;) {
      const rows: T[] = await next;
      // The next batch is fetched while the reader works on this one: PostgreSQL and Node run side by side.
      next = rows.length < batchSize ? undefined : fetch();
      if (rows.length > 0) yield { rows, trx };
      if (next === undefined) return;
    }
  } catch (error) {
    failed = true;
    await next?.catch(() => undefined);
    await trx.rollback();
    throw error;
  } finally {
    // Also when the reader stops early (a download cut short). Within a savepoint, closed by hand.
    if (!failed) {
      await next?.catch(() => undefined);
      await trx.raw(`CLOSE ${name}`);
      await trx.commit();
    }
  }
}
