import type { Knex } from 'knex';
import type { TestApp } from '../helpers/app';
import { approvedLoan, createLoanWorld, memberOf, openSavingsAccount, submitApplication } from '../helpers/loans';
import { subscribeShares } from '../helpers/shares';
import { bearer, createUser } from '../helpers/users';
import { send } from './http';
import type { Operation } from './schema';
import { idsForPathParam, type IdPools } from './values';

/** Who sends the malformed requests; the session is renewed when a request of the fuzz ends it (logout). */
export interface Caller {
  name: 'admin' | 'cashier';
  username: string;
  authorization: string;
}

export interface FuzzWorld {
  enterpriseId: string;
  callers: Caller[];
  pools: IdPools;
}

let signIns = 0;

/** A fresh session of `caller`, from an address of its own (sign-in throttling counts by address). */
export async function signIn(app: TestApp, caller: Caller): Promise<void> {
  signIns += 1;
  caller.authorization = (await bearer(app, caller.username, `10.77.${Math.floor(signIns / 250)}.${signIns % 250}`)).authorization!;
}

/**
 * A small world for the path parameters to point at: a cooperative ready to lend (test/helpers/loans.ts)
 * with a member's account, an application, a disbursed loan with a repayment, a share subscription with a
 * withdrawal in notice, a provisioning run, an event replay, a governance organ and a user with a grant; then
 * the ids of everything the lists of the document answer.
 */
export async function buildWorld(app: TestApp, knex: Knex, operations: readonly Operation[]): Promise<FuzzWorld> {
  const world = await createLoanWorld(app, knex, 'FZZ');
  const client = await memberOf(world);
  await openSavingsAccount(world, client);
  const applied = await submitApplication(world, await memberOf(world));
  if (applied.status !== 201) throw new Error(applied.text);
  const { cashier, direction, root } = { cashier: world.users.cashier!.headers, direction: world.users.direction!.headers, root: world.users.root!.headers };
  const loan = await approvedLoan(world, await memberOf(world));
  await post(app, `/api/v1/loans/loans/${loan}/disbursement/`, cashier, { channel: 'cash' });
  await post(app, '/api/v1/loans/repayments/', cashier, { loan, amount: '10000' });
  const subscription = await subscribeShares(world, client, { share_type: world.shareTypeId, shares: 2 });
  await post(app, '/api/v1/shares/withdrawals/', cashier, { subscription: subscription.id, shares: 1 });
  await post(app, '/api/v1/loans/provisions/runs/', direction, { enterprise: world.enterpriseId });
  await post(app, '/api/v1/events/replays/', root, { enterprise: world.enterpriseId, date_from: '2026-01-01', date_to: '2026-12-31', mode: 'dry_run' });
  await createOrgan(app, direction, world.enterpriseId);
  const victim = await createUser(knex, 'fuzz_victim', [{ role: 'cashier', enterpriseId: world.enterpriseId, branchId: world.otherBranch }]);
  const grant = await knex('role_grants').where({ user_id: victim }).first('id');
  const callers: Caller[] = [
    { name: 'admin', username: 'fuzz_admin', authorization: '' },
    { name: 'cashier', username: 'fuzz_cashier', authorization: '' },
  ];
  const callerIds = [
    await createUser(knex, 'fuzz_admin', [{ role: 'admin', enterpriseId: null, branchId: null }]),
    await createUser(knex, 'fuzz_cashier', [{ role: 'cashier', enterpriseId: world.enterpriseId, branchId: world.headOffice }]),
  ];
  for (const caller of callers) await signIn(app, caller);
  const pools = await collectIds(app, operations, callers[0]!.authorization, new Set(callerIds));
  pools.byPath.set('/api/v1/auth/users/{id}/roles/', [grant.id as string]);
  pools.known.add(grant.id as string);
  return { enterpriseId: world.enterpriseId, callers, pools };
}

/** A setting made through the API: refused is a broken world, not a finding. */
async function post(app: TestApp, path: string, headers: Record<string, string>, json: unknown): Promise<{ id: string }> {
  const response = await app.request('POST', path, { headers, json });
  if (response.status < 200 || response.status > 299) throw new Error(`POST ${path}: ${response.status} ${response.text}`);
  return response.body;
}

async function createOrgan(app: TestApp, headers: Record<string, string>, enterpriseId: string): Promise<void> {
  const organ = await post(app, '/api/v1/enterprise/governance/', headers, { enterprise: enterpriseId, kind: 'board_of_directors', name: 'Conseil' });
  await post(app, `/api/v1/enterprise/governance/${organ.id}/members/`, headers, { full_name: 'Awa Member', office: 'chair', term_start: '2026-01-15' });
}

/**
 * Reads every list of the document as the administrator, first those without path parameters, then the
 * nested ones with ids found by the first: the ids of real resources, by list. The callers' own accounts are
 * left out, so that no fuzzed request deactivates the very user sending the requests.
 */
async function collectIds(app: TestApp, operations: readonly Operation[], authorization: string, protectedIds: Set<string>): Promise<IdPools> {
  const pools: IdPools = { byPath: new Map(), bySegment: new Map(), known: new Set() };
  const lists = operations.filter((op) => op.method === 'GET' && op.isList);
  for (const op of [...lists.filter((list) => list.pathParams.length === 0), ...lists.filter((list) => list.pathParams.length > 0)]) {
    const values = op.pathParams.map((parameter) => idsForPathParam(pools, op.path, parameter.name)[0]);
    if (values.some((value) => value === undefined)) continue;
    const path = op.pathParams.reduce((filled, parameter, index) => filled.replace(`{${parameter.name}}`, values[index]!), op.path);
    const answer = await send(app.baseUrl, { method: 'GET', target: `${path}?page_size=100`, headers: { authorization } });
    if (answer.status !== 200) continue;
    const ids = ((JSON.parse(answer.text) as { results: { id?: unknown }[] }).results)
      .map((row) => row.id)
      .filter((id): id is string => typeof id === 'string' && !protectedIds.has(id));
    if (ids.length === 0) continue;
    const segment = op.path.split('/').filter((part) => part !== '').at(-1)!;
    pools.byPath.set(op.path, ids);
    pools.bySegment.set(segment, [...(pools.bySegment.get(segment) ?? []), ...ids]);
    for (const id of ids) pools.known.add(id);
  }
  return pools;
}
