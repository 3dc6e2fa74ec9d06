import type { Knex } from 'knex';

/**
 * A loan product's accrued-interest account (créances rattachées, docs/domain.md §8): the PCEMF keeps the interest
 * earned and not yet due apart by term, 3291 for short-term credit to members and 319 for medium-term credit.
 * Products already there take their category's default.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE loan_products ADD COLUMN accrued_interest_account_code varchar(12);
    UPDATE loan_products SET accrued_interest_account_code = CASE WHEN term_category = 'mlt' THEN '319' ELSE '3291' END;
    ALTER TABLE loan_products ALTER COLUMN accrued_interest_account_code SET NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE loan_products DROP COLUMN accrued_interest_account_code');
}
