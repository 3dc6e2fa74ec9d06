import type { Knex } from 'knex';

/**
 * The history of a savings product's rate (docs/domain.md §9): a change applies from its effective date, so the
 * interest of a posting period is computed piecewise, each day at the rate in force on it. The first rate of each
 * product holds from before any account. Rows are never changed nor deleted: a posting computed with them can be
 * computed again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE savings_product_rates (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      enterprise_id uuid NOT NULL REFERENCES enterprises(id),
      product_id uuid NOT NULL REFERENCES savings_products(id),
      effective_from date NOT NULL,
      annual_rate numeric(9, 6) NOT NULL CONSTRAINT savings_product_rates_range CHECK (annual_rate >= 0 AND annual_rate <= 1),
      reason varchar(500) NOT NULL DEFAULT '',
      created_by uuid REFERENCES users(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT savings_product_rates_one_per_day UNIQUE (product_id, effective_from)
    );
    INSERT INTO savings_product_rates (enterprise_id, product_id, effective_from, annual_rate, reason)
      SELECT enterprise_id, id, DATE '1900-01-01', interest_rate, 'the rate of the product before its history was kept' FROM savings_products;
    CREATE FUNCTION coopbank_savings_rate_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'savings_product_rates is append-only: a rate change is a new row from its date';
    END $$;
    CREATE TRIGGER savings_product_rates_append_only BEFORE UPDATE OR DELETE ON savings_product_rates
      FOR EACH ROW EXECUTE FUNCTION coopbank_savings_rate_immutable();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE savings_product_rates; DROP FUNCTION coopbank_savings_rate_immutable()');
}
