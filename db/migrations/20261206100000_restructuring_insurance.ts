import type { Knex } from 'knex';

/**
 * Issue 30's follow-up: a spread insurance premium rides through a restructuring (docs/domain.md §14.2, §14.6). An
 * installment settled by capitalisation keeps the insurance part capitalised beside the others (`insurance_capitalised`,
 * its `capitalised_on` set whenever any part was); the restructuring records the premium it carried to its new series.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE loan_installments
      ADD COLUMN insurance_capitalised numeric(20, 0) NOT NULL DEFAULT 0,
      DROP CONSTRAINT loan_installments_capitalised_within_paid,
      ADD CONSTRAINT loan_installments_capitalised_within_paid CHECK (principal_capitalised <= principal_paid AND interest_capitalised <= interest_paid
        AND penalty_capitalised <= penalty_paid AND insurance_capitalised <= insurance_paid
        AND (capitalised_on IS NULL) = (principal_capitalised + interest_capitalised + penalty_capitalised + insurance_capitalised = 0))`);
  await knex.raw('ALTER TABLE loan_restructurings ADD COLUMN insurance_carried numeric(20, 0)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE loan_restructurings DROP COLUMN insurance_carried');
  await knex.raw(`
    ALTER TABLE loan_installments
      DROP CONSTRAINT loan_installments_capitalised_within_paid,
      DROP COLUMN insurance_capitalised,
      ADD CONSTRAINT loan_installments_capitalised_within_paid CHECK (principal_capitalised <= principal_paid AND interest_capitalised <= interest_paid AND penalty_capitalised <= penalty_paid
        AND (capitalised_on IS NULL) = (principal_capitalised + interest_capitalised + penalty_capitalised = 0))`);
}
