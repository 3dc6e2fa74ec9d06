import fs from 'node:fs';
import type { Knex } from 'knex';
import { pcemfCsvPath, pcemfOffBalanceRecords, pcemfPlanCode } from '../fixtures/pcemf';
import { applySqlSource } from '../migration-helpers';

/**
 * Issue 28, part 2: off-balance (class 9, docs/domain.md §12.2). The PCEMF's class 9 joins the plan's records
 * and every enterprise's chart, the existing ones included (a new one copies the plan: activities/accounts/company-chart.ts).
 * Class 9 accounts are system accounts (the product posts them). A journal HB (hors bilan) takes the entries of
 * class 9 alone, which the database keeps apart from the other classes (coopbank_post_entry, and the balance check
 * at commit). `off_balance_movements` says which loan moved which engagement, so the postings can be brought to
 * what a loan's position is without posting twice.
 */
const ranges = ['account_records', 'company_chart_entries'];

async function classChecks(knex: Knex, lastClass: number, systemClasses: string): Promise<void> {
  for (const table of ranges) {
    await knex.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_class_range, DROP CONSTRAINT ${table}_system_classes`);
    await knex.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_class_range CHECK (class BETWEEN 1 AND ${lastClass}),
      ADD CONSTRAINT ${table}_system_classes CHECK (is_system = (class IN (${systemClasses})))`);
  }
}

export async function up(knex: Knex): Promise<void> {
  await classChecks(knex, 9, '6, 7, 8, 9');
  const plan = await knex('account_plans').where({ code: pcemfPlanCode }).first('id');
  const records = pcemfOffBalanceRecords(fs.readFileSync(pcemfCsvPath, 'utf8'));
  await knex('account_records').insert(records.map((record) => ({
    plan_id: plan.id, code: record.code, label: record.label, class: record.class, parent_code: record.parentCode, is_system: record.isSystem,
  })));
  // Every chart of the plan gets the records it lacks (all of class 9), parents before children by code length.
  await knex.raw(`
    INSERT INTO company_chart_entries (chart_id, enterprise_id, record_id, code, label, class, parent_code, is_system)
    SELECT chart.id, chart.enterprise_id, r.id, r.code, r.label, r.class, r.parent_code, r.is_system
      FROM company_charts chart JOIN account_records r ON r.plan_id = chart.plan_id
     WHERE r.class = 9 AND NOT EXISTS (SELECT 1 FROM company_chart_entries c WHERE c.chart_id = chart.id AND c.code = r.code)
     ORDER BY chart.id, char_length(r.code), r.code`);
  await knex('journals').insert({ code: 'HB', name: 'Hors bilan (engagements)', event_kinds: knex.raw(`'{}'::text[]`) });

  await knex.schema.createTable('off_balance_movements', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('loan_id').notNullable().references('loans.id');
    // commitment_given, guarantee_received, suspended_interest (domain/accounting/off-balance.ts).
    table.string('kind', 30).notNullable();
    table.string('account', 12).notNullable();
    table.string('counterpart', 12).notNullable();
    // The change of the loan's engagement on the account, signed: positive raises it.
    table.decimal('amount', 20, 0).notNullable();
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.date('entry_date').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check(`amount <> 0`, [], 'off_balance_movements_amount_nonzero');
    table.check(`kind IN ('commitment_given', 'guarantee_received', 'suspended_interest')`, [], 'off_balance_movements_kind_known');
    table.index(['loan_id', 'kind'], 'off_balance_movements_loan');
  });
  await knex.raw(`CREATE TRIGGER off_balance_movements_append_only BEFORE UPDATE OR DELETE ON off_balance_movements FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()`);

  await applySqlSource(knex, 'functions/coopbank_post_entry');
  await applySqlSource(knex, 'triggers/coopbank_check_entry_balanced');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('off_balance_movements');
  await knex('journals').where({ code: 'HB' }).delete();
  // One statement each: the parent keys are checked at its end.
  await knex('company_chart_entries').where({ class: 9 }).delete();
  await knex('account_records').where({ class: 9 }).delete();
  await classChecks(knex, 8, '6, 7, 8');
}
