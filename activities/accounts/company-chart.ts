import type { Knex } from 'knex';
import { pcemfPlanCode } from '../../db/fixtures/pcemf';
import { CompanyChart } from '../../db/models/company-chart.model';

/**
 * Gives a new enterprise its chart of accounts, in the caller's transaction: the chart row, then a copy of
 * every record of the standard plan (about 1,355 rows) in one INSERT … SELECT, so the copy costs one round
 * trip and its rows never travel through Node.
 */
export async function createCompanyChart(trx: Knex.Transaction, enterpriseId: string): Promise<CompanyChart> {
  const { rows } = await trx.raw(
    `INSERT INTO company_charts (enterprise_id, plan_id)
     SELECT ?::uuid, id FROM account_plans WHERE code = ? RETURNING *`,
    [enterpriseId, pcemfPlanCode],
  );
  // The plan is loaded by the chart-of-accounts migration: its absence is a broken deployment, not a user error.
  if (rows.length !== 1) throw new Error(`The account plan ${pcemfPlanCode} is missing: run the migrations.`);
  const chart = CompanyChart.fromDatabaseJson(rows[0]);
  await trx.raw(
    `INSERT INTO company_chart_entries (chart_id, enterprise_id, record_id, code, label, class, parent_code, is_system)
     SELECT ?::uuid, ?::uuid, id, code, label, class, parent_code, is_system FROM account_records WHERE plan_id = ?`,
    [chart.id, enterpriseId, chart.planId],
  );
  return chart;
}
