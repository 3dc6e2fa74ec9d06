import type { LoanWorld } from './loans';

/**
 * Savings products and accounts of a LoanWorld through the API, for the tests of savings interest and term
 * deposits: each call fails the test setting with the answer's text when the API refuses it.
 */
async function ok(world: LoanWorld, method: string, path: string, json: unknown, as = 'cashier') {
  const response = await world.app.request(method, path, { headers: world.users[as]!.headers, json });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.text}`);
  return response.body;
}

/** A savings product of the world's enterprise (direction); the fields not given take the API's defaults. */
export async function savingsProductOf(world: LoanWorld, fields: Record<string, unknown>): Promise<string> {
  const body = await ok(
    world,
    'POST',
    '/api/v1/members/products/',
    { enterprise: world.enterpriseId, name: `Product ${String(fields.code)}`, kind: 'demand_deposit', ...fields },
    'direction',
  );
  return body.id as string;
}

/** An account of `clientId` under `productId` with its initial deposit, opened on the business date. */
export async function accountOf(
  world: LoanWorld,
  clientId: string,
  productId: string,
  initialDeposit: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const body = await ok(world, 'POST', '/api/v1/members/accounts/', {
    client: clientId,
    product: productId,
    initial_deposit: initialDeposit,
    ...extra,
  });
  return body.id as string;
}

export async function depositTo(world: LoanWorld, accountId: string, amount: string): Promise<void> {
  await ok(world, 'POST', `/api/v1/members/accounts/${accountId}/deposits/`, { amount });
}

export async function withdrawFrom(world: LoanWorld, accountId: string, amount: string): Promise<void> {
  await ok(world, 'POST', `/api/v1/members/accounts/${accountId}/withdrawals/`, { amount });
}
