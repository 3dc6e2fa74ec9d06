import type { Knex } from 'knex';
import type { TestApp } from './app';
import { bearer, createUser } from './users';

/** An accountant of the whole enterprise, signed in: the maker of the general-accounting tests' requests. */
export async function enterpriseAccountant(
  app: TestApp,
  knex: Knex,
  enterpriseId: string,
  username: string,
  address: string,
) {
  const id = await createUser(knex, username, [{ role: 'accountant', enterpriseId, branchId: null }]);
  return { id, headers: await bearer(app, username, address) } as { id: string; headers: Record<string, string> };
}

/** A four-eyes request approved or rejected through the API, with the checker's reason. */
export const decideRequest = (
  app: TestApp,
  requestId: string,
  decision: 'approve' | 'reject',
  headers: Record<string, string>,
  reason: string,
) => app.request('POST', `/api/v1/approvals/requests/${requestId}/${decision}/`, { headers, json: { reason } });
