import type { Knex } from 'knex';

/**
 * Issue 31, a term deposit's own rate (docs/domain.md §9, §15.1): a term deposit brought in by the go-live import
 * keeps the rate of its contract until its maturity, whatever its product pays today. Null: the product's rates.
 * The renewal at maturity clears it: the new term is a new contract, at the product's rate of the day.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('comptes_clients', (table) => {
    table.decimal('contract_rate', 9, 6);
    table.check('contract_rate IS NULL OR (contract_rate >= 0 AND contract_rate <= 1)', [], 'comptes_clients_contract_rate_range');
  });
  // Term deposits already imported and still open: the rate their file gave (validated as a fraction then).
  await knex.raw(`UPDATE comptes_clients a SET contract_rate = (r.data->>'interest_rate')::numeric
    FROM import_rows r, imports i, savings_products p
    WHERE i.id = a.import_id AND i.status = 'applied' AND r.import_id = i.id AND r.kind = 'member-accounts' AND r.data->>'account_number' = a.number
      AND p.id = a.product_id AND p.kind = 'term_deposit' AND a.status = 'open' AND r.data->>'interest_rate' ~ '^(0(\\.[0-9]{1,6})?|1(\\.0{1,6})?)$'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('comptes_clients', (table) => {
    table.dropChecks(['comptes_clients_contract_rate_range']);
    table.dropColumn('contract_rate');
  });
}
