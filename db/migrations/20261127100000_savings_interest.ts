import type { Knex } from 'knex';
import { addStandardColumns } from '../migration-helpers';

/**
 * Savings interest and term deposits (docs/domain.md §9): how a product pays interest (basis, day count, posting
 * frequency, withholding tax, the expense account), a term deposit's term and, on its accounts, the maturity date
 * and the demand account paid at maturity; the interest postings and the maturities, each once (unique keys); the
 * rules of the four new event kinds for the enterprises created before (later ones get them from the fixture).
 * Values are written out here, not read from code, so this migration means the same forever.
 */
export async function up(knex: Knex): Promise<void> {
  await addProductSettings(knex);
  await knex.schema.alterTable('comptes_clients', (table) => {
    table.date('maturity_date');
    table.uuid('payout_account_id').references('comptes_clients.id');
  });
  // Accounts of term products opened before: their maturity from the term given above, paid to the member's first
  // open demand account (resolved at maturity when they have none yet).
  await knex.raw(`
    UPDATE comptes_clients a SET maturity_date = (a.opened_on + make_interval(months => p.term_months))::date
      FROM savings_products p WHERE p.id = a.product_id AND p.kind = 'term_deposit'`);
  await createInterestPostings(knex);
  await createMaturities(knex);
  await addRules(knex);
}

async function addProductSettings(knex: Knex): Promise<void> {
  await knex.schema.alterTable('savings_products', (table) => {
    table.string('interest_basis', 30).notNullable().defaultTo('minimum_monthly_balance');
    table.string('day_count', 10).notNullable().defaultTo('30_360');
    table.string('posting_frequency', 10).notNullable().defaultTo('monthly');
    table.decimal('withholding_tax_rate', 9, 6).notNullable().defaultTo(0);
    table.string('withholding_tax_account_code', 12).notNullable().defaultTo('4302');
    table.string('interest_expense_account_code', 12);
    table.integer('term_months');
  });
  // The default expense account of docs/domain.md §9, by where the deposits are held.
  await knex.raw(`
    UPDATE savings_products SET interest_expense_account_code = CASE
      WHEN deposit_account_code LIKE '36%' THEN '612'
      WHEN deposit_account_code LIKE '373%' THEN '613'
      WHEN deposit_account_code LIKE '35%' THEN '6115'
      WHEN deposit_account_code LIKE '37%' THEN '614'
      ELSE '619' END`);
  await knex.raw(`UPDATE savings_products SET term_months = 12 WHERE kind = 'term_deposit'`);
  await knex.raw('ALTER TABLE savings_products ALTER COLUMN interest_expense_account_code SET NOT NULL');
  await knex.raw(`
    ALTER TABLE savings_products
      ADD CONSTRAINT savings_products_interest_basis_known CHECK (interest_basis IN ('minimum_monthly_balance', 'daily_balance')),
      ADD CONSTRAINT savings_products_day_count_known CHECK (day_count IN ('actual_365', '30_360')),
      ADD CONSTRAINT savings_products_posting_frequency_known CHECK (posting_frequency IN ('monthly', 'quarterly', 'yearly')),
      ADD CONSTRAINT savings_products_tax_rate_range CHECK (withholding_tax_rate >= 0 AND withholding_tax_rate <= 1),
      ADD CONSTRAINT savings_products_term_of_term_deposits CHECK ((kind = 'term_deposit') = (term_months IS NOT NULL) AND (term_months IS NULL OR term_months BETWEEN 1 AND 120))`);
}

/** One row per account and period end: the unique key makes a rerun find the first run's posting. */
async function createInterestPostings(knex: Knex): Promise<void> {
  await knex.schema.createTable('savings_interest_postings', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('compte_client_id').notNullable().references('comptes_clients.id');
    table.date('period_end').notNullable();
    table.string('occasion', 10).notNullable();
    table.date('interest_from').notNullable();
    table.date('interest_to').notNullable();
    table.string('interest_basis', 30).notNullable();
    table.string('day_count', 10).notNullable();
    table.decimal('interest_rate', 9, 6).notNullable();
    table.decimal('withholding_tax_rate', 9, 6).notNullable();
    table.decimal('gross', 20, 0).notNullable();
    table.decimal('tax', 20, 0).notNullable();
    table.decimal('net', 20, 0).notNullable();
    table.string('interest_expense_account_code', 12).notNullable();
    table.string('withholding_tax_account_code', 12).notNullable();
    table.string('deposit_account_code', 12).notNullable();
    table.uuid('interest_event_id').notNullable().references('business_event_logs.id');
    table.uuid('tax_event_id').references('business_event_logs.id');
    table.unique(['compte_client_id', 'period_end'], { indexName: 'savings_interest_postings_once' });
    table.index(['enterprise_id', 'period_end'], 'savings_interest_postings_enterprise_period');
    table.check(`occasion IN ('periodic', 'maturity')`, [], 'savings_interest_postings_occasion_known');
    table.check('gross > 0 AND tax >= 0 AND net = gross - tax AND interest_from <= interest_to', [], 'savings_interest_postings_figures');
    table.check('(tax = 0) = (tax_event_id IS NULL)', [], 'savings_interest_postings_tax_event');
  });
}

/** One row per term account that matured: its capital and interest moved to the demand account. */
async function createMaturities(knex: Knex): Promise<void> {
  await knex.schema.createTable('term_deposit_maturities', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('compte_client_id').notNullable().references('comptes_clients.id');
    table.uuid('payout_account_id').notNullable().references('comptes_clients.id');
    table.date('maturity_date').notNullable();
    // The month end that matured it (a rerun of that month end answers its figures).
    table.date('period_end').notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.uuid('maturity_event_id').references('business_event_logs.id');
    table.uuid('payout_event_id').references('business_event_logs.id');
    table.unique(['compte_client_id'], { indexName: 'term_deposit_maturities_once' });
    table.index(['enterprise_id', 'period_end'], 'term_deposit_maturities_enterprise_period');
    table.check('amount >= 0 AND (amount = 0) = (maturity_event_id IS NULL) AND (amount = 0) = (payout_event_id IS NULL)', [], 'term_deposit_maturities_events');
  });
}

const role = (name: string) => ({ role: name });
const newRules = [
  { kind: 'savings_interest', legs: [{ debit: role('interest_expense'), credit: role('member_deposits') }] },
  { kind: 'withholding_tax', legs: [{ debit: role('member_deposits'), credit: role('withholding_tax') }] },
  { kind: 'term_deposit_maturity', legs: [{ debit: role('member_deposits'), credit: role('internal_transfers') }] },
  { kind: 'term_deposit_payout', legs: [{ debit: role('internal_transfers'), credit: role('member_deposits') }] },
];

async function addRules(knex: Knex): Promise<void> {
  for (const rule of newRules) {
    await knex.raw(
      `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason)
       SELECT e.id, ?, 1, ?::jsonb, true, 'default rule (fixtures/accounting-rules.json)'
       FROM enterprises e
       WHERE NOT EXISTS (SELECT 1 FROM accounting_rule_configs r WHERE r.enterprise_id = e.id AND r.kind = ?)`,
      [rule.kind, JSON.stringify(rule.legs), rule.kind],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  // Rules are append-only; undoing this migration is the one legitimate removal.
  await knex.raw('ALTER TABLE accounting_rule_configs DISABLE TRIGGER accounting_rule_configs_append_only');
  await knex('accounting_rule_configs').whereIn('kind', newRules.map((rule) => rule.kind)).delete();
  await knex.raw('ALTER TABLE accounting_rule_configs ENABLE TRIGGER accounting_rule_configs_append_only');
  await knex.schema.dropTable('term_deposit_maturities');
  await knex.schema.dropTable('savings_interest_postings');
  await knex.schema.alterTable('comptes_clients', (table) => {
    table.dropColumn('payout_account_id');
    table.dropColumn('maturity_date');
  });
  await knex.raw(`ALTER TABLE savings_products
    DROP CONSTRAINT savings_products_interest_basis_known, DROP CONSTRAINT savings_products_day_count_known, DROP CONSTRAINT savings_products_posting_frequency_known,
    DROP CONSTRAINT savings_products_tax_rate_range, DROP CONSTRAINT savings_products_term_of_term_deposits`);
  await knex.schema.alterTable('savings_products', (table) => {
    for (const column of ['interest_basis', 'day_count', 'posting_frequency', 'withholding_tax_rate', 'withholding_tax_account_code', 'interest_expense_account_code', 'term_months']) table.dropColumn(column);
  });
}
