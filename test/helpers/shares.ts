import { accountBalance, ledgerBalanced, type LoanWorld } from './loans';

/**
 * Shares through the API, for tests that need a holding as a setting: the share type created by direction,
 * subscriptions and payments by the head office's cashier. Each throws with the answer when refused.
 */
export async function createShareType(world: LoanWorld, fields: Record<string, unknown>): Promise<string> {
  const response = await world.app.request('POST', '/api/v1/shares/types/', {
    headers: world.users.direction!.headers,
    json: { enterprise: world.enterpriseId, ...fields },
  });
  if (response.status !== 201) throw new Error(response.text);
  return response.body.id as string;
}

export const subscribe = (
  world: LoanWorld,
  clientId: string,
  fields: Record<string, unknown>,
  as = 'cashier',
  headers: Record<string, string> = {},
) =>
  world.app.request('POST', '/api/v1/shares/subscriptions/', {
    headers: { ...world.users[as]!.headers, ...headers },
    json: { client: clientId, ...fields },
  });

export async function subscribeShares(
  world: LoanWorld,
  clientId: string,
  fields: Record<string, unknown>,
): Promise<{ id: string; number: string; unpaid_amount: string }> {
  const response = await subscribe(world, clientId, fields);
  if (response.status !== 201) throw new Error(response.text);
  return response.body;
}

export const pay = (
  world: LoanWorld,
  subscriptionId: string,
  fields: Record<string, unknown>,
  as = 'cashier',
  headers: Record<string, string> = {},
) =>
  world.app.request('POST', '/api/v1/shares/payments/', {
    headers: { ...world.users[as]!.headers, ...headers },
    json: { subscription: subscriptionId, ...fields },
  });

/**
 * The capital accounts and the register, over the whole history: paid capital (1000x, a credit), unpaid capital
 * (1001x, a credit), 4411 (what members owe on their subscriptions less the refunds owed to them), and the
 * register's paid and unpaid totals with the refunds owed. Tests compare the two sides.
 */
export async function capitalBooks(world: LoanWorld) {
  const { knex, enterpriseId } = world;
  // A date after everything: tests put the business date back and forth, the ledger keeps it all.
  const register = await world.app.request(
    'GET',
    `/api/v1/shares/register/?enterprise=${enterpriseId}&date=2999-12-31`,
    { headers: world.users.direction!.headers },
  );
  const owed = await knex('share_withdrawals')
    .where({ enterprise_id: enterpriseId, status: 'effective' })
    .first(knex.raw('COALESCE(SUM(cancelled_paid), 0)::text AS owed'));
  const balance = async (code: string) => BigInt(await accountBalance(knex, enterpriseId, code));
  return {
    // 4411: what members owe on their subscriptions; 4417: the capital owed to members whose withdrawal took effect.
    ledger: {
      paid: -(await balance('10000')),
      unpaid: -(await balance('10010')),
      members: await balance('4411'),
      refunds: -(await balance('4417')),
    },
    register: {
      paid: BigInt(register.body.totals.paid),
      unpaid: BigInt(register.body.totals.unpaid),
      members: BigInt(register.body.totals.unpaid),
      refunds: BigInt(owed.owed),
    },
    balanced: await ledgerBalanced(knex, enterpriseId),
  };
}
