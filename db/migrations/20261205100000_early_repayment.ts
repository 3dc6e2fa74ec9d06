import type { Knex } from 'knex';

/**
 * Issue 30, early repayment (docs/domain.md §14.1). A loan product says how a partial prepayment changes the schedule
 * (`reduce_term` or `reduce_installment`) and what fee it charges: a rate of the principal prepaid, at least a fixed
 * minimum. `loan_prepayments` keeps each prepayment and payoff: the repayment it made (its principal, interest and
 * penalties, which every reader of repayments sees) and what is its own (the fee, the strategy, the version of the
 * schedule it put in force). Append-only, as the repayments.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE loan_products
    ADD COLUMN prepayment_strategy varchar(20) NOT NULL DEFAULT 'reduce_installment',
    ADD COLUMN prepayment_fee_rate numeric(9, 6) NOT NULL DEFAULT 0,
    ADD COLUMN prepayment_fee_minimum numeric(20, 0) NOT NULL DEFAULT 0,
    ADD CONSTRAINT loan_products_prepayment_strategy_known CHECK (prepayment_strategy IN ('reduce_term', 'reduce_installment')),
    ADD CONSTRAINT loan_products_prepayment_fee CHECK (prepayment_fee_rate >= 0 AND prepayment_fee_rate <= 1 AND prepayment_fee_minimum >= 0)`);
  await knex.schema.createTable('loan_prepayments', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('loan_id').notNullable().references('loans.id');
    table.string('kind', 12).notNullable();
    table.uuid('repayment_id').notNullable().unique().references('loan_repayments.id');
    // What the member paid: the repayment's amount and the fee.
    table.decimal('amount', 20, 0).notNullable();
    table.decimal('fee', 20, 0).notNullable();
    // The principal paid ahead of its installments (the fee's base).
    table.decimal('principal_prepaid', 20, 0).notNullable();
    table.string('strategy', 20);
    // The schedule version a prepayment put in force; null for a payoff (the loan is closed).
    table.integer('schedule_version');
    table.decimal('teg', 9, 2);
    table.date('business_date').notNullable();
    table.string('idempotency_key', 200).notNullable();
    table.jsonb('request').notNullable();
    table.uuid('recorded_by').notNullable().references('users.id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['enterprise_id', 'idempotency_key'], { indexName: 'loan_prepayments_idempotency_unique' });
    table.index(['loan_id', 'created_at'], 'loan_prepayments_loan');
    table.check(`kind IN ('prepayment', 'payoff')`, [], 'loan_prepayments_kind_known');
    table.check(`(kind = 'prepayment') = (strategy IN ('reduce_term', 'reduce_installment') AND schedule_version IS NOT NULL AND teg IS NOT NULL)`, [], 'loan_prepayments_strategy_of_prepayment');
    table.check('amount > 0 AND fee >= 0 AND principal_prepaid >= 0 AND fee < amount', [], 'loan_prepayments_amounts');
  });
  await knex.raw(`CREATE TRIGGER loan_prepayments_append_only BEFORE UPDATE OR DELETE ON loan_prepayments FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('loan_prepayments');
  await knex.raw(`ALTER TABLE loan_products DROP COLUMN prepayment_strategy, DROP COLUMN prepayment_fee_rate, DROP COLUMN prepayment_fee_minimum`);
}
