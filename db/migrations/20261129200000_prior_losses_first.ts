import type { Knex } from 'knex';

/** Whether a profit first clears the report à nouveau débiteur (docs/domain.md §7): by default it does. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE result_allocation_policies ADD COLUMN absorb_prior_losses_first boolean NOT NULL DEFAULT true');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE result_allocation_policies DROP COLUMN absorb_prior_losses_first');
}
