import type { Knex } from 'knex';

/**
 * Issue 31, loans in progress (docs/domain.md §15.2): a loan comes either from an application's approval circuit or
 * from a go-live import, never both; an imported loan names its import. Cancelling an import marks its loans
 * `cancelled` without a disbursement date: their schedule versions are append-only, so the loans stay, but out of
 * every reader of active or disbursed loans (portfolio, accruals, provisions, year end).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE loans ALTER COLUMN application_id DROP NOT NULL,
      ADD COLUMN import_id uuid REFERENCES imports (id),
      ADD CONSTRAINT loans_origin CHECK ((application_id IS NULL) = (import_id IS NOT NULL)),
      DROP CONSTRAINT loans_status_known,
      ADD CONSTRAINT loans_status_known CHECK (status IN ('awaiting_disbursement', 'active', 'closed', 'written_off', 'cancelled')),
      DROP CONSTRAINT loans_disbursed_date,
      ADD CONSTRAINT loans_disbursed_date CHECK ((status IN ('awaiting_disbursement', 'cancelled')) = (disbursed_on IS NULL));
    CREATE INDEX loans_import ON loans (import_id) WHERE import_id IS NOT NULL;
    -- A cancelled import's loan numbers are free again: the corrected file is imported anew.
    ALTER TABLE loans DROP CONSTRAINT loans_number_unique;
    CREATE UNIQUE INDEX loans_number_unique ON loans (enterprise_id, number) WHERE status <> 'cancelled';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX loans_import;
    DROP INDEX loans_number_unique;
    ALTER TABLE loans ADD CONSTRAINT loans_number_unique UNIQUE (enterprise_id, number);
    ALTER TABLE loans DROP CONSTRAINT loans_status_known, DROP CONSTRAINT loans_origin, DROP COLUMN import_id, DROP CONSTRAINT loans_disbursed_date,
      ADD CONSTRAINT loans_status_known CHECK (status IN ('awaiting_disbursement', 'active', 'closed', 'written_off')),
      ADD CONSTRAINT loans_disbursed_date CHECK ((status = 'awaiting_disbursement') = (disbursed_on IS NULL)),
      ALTER COLUMN application_id SET NOT NULL;
  `);
}
