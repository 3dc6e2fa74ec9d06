import type { Knex } from 'knex';
import { hashPassword } from '../../activities/auth/passwords';
import type { Grant } from '../../domain/access';
import type { TestApp } from './app';

export const testPassword = 'correct horse battery';
let hashed: Promise<string> | undefined;

/** A user whose password is `testPassword`, with the given grants; the hash is computed once per file. */
export async function createUser(knex: Knex, username: string, grants: readonly Grant[] = []): Promise<string> {
  hashed ??= hashPassword(testPassword);
  const [user] = await knex('users')
    .insert({ username, password_hash: await hashed, full_name: `User ${username}` })
    .returning('id');
  for (const grant of grants) {
    await knex('role_grants').insert({
      user_id: user.id,
      role: grant.role,
      enterprise_id: grant.enterpriseId,
      branch_id: grant.branchId,
    });
  }
  return user.id as string;
}

/** Headers of a Bearer session for `username`. */
export async function bearer(app: TestApp, username: string, address = '10.0.0.1'): Promise<Record<string, string>> {
  const response = await app.request('POST', '/api/v1/token/', {
    json: { username, password: testPassword },
    headers: { 'x-forwarded-for': address },
  });
  if (response.status !== 200) throw new Error(`sign-in of ${username} failed: ${response.status} ${response.text}`);
  return { authorization: `Bearer ${response.body.access}` };
}
