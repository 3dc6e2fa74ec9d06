import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * The month end of an enterprise (docs/architecture.md §9, docs/domain.md §8): one run per enterprise and
 * period, its steps with what each did (a MonthEndStepResult), the entries each step posted, and the loan
 * interest accrued per loan and period with the entry that reversed it. A step's entries, its result and its
 * move to done commit together, so a step retried after a lost worker finds itself done and posts nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('month_end_runs', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('period', 7).notNullable();
    table.date('period_start').notNullable();
    table.date('period_end').notNullable();
    table.string('status', 10).notNullable().defaultTo('running');
    // 'api': started_by is the user; 'schedule': the enterprise's month-end Schedule.
    table.string('trigger', 10).notNullable();
    table.uuid('started_by').references('users.id');
    table.text('failure');
    table.timestamp('finished_at', { useTz: true });
    table.unique(['enterprise_id', 'period'], { indexName: 'month_end_runs_one_per_period' });
    table.check(`status IN ('running', 'done', 'failed')`, [], 'month_end_runs_status_known');
    table.check(`trigger IN ('api', 'schedule')`, [], 'month_end_runs_trigger_known');
    table.check(`period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$' AND period_start <= period_end`, [], 'month_end_runs_period');
  });
  await touchUpdatedAtOnUpdate(knex, 'month_end_runs');

  await knex.schema.createTable('month_end_steps', (table) => {
    table.uuid('run_id').notNullable().references('month_end_runs.id');
    table.string('step', 60).notNullable();
    table.integer('position').notNullable();
    table.string('status', 10).notNullable().defaultTo('pending');
    // The step's MonthEndStepResult (domain/enterprise/month-end-step.ts), once done.
    table.jsonb('result');
    table.timestamp('finished_at', { useTz: true });
    table.primary(['run_id', 'step']);
    table.check(`status IN ('pending', 'done')`, [], 'month_end_steps_status_known');
    table.check(`(status = 'done') = (result IS NOT NULL)`, [], 'month_end_steps_result_when_done');
  });

  await knex.schema.createTable('month_end_entries', (table) => {
    table.uuid('run_id').notNullable().references('month_end_runs.id');
    table.string('step', 60).notNullable();
    table.uuid('entry_id').notNullable().primary().references('journal_entries.id');
  });
  await knex.raw('CREATE INDEX month_end_entries_run ON month_end_entries (run_id)');

  await knex.schema.createTable('loan_interest_accruals', (table) => {
    table.bigIncrements('id');
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('loan_id').notNullable().references('loans.id');
    table.uuid('run_id').notNullable().references('month_end_runs.id');
    table.string('period', 7).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.string('accrued_interest_account', 12).notNullable();
    table.string('interest_income_account', 12).notNullable();
    // The branch's aggregated entry this loan's accrual is part of, and the one that reversed it.
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.uuid('reversal_entry_id').references('journal_entries.id');
    table.string('reversed_by', 20);
    table.unique(['loan_id', 'period'], { indexName: 'loan_interest_accruals_once' });
    table.check('amount > 0', [], 'loan_interest_accruals_amount_positive');
    table.check(`(reversed_by IS NULL) = (reversal_entry_id IS NULL) AND (reversed_by IS NULL OR reversed_by IN ('month_end', 'reclassification'))`, [], 'loan_interest_accruals_reversal');
  });
  // The accruals still standing, which the next month end or a reclassification to doubtful reverses.
  await knex.raw('CREATE INDEX loan_interest_accruals_standing ON loan_interest_accruals (enterprise_id, loan_id) WHERE reversal_entry_id IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('loan_interest_accruals');
  await knex.schema.dropTable('month_end_entries');
  await knex.schema.dropTable('month_end_steps');
  await knex.schema.dropTable('month_end_runs');
}
