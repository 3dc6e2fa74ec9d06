import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Portfolio quality (COBAC R-2017/07): loan flags and write-off, guarantees, provisioning runs, and the
 * rule that moves a loan back from the doubtful account when its arrears are cleared.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE loans DROP CONSTRAINT loans_status_known');
  await knex.schema.alterTable('loans', (table) => {
    table.boolean('litigious').notNullable().defaultTo(false);
    table.date('doubtful_since');
    table.date('written_off_on');
    table.decimal('written_off_amount', 20, 0);
    table.uuid('written_off_by').references('users.id');
    // The approval a write-off of a related party's loan needs (COBAC R-2017/07 Art. 26): reference and date.
    table.text('write_off_approval').notNullable().defaultTo('');
    table.check(`status IN ('awaiting_disbursement', 'active', 'closed', 'written_off')`, [], 'loans_status_known');
    table.check(`(classification = 'doubtful') = (doubtful_since IS NOT NULL)`, [], 'loans_doubtful_since');
    table.check(`(status = 'written_off') = (written_off_on IS NOT NULL)`, [], 'loans_written_off_date');
  });

  await knex.schema.createTable('loan_guarantees', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    // Attached to an application, the guarantee passes to its loan at final approval; or to a loan directly.
    table.uuid('application_id').references('loan_applications.id');
    table.uuid('loan_id').references('loans.id');
    table.string('kind', 20).notNullable();
    table.decimal('value', 20, 0).notNullable();
    table.date('start_date').notNullable();
    table.date('end_date');
    table.text('description').notNullable().defaultTo('');
    table.uuid('created_by').notNullable().references('users.id');
    table.index(['loan_id'], 'loan_guarantees_loan');
    table.index(['application_id'], 'loan_guarantees_application');
    table.check('application_id IS NOT NULL OR loan_id IS NOT NULL', [], 'loan_guarantees_attached');
    // Shares are never a guarantee (OHADA cooperative law): no such kind.
    table.check(`kind IN ('pledged_deposit', 'mortgage', 'bank_guarantee', 'public_guarantee', 'personal_guarantor')`, [], 'loan_guarantees_kind_known');
    table.check('value > 0', [], 'loan_guarantees_value_positive');
    table.check('end_date IS NULL OR end_date >= start_date', [], 'loan_guarantees_dates_ordered');
  });
  await touchUpdatedAtOnUpdate(knex, 'loan_guarantees');

  await knex.schema.createTable('provisioning_runs', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.date('as_of').notNullable();
    table.string('trigger', 10).notNullable();
    table.string('status', 10).notNullable().defaultTo('running');
    table.uuid('requested_by').references('users.id');
    // The last loan id processed: batches go in id order, each committed with this cursor.
    table.uuid('cursor');
    table.integer('loans_processed').notNullable().defaultTo(0);
    table.integer('provisions_changed').notNullable().defaultTo(0);
    table.integer('loans_reclassified').notNullable().defaultTo(0);
    table.decimal('amount_charged', 20, 0).notNullable().defaultTo(0);
    table.decimal('amount_reversed', 20, 0).notNullable().defaultTo(0);
    table.text('failure');
    table.timestamp('finished_at', { useTz: true });
    table.index(['enterprise_id', 'as_of'], 'provisioning_runs_enterprise_date');
    table.check(`trigger IN ('schedule', 'api')`, [], 'provisioning_runs_trigger_known');
    table.check(`status IN ('running', 'completed', 'failed')`, [], 'provisioning_runs_status_known');
  });
  await touchUpdatedAtOnUpdate(knex, 'provisioning_runs');

  await knex.schema.alterTable('loan_provisions', (table) => {
    table.uuid('run_id').references('provisioning_runs.id');
    table.decimal('uncovered', 20, 0);
  });

  // Existing enterprises get the new rules as version 1, as a new enterprise does from the fixture.
  const rules = {
    reclassification_overdue: [{ debit: { role: 'overdue_receivables' }, credit: { role: 'loan_portfolio' } }],
    reclassification_performing: [{ debit: { role: 'loan_portfolio' }, credit: { role: 'doubtful_receivables' } }],
  };
  for (const [kind, legs] of Object.entries(rules)) {
    await knex.raw(
      `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason)
       SELECT e.id, ?, 1, ?::jsonb, true, 'default rule (fixtures/accounting-rules.json)'
       FROM enterprises e
       WHERE NOT EXISTS (SELECT 1 FROM accounting_rule_configs r WHERE r.enterprise_id = e.id AND r.kind = ?)`,
      [kind, JSON.stringify(legs), kind],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('loan_provisions', (table) => {
    table.dropColumn('run_id');
    table.dropColumn('uncovered');
  });
  await knex.schema.dropTable('provisioning_runs');
  await knex.schema.dropTable('loan_guarantees');
  await knex.raw('ALTER TABLE loans DROP CONSTRAINT loans_status_known, DROP CONSTRAINT loans_doubtful_since, DROP CONSTRAINT loans_written_off_date');
  await knex.schema.alterTable('loans', (table) => {
    for (const column of ['litigious', 'doubtful_since', 'written_off_on', 'written_off_amount', 'written_off_by', 'write_off_approval']) table.dropColumn(column);
  });
  await knex.raw(`ALTER TABLE loans ADD CONSTRAINT loans_status_known CHECK (status IN ('awaiting_disbursement', 'active', 'closed'))`);
}
