import type { Knex } from 'knex';
import { addStandardColumns } from '../migration-helpers';

/**
 * What a term deposit does at maturity, and its early closure (docs/domain.md §9). A term product says whether its
 * accounts are paid out at maturity (`pay_out`, what they all did before), renewed for a new term with the interest
 * paid out (`renew`), or renewed with the interest as the new principal (`renew_with_interest`); and the annual rate
 * paid instead of its own when a member closes before maturity (`early_closure_rate`, 0 = no interest). A renewed
 * account keeps its number and matures again: a maturity is now once per (account, maturity day). The interest
 * posted at a maturity and a periodic posting of the same month end are two postings, each once. The early
 * closures, each once per account, and the rules of the three new kinds for the enterprises created before (later
 * ones get them from the fixture). Values are written out here, not read from code, so this migration means the
 * same forever.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE savings_products ADD COLUMN maturity_instruction varchar(30), ADD COLUMN early_closure_rate numeric(9, 6);
    UPDATE savings_products SET maturity_instruction = 'pay_out', early_closure_rate = 0 WHERE kind = 'term_deposit';
    ALTER TABLE savings_products
      ADD CONSTRAINT savings_products_maturity_instruction_known CHECK (maturity_instruction IN ('pay_out', 'renew', 'renew_with_interest')),
      ADD CONSTRAINT savings_products_maturity_of_term_deposits CHECK ((kind = 'term_deposit') = (maturity_instruction IS NOT NULL) AND (kind = 'term_deposit') = (early_closure_rate IS NOT NULL)),
      ADD CONSTRAINT savings_products_early_closure_rate_range CHECK (early_closure_rate >= 0 AND early_closure_rate <= interest_rate),
      ADD CONSTRAINT savings_products_renewal_with_interest_kept CHECK (maturity_instruction <> 'renew_with_interest' OR interest_payment = 'at_maturity');

    ALTER TABLE term_deposit_maturities
      DROP CONSTRAINT term_deposit_maturities_once,
      ADD CONSTRAINT term_deposit_maturities_once UNIQUE (compte_client_id, maturity_date),
      ADD COLUMN instruction varchar(30) NOT NULL DEFAULT 'pay_out',
      ADD COLUMN renewed_principal numeric(20, 0),
      ADD COLUMN renewed_until date,
      ALTER COLUMN payout_account_id DROP NOT NULL,
      ADD CONSTRAINT term_deposit_maturities_instruction_known CHECK (instruction IN ('pay_out', 'renew', 'renew_with_interest')),
      ADD CONSTRAINT term_deposit_maturities_renewal CHECK ((instruction = 'pay_out') = (renewed_until IS NULL) AND (renewed_until IS NULL) = (renewed_principal IS NULL) AND renewed_until > maturity_date),
      ADD CONSTRAINT term_deposit_maturities_payout CHECK (amount = 0 OR payout_account_id IS NOT NULL);
    ALTER TABLE term_deposit_maturities ALTER COLUMN instruction DROP DEFAULT;

    ALTER TABLE savings_interest_postings
      DROP CONSTRAINT savings_interest_postings_once,
      ADD CONSTRAINT savings_interest_postings_once UNIQUE (compte_client_id, period_end, occasion);
  `);
  await createEarlyClosures(knex);
  await addRules(knex);
}

/** One row per term account closed before maturity: the interest recomputed at the penalty rate and the settlement. */
async function createEarlyClosures(knex: Knex): Promise<void> {
  await knex.schema.createTable('term_deposit_early_closures', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('compte_client_id').notNullable().references('comptes_clients.id');
    table.uuid('payout_account_id').notNullable().references('comptes_clients.id');
    table.date('closed_on').notNullable();
    table.date('term_started_on').notNullable();
    table.date('maturity_date').notNullable();
    table.date('interest_to').notNullable();
    table.string('interest_basis', 30).notNullable();
    table.string('day_count', 10).notNullable();
    table.decimal('early_closure_rate', 9, 6).notNullable();
    table.decimal('withholding_tax_rate', 9, 6).notNullable();
    table.decimal('principal', 20, 0).notNullable();
    // What the term earns at the penalty rate, and what it had been paid at the contract rate.
    table.decimal('gross_due', 20, 0).notNullable();
    table.decimal('tax_due', 20, 0).notNullable();
    table.decimal('gross_paid', 20, 0).notNullable();
    table.decimal('tax_paid', 20, 0).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.string('interest_expense_account_code', 12).notNullable();
    table.string('withholding_tax_account_code', 12).notNullable();
    table.string('deposit_account_code', 12).notNullable();
    table.uuid('interest_event_id').references('business_event_logs.id');
    table.uuid('tax_event_id').references('business_event_logs.id');
    table.uuid('closure_event_id').references('business_event_logs.id');
    table.uuid('payout_event_id').references('business_event_logs.id');
    table.uuid('closed_by').references('users.id');
    table.unique(['compte_client_id'], { indexName: 'term_deposit_early_closures_once' });
    table.index(['enterprise_id', 'closed_on'], 'term_deposit_early_closures_enterprise_day');
    table.check('gross_due >= 0 AND tax_due >= 0 AND tax_due <= gross_due AND gross_paid >= 0 AND tax_paid >= 0 AND principal >= 0 AND amount >= 0', [], 'term_deposit_early_closures_figures');
    table.check('amount = principal + (gross_due - tax_due) - (gross_paid - tax_paid)', [], 'term_deposit_early_closures_settled');
    table.check('(amount = 0) = (closure_event_id IS NULL) AND (amount = 0) = (payout_event_id IS NULL)', [], 'term_deposit_early_closures_events');
  });
}

const role = (name: string) => ({ role: name });
const newRules = [
  { kind: 'term_deposit_early_closure', legs: [{ debit: role('member_deposits'), credit: role('internal_transfers') }] },
  { kind: 'savings_interest_recovery', legs: [{ debit: role('member_deposits'), credit: role('interest_expense') }] },
  { kind: 'withholding_tax_refund', legs: [{ debit: role('withholding_tax'), credit: role('member_deposits') }] },
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
  await knex.schema.dropTable('term_deposit_early_closures');
  // A renewed account's earlier maturities have no place in the old key: only its latest is kept.
  await knex.raw(`
    DELETE FROM term_deposit_maturities m WHERE EXISTS (SELECT 1 FROM term_deposit_maturities n WHERE n.compte_client_id = m.compte_client_id AND n.maturity_date > m.maturity_date);
    ALTER TABLE savings_interest_postings DROP CONSTRAINT savings_interest_postings_once, ADD CONSTRAINT savings_interest_postings_once UNIQUE (compte_client_id, period_end);
    ALTER TABLE term_deposit_maturities
      DROP CONSTRAINT term_deposit_maturities_once, DROP CONSTRAINT term_deposit_maturities_instruction_known,
      DROP CONSTRAINT term_deposit_maturities_renewal, DROP CONSTRAINT term_deposit_maturities_payout,
      DROP COLUMN instruction, DROP COLUMN renewed_principal, DROP COLUMN renewed_until,
      ADD CONSTRAINT term_deposit_maturities_once UNIQUE (compte_client_id);
    ALTER TABLE savings_products
      DROP CONSTRAINT savings_products_maturity_instruction_known, DROP CONSTRAINT savings_products_maturity_of_term_deposits,
      DROP CONSTRAINT savings_products_early_closure_rate_range, DROP CONSTRAINT savings_products_renewal_with_interest_kept,
      DROP COLUMN maturity_instruction, DROP COLUMN early_closure_rate;
  `);
}
