import type { Knex } from 'knex';

/**
 * Interest owed on savings accrued at every month end (docs/domain.md §9): a product posting quarterly or yearly
 * still books each month's interest expense, against interest payable (dettes rattachées: 36900 term deposits,
 * 35900 special savings, 37800 demand accounts and books), reversed on the next month's first day when the
 * interest is computed again or posted. The rule of the accrual (savings_interest_accrual) for the enterprises
 * created before, and the per-account detail of each accrual.
 */
const accrualRule = { kind: 'savings_interest_accrual', legs: [{ debit: { role: 'interest_expense' }, credit: { role: 'accrued_interest_payable' } }] };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE savings_products ADD COLUMN accrued_interest_account_code varchar(12);
    UPDATE savings_products SET accrued_interest_account_code = CASE
      WHEN deposit_account_code LIKE '36%' THEN '36900' WHEN deposit_account_code LIKE '35%' THEN '35900' ELSE '37800' END;
    ALTER TABLE savings_products ALTER COLUMN accrued_interest_account_code SET NOT NULL;
  `);
  await knex.raw(
    `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason)
     SELECT e.id, ?, 1, ?::jsonb, true, 'default rule (fixtures/accounting-rules.json)'
     FROM enterprises e WHERE NOT EXISTS (SELECT 1 FROM accounting_rule_configs r WHERE r.enterprise_id = e.id AND r.kind = ?)`,
    [accrualRule.kind, JSON.stringify(accrualRule.legs), accrualRule.kind],
  );
  await knex.schema.createTable('savings_interest_accruals', (table) => {
    table.bigIncrements('id');
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('compte_client_id').notNullable().references('comptes_clients.id');
    table.uuid('run_id').notNullable().references('month_end_runs.id');
    table.string('period', 7).notNullable();
    table.date('accrued_from').notNullable();
    table.date('accrued_to').notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.string('interest_expense_account', 12).notNullable();
    table.string('accrued_interest_account', 12).notNullable();
    // The branch's aggregated entry this account's accrual is part of, and the one that reversed it.
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.uuid('reversal_entry_id').references('journal_entries.id');
    table.unique(['compte_client_id', 'period'], { indexName: 'savings_interest_accruals_once' });
    table.check('amount > 0', [], 'savings_interest_accruals_amount_positive');
  });
  await knex.raw('CREATE INDEX savings_interest_accruals_standing ON savings_interest_accruals (enterprise_id, period) WHERE reversal_entry_id IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('savings_interest_accruals');
  await knex.raw('ALTER TABLE accounting_rule_configs DISABLE TRIGGER accounting_rule_configs_append_only');
  await knex('accounting_rule_configs').where({ kind: accrualRule.kind }).delete();
  await knex.raw('ALTER TABLE accounting_rule_configs ENABLE TRIGGER accounting_rule_configs_append_only');
  await knex.raw('ALTER TABLE savings_products DROP COLUMN accrued_interest_account_code');
}
