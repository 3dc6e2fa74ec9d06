import type { Knex } from 'knex';

/**
 * Issue 30's follow-up: a restructuring capitalising its arrears capitalises them all (the default, as before) or only
 * their interest, penalties and insurance parts, the principal in arrears kept due (docs/domain.md §14.2).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE loan_restructurings ADD COLUMN capitalised_arrears varchar(10) NOT NULL DEFAULT 'all'
    CONSTRAINT loan_restructurings_capitalised_arrears CHECK (capitalised_arrears IN ('all', 'interest'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE loan_restructurings DROP COLUMN capitalised_arrears');
}
