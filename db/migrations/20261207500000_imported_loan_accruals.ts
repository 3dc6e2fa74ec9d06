import type { Knex } from 'knex';

/**
 * Issue 31, accrued interest brought in by the go-live import (docs/domain.md §15.2): a loan's interest accrued at
 * the cut-over stands as a row of `loan_interest_accruals` that names the import instead of a month-end run, so the
 * first month end after the cut-over reverses it as it reverses its own. The opening entry carries its ledger side:
 * such a row has no accrual entry of its own (`entry_id` null), a month end's always has one.
 *
 * The once-per-period key is the month-end runs' own: an imported row of the cut-over's month stands beside the
 * accrual that month's own month end books (a cut-over within a month), which reverses it first.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE loan_interest_accruals
      ALTER COLUMN run_id DROP NOT NULL,
      ALTER COLUMN entry_id DROP NOT NULL,
      ADD COLUMN import_id uuid,
      ADD CONSTRAINT loan_interest_accruals_import_fk FOREIGN KEY (enterprise_id, import_id) REFERENCES imports (enterprise_id, id),
      ADD CONSTRAINT loan_interest_accruals_origin CHECK ((run_id IS NULL) <> (import_id IS NULL) AND (entry_id IS NOT NULL OR run_id IS NULL))`);
  await knex.raw('ALTER TABLE loan_interest_accruals DROP CONSTRAINT loan_interest_accruals_once');
  await knex.raw('CREATE UNIQUE INDEX loan_interest_accruals_once ON loan_interest_accruals (loan_id, period, enterprise_id) WHERE run_id IS NOT NULL');
  await knex.raw('CREATE UNIQUE INDEX loan_interest_accruals_imported_once ON loan_interest_accruals (loan_id, enterprise_id) WHERE import_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex('loan_interest_accruals').whereNotNull('import_id').delete();
  await knex.raw('DROP INDEX loan_interest_accruals_imported_once');
  await knex.raw('DROP INDEX loan_interest_accruals_once');
  await knex.raw('ALTER TABLE loan_interest_accruals ADD CONSTRAINT loan_interest_accruals_once UNIQUE (loan_id, period, enterprise_id)');
  await knex.raw(`
    ALTER TABLE loan_interest_accruals
      DROP CONSTRAINT loan_interest_accruals_origin,
      DROP CONSTRAINT loan_interest_accruals_import_fk,
      DROP COLUMN import_id,
      ALTER COLUMN entry_id SET NOT NULL,
      ALTER COLUMN run_id SET NOT NULL`);
}
