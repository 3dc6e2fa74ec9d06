import type { Knex } from 'knex';

const heldView = (kindColumn: string) => `
  CREATE OR REPLACE VIEW guarantee_holds AS
    SELECT g.id AS guarantee_id, g.loan_id, g.compte_client_id, g.status, g.start_date, g.value, g.created_at${kindColumn}
      FROM loan_guarantees g
      LEFT JOIN loans l ON l.id = g.loan_id
      LEFT JOIN loan_applications a ON a.id = g.application_id
     WHERE g.compte_client_id IS NOT NULL AND g.status <> 'refused' AND g.end_date IS NULL
       AND CASE WHEN g.loan_id IS NOT NULL THEN l.status IN ('awaiting_disbursement', 'active') ELSE a.status = 'in_review' END`;

/**
 * Issue 30, guarantors and collateral (docs/domain.md §14.4):
 * - a personal guarantee names its guarantor member (`guarantor_client_id`) and may hold the guarantor's savings
 *   (`compte_client_id`) up to the amount guaranteed: one more hold of the `guarantee_holds` view, so the debits'
 *   rule (coopbank_held_amount) and the holds' end with the loan are the pledged deposits' own. The view gains the
 *   guarantee's `kind`, for the provisioning run counts only a pledged deposit's hold as cash cover;
 * - the collateral register: a kind for a pledge of equipment (gage), the valuation date (a guarantee recorded before
 *   was valued when it started) and the document's reference.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('loan_guarantees', (table) => {
    table.uuid('guarantor_client_id').references('client_profiles.id');
    table.date('valuation_date');
    table.string('document_reference', 100).notNullable().defaultTo('');
    table.dropChecks(['loan_guarantees_kind_known', 'loan_guarantees_account_pledged_only']);
    table.check(`kind IN ('pledged_deposit', 'mortgage', 'equipment_pledge', 'bank_guarantee', 'public_guarantee', 'personal_guarantor')`, [], 'loan_guarantees_kind_known');
    table.check(`guarantor_client_id IS NULL OR kind = 'personal_guarantor'`, [], 'loan_guarantees_guarantor_personal_only');
    table.check(`compte_client_id IS NULL OR kind = 'pledged_deposit' OR (kind = 'personal_guarantor' AND guarantor_client_id IS NOT NULL)`, [], 'loan_guarantees_account_held');
  });
  await knex.raw('UPDATE loan_guarantees SET valuation_date = start_date');
  await knex.raw('CREATE INDEX loan_guarantees_guarantor ON loan_guarantees (guarantor_client_id) WHERE guarantor_client_id IS NOT NULL');
  await knex.raw(heldView(', g.kind'));
}

export async function down(knex: Knex): Promise<void> {
  // A view loses no column by CREATE OR REPLACE; coopbank_held_amount's body (SQL, not tracked) reads the new one alike.
  await knex.raw('DROP VIEW guarantee_holds');
  await knex.raw(heldView(''));
  await knex.raw('DROP INDEX loan_guarantees_guarantor');
  await knex.schema.alterTable('loan_guarantees', (table) => {
    table.dropChecks(['loan_guarantees_kind_known', 'loan_guarantees_guarantor_personal_only', 'loan_guarantees_account_held']);
    table.dropColumn('guarantor_client_id');
    table.dropColumn('valuation_date');
    table.dropColumn('document_reference');
    table.check(`kind IN ('pledged_deposit', 'mortgage', 'bank_guarantee', 'public_guarantee', 'personal_guarantor')`, [], 'loan_guarantees_kind_known');
    table.check(`compte_client_id IS NULL OR kind = 'pledged_deposit'`, [], 'loan_guarantees_account_pledged_only');
  });
}
