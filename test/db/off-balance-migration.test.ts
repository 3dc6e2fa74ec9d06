import test from 'ava';
import { migrateToLatest } from '../../db/knex';
import { down, up } from '../../db/migrations/20261203200000_off_balance_chart';
import { startTestApp } from '../helpers/app';
import { createTestDatabase, keysIncludeEnterprise } from '../helpers/database';
import { createLoanWorld } from '../helpers/loans';

test('the off-balance migration gives class 9 to the charts of the enterprises that exist before it', async (t) => {
  const { knex } = await createTestDatabase(t, { migratedBefore: keysIncludeEnterprise });
  const app = await startTestApp(t, { knex });
  await knex.transaction((trx) => down(trx));
  const world = await createLoanWorld(app, knex, 'MIG');
  const count = async (onlyClass?: number) => {
    const query = knex('company_chart_entries').where({ enterprise_id: world.enterpriseId });
    if (onlyClass !== undefined) query.where({ class: onlyClass });
    return Number((await query.count<{ count: string }[]>('* as count'))[0]!.count);
  };
  t.is(await count(9), 0, 'created while the plan had classes 1 to 8');
  const before = await count();

  await knex.transaction((trx) => up(trx));
  const offBalance = await knex('company_chart_entries')
    .where({ enterprise_id: world.enterpriseId, class: 9 })
    .orderBy('code')
    .select('code', 'parent_code', 'is_system', 'record_id');
  t.is(offBalance.length, 137);
  t.is(await count(), before + 137);
  t.deepEqual(
    offBalance.find((row) => row.code === '9922'),
    {
      code: '9922',
      parent_code: '992',
      is_system: true,
      record_id: offBalance.find((row) => row.code === '9922')!.record_id,
    },
  );
  t.true(offBalance.every((row) => row.is_system && row.record_id !== null));
  const plan = await knex('account_records').where({ class: 9 }).pluck('code');
  t.deepEqual(
    [...plan].sort(),
    offBalance.map((row) => row.code as string),
    "the chart holds the plan's class 9, code for code",
  );
  t.true((await migrateToLatest(knex)).includes(`${keysIncludeEnterprise}.ts`), 'the keys widened over these rows');
});
