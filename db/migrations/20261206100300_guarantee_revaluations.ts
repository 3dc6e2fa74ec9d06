import type { Knex } from 'knex';

/**
 * Issue 30's follow-up: a guarantee's revaluations are kept (append-only), each with the value and valuation date it
 * replaced, so the collateral register at a past date reads the value then in force, not today's (docs/domain.md §14.4).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('guarantee_revaluations', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('guarantee_id').notNullable().references('loan_guarantees.id');
    table.decimal('value_before', 20, 0).notNullable();
    table.date('valuation_date_before').notNullable();
    table.decimal('value', 20, 0).notNullable();
    table.date('valuation_date').notNullable();
    table.uuid('created_by').notNullable().references('users.id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['guarantee_id', 'valuation_date']);
  });
  await knex.raw('ALTER TABLE guarantee_revaluations ADD CONSTRAINT guarantee_revaluations_dates CHECK (valuation_date >= valuation_date_before AND value > 0)');
  await knex.raw('CREATE TRIGGER guarantee_revaluations_append_only BEFORE UPDATE OR DELETE ON guarantee_revaluations FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('guarantee_revaluations');
}
