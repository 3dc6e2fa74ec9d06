import type { Knex } from 'knex';

/**
 * Issue 31, share subscriptions brought in by a go-live import (docs/domain.md §15, Share capital and branches).
 * What the old system says was paid before the cut-over is `opening_paid`: no payment of Coopbank's, so no
 * `share_payments` row (each is an event posted); the register at a date counts it from the subscription's date.
 * A cancelled import's subscription keeps its number (gap-free) and is marked `cancelled_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('share_subscriptions', (table) => {
    table.uuid('import_id').references('imports.id');
    // The row of the import's shares file it came from: a batch run again finds it there.
    table.integer('import_row_number');
    table.decimal('opening_paid', 20, 0).notNullable().defaultTo(0);
    table.timestamp('cancelled_at', { useTz: true });
    table.unique(['import_id', 'import_row_number'], { indexName: 'share_subscriptions_import_row_unique' });
    table.check('opening_paid >= 0 AND opening_paid <= paid_amount', [], 'share_subscriptions_opening_paid');
    table.check('(import_id IS NULL) = (import_row_number IS NULL) AND (opening_paid = 0 OR import_id IS NOT NULL)', [], 'share_subscriptions_import_row');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('share_subscriptions', (table) => {
    table.dropChecks(['share_subscriptions_opening_paid', 'share_subscriptions_import_row']);
    table.dropUnique(['import_id', 'import_row_number'], 'share_subscriptions_import_row_unique');
    table.dropColumns('import_id', 'import_row_number', 'opening_paid', 'cancelled_at');
  });
}
