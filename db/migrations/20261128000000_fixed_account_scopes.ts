import type { Knex } from 'knex';

/**
 * A member account and a loan belong to one enterprise and one branch for good: nothing in the product moves them,
 * and the API process remembers where an account lies instead of reading it on every movement
 * (api/modules/members/member-accounts.queries.ts). The database makes the fact a rule, whatever writes the row.
 * Only a change of those two columns fires the trigger: balance updates never do.
 */
const tables = ['comptes_clients', 'loans'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION coopbank_refuse_scope_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'a row of % never changes enterprise or branch', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
    END $$`);
  for (const table of tables) {
    await knex.raw(`
      CREATE TRIGGER ?? BEFORE UPDATE OF enterprise_id, branch_id ON ?? FOR EACH ROW
      WHEN (OLD.enterprise_id IS DISTINCT FROM NEW.enterprise_id OR OLD.branch_id IS DISTINCT FROM NEW.branch_id)
      EXECUTE FUNCTION coopbank_refuse_scope_change()`, [`${table}_scope_fixed`, table]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of tables) await knex.raw('DROP TRIGGER ?? ON ??', [`${table}_scope_fixed`, table]);
  await knex.raw('DROP FUNCTION coopbank_refuse_scope_change()');
}
