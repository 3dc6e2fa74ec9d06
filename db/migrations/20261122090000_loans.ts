import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Loans: products, applications and their approval decisions, loans with their repayment schedule
 * (RepaymentSchedule = loan_installments), repayments, and the provision rows the portfolio-quality run
 * fills. Amounts are numeric(20,0) whole francs; rates numeric decimals (0.18 = 18 %).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enterprise_configurations', (table) => {
    // Amount limits under which the approval circuit ends at an earlier step; {} = all four steps.
    table.jsonb('approval_limits').notNullable().defaultTo('{}');
  });

  await knex.schema.alterTable('client_profiles', (table) => {
    // Member of the board, director, manager or employee: the 50 M XAF cap of COBAC R-2017/08 applies.
    table.boolean('related_party').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('loan_products', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('code', 20).notNullable();
    table.string('name', 200).notNullable();
    table.string('term_category', 3).notNullable();
    table.string('method', 20).notNullable();
    table.string('frequency', 10).notNullable();
    table.string('day_count', 10).notNullable().defaultTo('30/360');
    table.decimal('annual_rate', 9, 6).notNullable();
    table.decimal('min_amount', 20, 0).notNullable();
    table.decimal('max_amount', 20, 0).notNullable();
    table.integer('min_term_periods').notNullable();
    table.integer('max_term_periods').notNullable();
    table.integer('max_grace_periods').notNullable().defaultTo(0);
    table.decimal('fee_rate', 9, 6).notNullable().defaultTo(0);
    table.decimal('fee_fixed', 20, 0).notNullable().defaultTo(0);
    table.decimal('penalty_rate', 9, 6).notNullable().defaultTo(0);
    // Real-estate loans stay "overdue" up to 90 days instead of 45 (COBAC R-2017/07).
    table.boolean('real_estate').notNullable().defaultTo(false);
    // The account roles of the product's events (docs/domain.md §2).
    table.string('portfolio_account_code', 12).notNullable();
    table.string('interest_income_account_code', 12).notNullable();
    table.string('fee_income_account_code', 12).notNullable();
    table.string('penalty_income_account_code', 12).notNullable();
    table.boolean('is_active').notNullable().defaultTo(true);
    table.unique(['enterprise_id', 'code'], { indexName: 'loan_products_code_unique' });
    table.check(`term_category IN ('cta', 'mlt')`, [], 'loan_products_term_category_known');
    table.check(`method IN ('constant_annuity', 'constant_principal')`, [], 'loan_products_method_known');
    table.check(`frequency IN ('monthly', 'quarterly', 'weekly')`, [], 'loan_products_frequency_known');
    table.check(`day_count IN ('30/360')`, [], 'loan_products_day_count_known');
    table.check('annual_rate >= 0 AND annual_rate <= 1 AND fee_rate >= 0 AND fee_rate <= 1 AND penalty_rate >= 0 AND penalty_rate <= 1', [], 'loan_products_rates_range');
    table.check('min_amount > 0 AND min_amount <= max_amount AND fee_fixed >= 0', [], 'loan_products_amounts');
    table.check('min_term_periods >= 1 AND min_term_periods <= max_term_periods AND max_grace_periods >= 0 AND max_grace_periods < max_term_periods', [], 'loan_products_terms');
  });
  await touchUpdatedAtOnUpdate(knex, 'loan_products');

  await knex.schema.createTable('loan_applications', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('client_id').notNullable().references('client_profiles.id');
    table.uuid('product_id').notNullable().references('loan_products.id');
    table.string('number', 40).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.integer('term_periods').notNullable();
    table.integer('grace_periods').notNullable().defaultTo(0);
    table.text('purpose').notNullable().defaultTo('');
    table.decimal('fees', 20, 0).notNullable();
    // TEG of the simulation at submission, percent with two decimals.
    table.decimal('teg', 9, 2).notNullable();
    table.jsonb('cap_breaches').notNullable().defaultTo('[]');
    table.string('status', 12).notNullable().defaultTo('in_review');
    table.string('current_step', 20);
    // The step whose approval grants the loan, from the configuration's limits at submission.
    table.string('final_step', 20).notNullable().defaultTo('direction');
    table.timestamp('step_started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.text('status_reason').notNullable().defaultTo('');
    table.timestamp('ended_at', { useTz: true });
    table.uuid('submitted_by').notNullable().references('users.id');
    table.string('workflow_id', 100).notNullable();
    table.unique(['enterprise_id', 'number'], { indexName: 'loan_applications_number_unique' });
    table.index(['enterprise_id', 'branch_id', 'status'], 'loan_applications_branch_status');
    table.index(['client_id'], 'loan_applications_client');
    table.check(`status IN ('in_review', 'approved', 'rejected', 'expired', 'withdrawn', 'failed')`, [], 'loan_applications_status_known');
    table.check(`(status = 'in_review') = (current_step IS NOT NULL)`, [], 'loan_applications_step_while_in_review');
    table.check(`current_step IS NULL OR current_step IN ('cashier', 'branch_head', 'credit_committee', 'direction')`, [], 'loan_applications_step_known');
    table.check('amount > 0 AND term_periods >= 1 AND grace_periods >= 0 AND grace_periods < term_periods AND fees >= 0', [], 'loan_applications_terms');
  });
  await touchUpdatedAtOnUpdate(knex, 'loan_applications');

  // The approval history, written by the workflow's activity with each decision; append-only.
  await knex.schema.createTable('loan_application_decisions', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('application_id').notNullable().references('loan_applications.id');
    table.string('step', 20).notNullable();
    table.string('decision', 10).notNullable();
    table.text('comment').notNullable().defaultTo('');
    table.uuid('decided_by').notNullable().references('users.id');
    table.timestamp('decided_at', { useTz: true }).notNullable();
    // The workflow Update's id: a retried activity finds its row instead of writing a second one.
    table.string('idempotency_key', 200).notNullable().unique();
    table.index(['application_id', 'decided_at'], 'loan_application_decisions_application');
    table.check(`decision IN ('approve', 'reject', 'send_back', 'withdraw')`, [], 'loan_application_decisions_known');
  });
  await knex.raw(`CREATE TRIGGER loan_application_decisions_append_only BEFORE UPDATE OR DELETE ON loan_application_decisions FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()`);

  await knex.schema.createTable('loans', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('client_id').notNullable().references('client_profiles.id');
    table.uuid('product_id').notNullable().references('loan_products.id');
    table.uuid('application_id').notNullable().unique().references('loan_applications.id');
    // LoanSequence: {branch code}-P{year}-{00001}, gap-free per branch and year.
    table.string('number', 40).notNullable();
    table.decimal('principal', 20, 0).notNullable();
    table.decimal('fees', 20, 0).notNullable();
    table.decimal('annual_rate', 9, 6).notNullable();
    table.decimal('penalty_rate', 9, 6).notNullable();
    table.string('method', 20).notNullable();
    table.string('frequency', 10).notNullable();
    table.integer('term_periods').notNullable();
    table.integer('grace_periods').notNullable();
    table.decimal('teg', 9, 2).notNullable();
    table.string('status', 25).notNullable().defaultTo('awaiting_disbursement');
    table.date('approved_on').notNullable();
    table.date('disbursed_on');
    table.string('disbursement_channel', 10);
    table.uuid('disbursement_account_id').references('comptes_clients.id');
    table.uuid('disbursed_by').references('users.id');
    table.decimal('outstanding_principal', 20, 0).notNullable();
    table.date('closed_on');
    // Filled by the portfolio-quality run (classification and provisioning).
    table.string('classification', 12).notNullable().defaultTo('performing');
    table.integer('days_past_due').notNullable().defaultTo(0);
    table.decimal('provision_amount', 20, 0).notNullable().defaultTo(0);
    table.unique(['enterprise_id', 'number'], { indexName: 'loans_number_unique' });
    table.index(['enterprise_id', 'branch_id', 'status'], 'loans_branch_status');
    table.index(['client_id'], 'loans_client');
    table.check(`status IN ('awaiting_disbursement', 'active', 'closed')`, [], 'loans_status_known');
    table.check(`classification IN ('performing', 'overdue', 'doubtful')`, [], 'loans_classification_known');
    table.check(`disbursement_channel IS NULL OR disbursement_channel IN ('account', 'cash')`, [], 'loans_disbursement_channel_known');
    table.check('outstanding_principal >= 0 AND outstanding_principal <= principal', [], 'loans_outstanding_range');
    table.check(`status <> 'closed' OR outstanding_principal = 0`, [], 'loans_closed_repaid');
    table.check(`(status = 'awaiting_disbursement') = (disbursed_on IS NULL)`, [], 'loans_disbursed_date');
  });
  await touchUpdatedAtOnUpdate(knex, 'loans');

  // RepaymentSchedule: one row per installment. Penalties are accrued into penalty_due up to penalty_through
  // whenever a repayment touches the loan; reads add what accrued since.
  await knex.schema.createTable('loan_installments', (table) => {
    table.bigIncrements('id');
    table.uuid('loan_id').notNullable().references('loans.id');
    table.integer('number').notNullable();
    table.date('due_date').notNullable();
    table.decimal('principal_due', 20, 0).notNullable();
    table.decimal('interest_due', 20, 0).notNullable();
    table.decimal('penalty_due', 20, 0).notNullable().defaultTo(0);
    table.decimal('principal_paid', 20, 0).notNullable().defaultTo(0);
    table.decimal('interest_paid', 20, 0).notNullable().defaultTo(0);
    table.decimal('penalty_paid', 20, 0).notNullable().defaultTo(0);
    table.date('penalty_through').notNullable();
    table.date('paid_on');
    table.unique(['loan_id', 'number'], { indexName: 'loan_installments_number_unique' });
    table.check('principal_paid >= 0 AND principal_paid <= principal_due AND interest_paid >= 0 AND interest_paid <= interest_due AND penalty_paid >= 0 AND penalty_paid <= penalty_due', [], 'loan_installments_paid_within_due');
  });
  await knex.raw('CREATE INDEX loan_installments_unpaid ON loan_installments (loan_id, due_date) WHERE paid_on IS NULL');

  await knex.schema.createTable('loan_repayments', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('loan_id').notNullable().references('loans.id');
    table.decimal('amount', 20, 0).notNullable();
    table.decimal('principal', 20, 0).notNullable();
    table.decimal('interest', 20, 0).notNullable();
    table.decimal('penalty', 20, 0).notNullable();
    table.string('channel', 10).notNullable();
    table.uuid('account_id').references('comptes_clients.id');
    table.string('reference', 100).notNullable().defaultTo('');
    table.date('business_date').notNullable();
    table.jsonb('allocations').notNullable();
    table.decimal('outstanding_after', 20, 0).notNullable();
    table.string('idempotency_key', 200).notNullable();
    table.jsonb('request').notNullable();
    table.uuid('recorded_by').notNullable().references('users.id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['enterprise_id', 'idempotency_key'], { indexName: 'loan_repayments_idempotency_unique' });
    table.index(['loan_id', 'created_at'], 'loan_repayments_loan');
    table.check(`channel IN ('cash', 'account')`, [], 'loan_repayments_channel_known');
    table.check(`(channel = 'account') = (account_id IS NOT NULL)`, [], 'loan_repayments_account_for_channel');
    table.check('amount > 0 AND amount = principal + interest + penalty AND principal >= 0 AND interest >= 0 AND penalty >= 0', [], 'loan_repayments_parts_sum');
  });
  await knex.raw(`CREATE TRIGGER loan_repayments_append_only BEFORE UPDATE OR DELETE ON loan_repayments FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()`);

  // One row per (loan, as-of date), written by the provisioning run (next issue); declared now so the list
  // endpoint and the loan model are in place.
  await knex.schema.createTable('loan_provisions', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('loan_id').notNullable().references('loans.id');
    table.date('as_of').notNullable();
    table.integer('days_past_due').notNullable();
    table.string('classification', 12).notNullable();
    table.decimal('rate', 9, 6).notNullable();
    table.decimal('base', 20, 0).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.decimal('previous_amount', 20, 0).notNullable();
    table.decimal('delta', 20, 0).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['loan_id', 'as_of'], { indexName: 'loan_provisions_loan_date_unique' });
    table.index(['enterprise_id', 'as_of'], 'loan_provisions_enterprise_date');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const name of ['loan_provisions', 'loan_repayments', 'loan_installments', 'loans', 'loan_application_decisions', 'loan_applications', 'loan_products']) {
    await knex.schema.dropTable(name);
  }
  await knex.schema.alterTable('client_profiles', (table) => table.dropColumn('related_party'));
  await knex.schema.alterTable('enterprise_configurations', (table) => table.dropColumn('approval_limits'));
}
