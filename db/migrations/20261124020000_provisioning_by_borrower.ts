import type { Knex } from 'knex';

/**
 * The provisioning run goes borrower by borrower (a borrower's loans are classified together) and writes a
 * LoanProvision row only when a loan's position changes. Its batches walk the loans it visits in borrower
 * order through loans_provisioning: the active loans, and the closed ones whose provisions are still to be
 * reversed. A run's cursor is now the last borrower of its last batch, no longer a loan: a run left running
 * by the previous version cannot be resumed and is failed (the next run provisions what it left).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX loans_provisioning ON loans (enterprise_id, client_id) WHERE status = 'active' OR provision_amount > 0`);
  await knex.raw(`UPDATE provisioning_runs SET status = 'failed', failure = 'interrupted by an upgrade', finished_at = now() WHERE status = 'running'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX loans_provisioning');
}
