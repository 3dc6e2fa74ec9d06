import type { Knex } from 'knex';

/**
 * Issue 30's follow-up: what a second or later restructuring does to a loan's class is the enterprise's setting
 * (docs/domain.md §14.2; no rule found, so configuration): `doubtful` (the default, as before) or `as_first`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE enterprise_configurations ADD COLUMN second_restructuring_rule varchar(10) NOT NULL DEFAULT 'doubtful'
    CONSTRAINT enterprise_configurations_second_restructuring_rule CHECK (second_restructuring_rule IN ('doubtful', 'as_first'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE enterprise_configurations DROP COLUMN second_restructuring_rule');
}
