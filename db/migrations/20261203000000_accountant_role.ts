import type { Knex } from 'knex';

/**
 * Issue 28: the accountant (comptable), granted per branch or per enterprise as the other roles. The accountant keeps
 * the cooperative's own books (manual entries, banks, fixed assets) and reads its reports; the routes name it.
 */
const known = ['cashier', 'branch_head', 'credit_committee', 'direction', 'admin', 'auditor'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE role_grants DROP CONSTRAINT role_grants_role_known');
  await knex.raw(`ALTER TABLE role_grants ADD CONSTRAINT role_grants_role_known CHECK (role IN (${[...known, 'accountant'].map((role) => `'${role}'`).join(', ')}))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE role_grants DROP CONSTRAINT role_grants_role_known');
  await knex.raw(`ALTER TABLE role_grants ADD CONSTRAINT role_grants_role_known CHECK (role IN (${known.map((role) => `'${role}'`).join(', ')}))`);
}
