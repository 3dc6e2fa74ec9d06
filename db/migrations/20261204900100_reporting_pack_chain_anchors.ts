import type { Knex } from 'knex';

/**
 * Issue 27: a reporting pack carries where the enterprise's two hash chains ended when it was stored, as a month end
 * does: the pack is what leaves the cooperative, so the anchor printed with it lets an auditor prove later that the
 * chains were not recomputed since. Null for the packs stored before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reporting_packs', (table) => {
    table.jsonb('chain_anchors');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reporting_packs', (table) => {
    table.dropColumn('chain_anchors');
  });
}
