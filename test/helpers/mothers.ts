import type { Knex } from 'knex';

/**
 * Test data builders (Object Mothers): rows as the product would leave them, inserted directly, for tests
 * that need them as a setting rather than as the thing under test.
 */
export async function insertEnterprise(knex: Knex, code: string): Promise<string> {
  const [row] = await knex('enterprises')
    .insert({ code, name: `Coopérative ${code}`, legal_form: 'Coopérative', country: 'CM' })
    .returning('id');
  await knex('cooperative_profiles').insert({ enterprise_id: row.id });
  return row.id as string;
}

let memberCount = 0;

/** An active member (natural person) of a branch, as the members module would register one. */
export async function insertClient(
  knex: Knex,
  enterpriseId: string,
  branchId: string,
  createdBy: string,
): Promise<string> {
  memberCount += 1;
  const [row] = await knex('client_profiles')
    .insert({
      enterprise_id: enterpriseId,
      branch_id: branchId,
      member_number: `T-${process.pid}-${memberCount}`,
      kind: 'natural_person',
      first_name: 'Awa',
      last_name: `Member ${memberCount}`,
      id_document_type: 'national_id',
      id_document_number: `ID${process.pid}${memberCount}`,
      birth_date: '1990-05-01',
      membership_date: '2026-01-15',
      created_by: createdBy,
    })
    .returning('id');
  return row.id as string;
}
