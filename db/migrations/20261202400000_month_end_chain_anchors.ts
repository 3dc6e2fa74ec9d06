import type { Knex } from 'knex';

/**
 * The month end prints where the enterprise's two hash chains ended when it finished (docs/architecture.md §4,
 * "Tamper evidence"): a position and a head hash per chain, kept with the run so that the document printed and
 * kept outside the database can be compared with the chain later.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('month_end_runs', (table) => {
    table.jsonb('chain_anchors');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('month_end_runs', (table) => {
    table.dropColumn('chain_anchors');
  });
}
