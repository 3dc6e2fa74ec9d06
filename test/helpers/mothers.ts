import type { Knex } from 'knex';

/**
 * Test data builders (Object Mothers): rows as the product would leave them, inserted directly, for tests
 * that need them as a setting rather than as the thing under test.
 */
export async function insertEnterprise(knex: Knex, code: string): Promise<string> {
  const [row] = await knex('enterprises').insert({ code, name: `Coopérative ${code}`, legal_form: 'Coopérative', country: 'CM' }).returning('id');
  await knex('cooperative_profiles').insert({ enterprise_id: row.id });
  return row.id as string;
}
