import type { Knex } from 'knex';

/**
 * A sensitive request's Idempotency-Key in the house's one format (activities/idempotency.ts `operationKey`), held
 * once by the database while the request waits (issue 27, controls review): two retries sent at once made two
 * requests when each looked for the other before either was written. The key was only in the payload; a waiting
 * request of an older retry race keeps none, so the unique index can be built.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE approval_requests ADD COLUMN idempotency_key varchar(200)');
  await knex.raw(`
    UPDATE approval_requests r SET idempotency_key = 'approval:' || r.operation || ':' || r.maker_id || ':' || (r.payload->>'idempotencyKey')
     WHERE r.payload->>'idempotencyKey' IS NOT NULL
       AND NOT (r.status = 'pending' AND EXISTS (
             SELECT 1 FROM approval_requests o
              WHERE o.status = 'pending' AND o.operation = r.operation AND o.maker_id = r.maker_id
                AND o.payload->>'idempotencyKey' = r.payload->>'idempotencyKey' AND (o.created_at, o.id) < (r.created_at, r.id)))`);
  await knex.raw(`CREATE UNIQUE INDEX approval_requests_pending_key ON approval_requests (idempotency_key) WHERE status = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX approval_requests_pending_key');
  await knex.raw('ALTER TABLE approval_requests DROP COLUMN idempotency_key');
}
