import type { Knex } from 'knex';

/**
 * How a savings product pays its interest (docs/domain.md §9): into the account itself (demand and savings books),
 * or, for a term deposit, never into the deposit, which would make it earn interest on its interest: at maturity
 * (accrued every month end meanwhile), or at each posting to the member's demand account that receives it. Term
 * products already there pay at maturity.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE savings_products ADD COLUMN interest_payment varchar(20) NOT NULL DEFAULT 'to_account';
    UPDATE savings_products SET interest_payment = 'at_maturity' WHERE kind = 'term_deposit';
    ALTER TABLE savings_products
      ADD CONSTRAINT savings_products_interest_payment_known CHECK (interest_payment IN ('to_account', 'at_maturity', 'to_payout_account')),
      ADD CONSTRAINT savings_products_interest_payment_of_kind CHECK ((kind = 'term_deposit') = (interest_payment <> 'to_account'));
    ALTER TABLE savings_interest_postings ADD COLUMN credited_account_id uuid REFERENCES comptes_clients(id);
    UPDATE savings_interest_postings SET credited_account_id = compte_client_id;
    ALTER TABLE savings_interest_postings ALTER COLUMN credited_account_id SET NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE savings_interest_postings DROP COLUMN credited_account_id;
    ALTER TABLE savings_products DROP COLUMN interest_payment;
  `);
}
