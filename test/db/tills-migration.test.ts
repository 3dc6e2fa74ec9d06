import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { migrateToLatest } from '../../db/knex';
import { up } from '../../db/migrations/20261204010000_tills_for_existing_branches';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase, keysIncludeEnterprise } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount, type LoanWorld } from '../helpers/loans';

test(
  'the enterprises that exist before tills get a vault per branch and a till per cashier of a branch, under ' +
    'till control',
  async (t) => {
    const { knex } = await createTestDatabase(t, { migratedBefore: keysIncludeEnterprise });
    const app = await startTestApp(t, { knex });
    const world = await createLoanWorld(app, knex, 'MTL');
    const account = await openSavingsAccount(world, await memberOf(world));
    // As before the tills: no vault, no till, no 5712.
    await knex('tills').where({ enterprise_id: world.enterpriseId }).delete();

    await knex.transaction((trx) => up(trx));
    await assertTillsMade(t, knex, world);

    await knex.transaction((trx) => up(trx));
    t.is(
      await knex('tills')
        .where({ enterprise_id: world.enterpriseId })
        .count({ n: '*' })
        .then((rows) => Number(rows[0]!.n)),
      6,
      'run again, it adds nothing',
    );

    await assertUnderTillControl(t, app, world, account);
    t.true((await migrateToLatest(knex)).includes(`${keysIncludeEnterprise}.ts`), 'the keys widened over these rows');
  },
);

/** A vault per branch, a till per cashier of a branch on its own 5712 sub-account, under 571. */
async function assertTillsMade(t: ExecutionContext, knex: Knex, world: LoanWorld): Promise<void> {
  const tills = await knex('tills')
    .where({ enterprise_id: world.enterpriseId })
    .orderBy(['kind', 'account_code'])
    .select('kind', 'branch_id', 'account_code', 'cashier_id');
  const vaults = tills.filter((till) => till.kind === 'vault');
  t.deepEqual(
    vaults.map((vault) => [vault.branch_id, vault.account_code]).sort(),
    [
      [world.headOffice, '5710'],
      [world.otherBranch, '5710'],
    ].sort(),
  );
  // The world's cashiers of a branch: cashier, teller and cashier_and_head at the head office.
  // And other_cashier at the other branch.
  const cashierIds = ['cashier', 'teller', 'cashier_and_head', 'other_cashier']
    .map((name) => world.users[name]!.id)
    .sort();
  const counters = tills.filter((till) => till.kind === 'till');
  t.deepEqual(counters.map((till) => till.cashier_id).sort(), cashierIds, 'one till each');
  t.deepEqual(
    counters.map((till) => till.account_code),
    ['5712001', '5712002', '5712003', '5712004'],
  );
  t.is(counters.find((till) => till.cashier_id === world.users.other_cashier!.id)!.branch_id, world.otherBranch);
  t.deepEqual(
    await knex('company_chart_entries')
      .where({ enterprise_id: world.enterpriseId })
      .whereIn('code', ['5712', '5712004'])
      .orderBy('code')
      .pluck('parent_code'),
    ['571', '5712'],
  );
}

/** The head office's cashier deposits only within an open till session. */
async function assertUnderTillControl(
  t: ExecutionContext,
  app: TestApp,
  world: LoanWorld,
  account: string,
): Promise<void> {
  const refused = await app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, {
    headers: world.users.cashier!.headers,
    json: { amount: '1000' },
  });
  t.like(refused.body, { status: 409, code: 'till_session_required' }, 'the head office is under till control');
  t.is(
    (
      await app.request('POST', '/api/v1/cash/till-sessions/', {
        headers: world.users.cashier!.headers,
        json: { count: {} },
      })
    ).status,
    201,
  );
  t.is(
    (
      await app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, {
        headers: world.users.cashier!.headers,
        json: { amount: '1000' },
      })
    ).status,
    201,
  );
}
