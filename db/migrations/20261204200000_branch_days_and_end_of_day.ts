import type { Knex } from 'knex';

/**
 * Issue 29, the branch's day and the end of day (docs/domain.md §13.3). A `branch_days` row is a branch's day,
 * closed once by its head (the row exists only closed, never changed). An `end_of_day_runs` row is the close of
 * business of an enterprise for one business date, its steps in `end_of_day_steps`; `next_date` is set when the
 * business date moves past the day, which makes it a closed day. A month end may now be started by the end of day.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('branch_days', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.date('business_date').notNullable();
    table.uuid('closed_by').notNullable().references('users.id');
    table.timestamp('closed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['branch_id', 'business_date'], { indexName: 'branch_days_one_per_day' });
    table.index(['enterprise_id', 'business_date']);
  });
  await knex.raw('CREATE TRIGGER branch_days_append_only BEFORE UPDATE OR DELETE ON branch_days FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');
  await knex.schema.createTable('end_of_day_runs', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.date('business_date').notNullable();
    table.date('next_date');
    table.string('status', 10).notNullable().defaultTo('running');
    table.string('trigger', 10).notNullable();
    table.uuid('started_by').references('users.id');
    table.string('failure', 2000);
    table.uuid('provisioning_run_id').references('provisioning_runs.id');
    table.uuid('month_end_run_id').references('month_end_runs.id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('finished_at', { useTz: true });
    table.unique(['enterprise_id', 'business_date'], { indexName: 'end_of_day_runs_one_per_day' });
    table.check(`status IN ('running', 'done', 'failed')`, [], 'end_of_day_runs_status_known');
    table.check(`trigger IN ('api', 'schedule')`, [], 'end_of_day_runs_trigger_known');
    table.check('next_date IS NULL OR next_date > business_date', [], 'end_of_day_runs_moves_forward');
  });
  await knex.schema.createTable('end_of_day_steps', (table) => {
    table.uuid('run_id').notNullable().references('end_of_day_runs.id');
    table.string('step', 40).notNullable();
    table.integer('position').notNullable();
    table.string('status', 10).notNullable().defaultTo('pending');
    table.jsonb('result');
    table.timestamp('finished_at', { useTz: true });
    table.primary(['run_id', 'step']);
    table.check(`status IN ('pending', 'done')`, [], 'end_of_day_steps_status_known');
  });
  await knex.raw('ALTER TABLE month_end_runs DROP CONSTRAINT month_end_runs_trigger_known');
  await knex.raw(`ALTER TABLE month_end_runs ADD CONSTRAINT month_end_runs_trigger_known CHECK (trigger IN ('api', 'schedule', 'end_of_day'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE month_end_runs DROP CONSTRAINT month_end_runs_trigger_known');
  await knex.raw(`ALTER TABLE month_end_runs ADD CONSTRAINT month_end_runs_trigger_known CHECK (trigger IN ('api', 'schedule'))`);
  await knex.schema.dropTable('end_of_day_steps');
  await knex.schema.dropTable('end_of_day_runs');
  await knex.schema.dropTable('branch_days');
}
