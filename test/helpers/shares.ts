import type { LoanWorld } from './loans';

/**
 * Shares through the API, for tests that need a holding as a setting: the share type created by direction,
 * subscriptions and payments by the head office's cashier. Each throws with the answer when refused.
 */
export async function createShareType(world: LoanWorld, fields: Record<string, unknown>): Promise<string> {
  const response = await world.app.request('POST', '/api/v1/shares/types/', { headers: world.users.direction!.headers, json: { enterprise: world.enterpriseId, ...fields } });
  if (response.status !== 201) throw new Error(response.text);
  return response.body.id as string;
}

export const subscribe = (world: LoanWorld, clientId: string, fields: Record<string, unknown>, as = 'cashier', headers: Record<string, string> = {}) =>
  world.app.request('POST', '/api/v1/shares/subscriptions/', { headers: { ...world.users[as]!.headers, ...headers }, json: { client: clientId, ...fields } });

export async function subscribeShares(world: LoanWorld, clientId: string, fields: Record<string, unknown>): Promise<{ id: string; number: string; unpaid_amount: string }> {
  const response = await subscribe(world, clientId, fields);
  if (response.status !== 201) throw new Error(response.text);
  return response.body;
}

export const pay = (world: LoanWorld, subscriptionId: string, fields: Record<string, unknown>, as = 'cashier', headers: Record<string, string> = {}) =>
  world.app.request('POST', '/api/v1/shares/payments/', { headers: { ...world.users[as]!.headers, ...headers }, json: { subscription: subscriptionId, ...fields } });
