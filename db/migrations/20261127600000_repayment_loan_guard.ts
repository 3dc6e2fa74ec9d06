import type { Knex } from 'knex';

/**
 * The guard of a repayment written without holding the loan's lock (activities/loans/loan-repayments.activity.ts):
 * given what its statement's UPDATE of the loan matched (the loan's id when its row version is still the one
 * the repayment read, NULL otherwise), answers the id, or fails the whole statement with a serialization
 * failure, which the caller answers by repaying again with the loan locked. Every writer of a loan's
 * installments also updates the loan's row, so an unchanged row version means unchanged installments.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION coopbank_unchanged_loan(updated uuid) RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      IF updated IS NULL THEN
        RAISE EXCEPTION 'the loan changed after the repayment read it' USING ERRCODE = 'serialization_failure';
      END IF;
      RETURN updated;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION coopbank_unchanged_loan(uuid)');
}
