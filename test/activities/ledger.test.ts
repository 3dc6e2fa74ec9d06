import test from 'ava';
import type { Knex } from 'knex';
import { setExerciceStatus } from '../../activities/enterprise/exercices.activity';
import { configureRule } from '../../activities/events/configure-rule.activity';
import { recordBusinessEvent, type BusinessEvent } from '../../activities/events/record-business-event';
import type { ActivityContext, Actor } from '../../activities/context';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { activitySetting } from '../helpers/activity-setting';
import { createTestDatabase } from '../helpers/database';
import { fileTeardown } from '../helpers/teardown';

const file = fileTeardown(test);
const now = new Date('2026-11-22T09:00:00Z');
let knex: Knex;
let context: ActivityContext;
let actor: Actor;

let newEnterprise: (code: string) => Promise<string>;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  ({ context, actor, newEnterprise } = await activitySetting(knex, () => now));
});

const record = (event: Partial<BusinessEvent> & { enterpriseId: string; idempotencyKey: string }) =>
  inTransaction(knex, (trx) =>
    recordBusinessEvent(trx, now, {
      branchId: null,
      kind: 'deposit',
      amount: new Money('150000'),
      payload: {},
      actorId: actor.userId,
      ...event,
    }),
  );

async function linesOf(entryId: string) {
  return knex('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('l.entry_id', entryId)
    .orderBy('l.id')
    .select('c.code', 'l.debit', 'l.credit');
}

/** After every ledger test: the enterprise's books balance. */
async function assertBooksBalance(t: import('ava').ExecutionContext, enterpriseId: string) {
  const totals = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where('e.enterprise_id', enterpriseId)
    .first(knex.raw('coalesce(sum(l.debit),0)::text AS debit'), knex.raw('coalesce(sum(l.credit),0)::text AS credit'));
  t.is(totals.debit, totals.credit, 'trial balance');
}

test('a new enterprise has its chart and the 39 default rules', async (t) => {
  const enterpriseId = await newEnterprise('L0');
  t.is((await knex('accounting_rule_configs').where({ enterprise_id: enterpriseId, version: 1 })).length, 39);
  t.true((await knex('company_chart_entries').where({ enterprise_id: enterpriseId })).length > 1300);
});

test("an event posts its rule's entry, dated with the business date; the same key twice posts once", async (t) => {
  const enterpriseId = await newEnterprise('L1');
  const first = await record({ enterpriseId, idempotencyKey: 'deposit-1' });
  t.false(first.replayed);
  t.is(first.businessDate, '2026-11-22');
  t.deepEqual(await linesOf(first.entryId!), [
    { code: '5710', debit: '150000', credit: '0' },
    { code: '3711', debit: '0', credit: '150000' },
  ]);
  const again = await record({ enterpriseId, idempotencyKey: 'deposit-1' });
  t.deepEqual(again, { ...first, replayed: true });
  t.is((await knex('journal_entries').where({ enterprise_id: enterpriseId })).length, 1);
  const other = await t.throwsAsync(record({ enterpriseId, idempotencyKey: 'deposit-1', amount: new Money('1') }));
  t.is((other as { code?: string }).code, 'idempotency_key_reused');
  await assertBooksBalance(t, enterpriseId);
});

test('concurrent writers: distinct keys all post, one key posts once', async (t) => {
  const enterpriseId = await newEnterprise('L2');
  const distinct = await Promise.all(
    Array.from({ length: 8 }, (_, index) => record({ enterpriseId, idempotencyKey: `k-${index}` })),
  );
  t.is(new Set(distinct.map((result) => result.entryId)).size, 8);
  const twins = await Promise.all(Array.from({ length: 6 }, () => record({ enterpriseId, idempotencyKey: 'same' })));
  t.is(new Set(twins.map((result) => result.entryId)).size, 1);
  t.is(twins.filter((result) => !result.replayed).length, 1);
  t.is((await knex('journal_entries').where({ enterprise_id: enterpriseId })).length, 9);
  await assertBooksBalance(t, enterpriseId);
});

test('a closed year refuses postings, and nothing of the event is kept', async (t) => {
  const enterpriseId = await newEnterprise('L3');
  const [year] = await knex('exercices_comptables').where({ enterprise_id: enterpriseId }).pluck('id');
  await setExerciceStatus(context, actor, year, 'closed', '');
  const refused = await t.throwsAsync(record({ enterpriseId, idempotencyKey: 'late' }));
  t.is((refused as { code?: string }).code, 'exercice_closed');
  t.is((await knex('business_event_logs').where({ enterprise_id: enterpriseId })).length, 0);
  await assertBooksBalance(t, enterpriseId);
});

test('the database refuses an unbalanced entry at commit, and any change to a posted line', async (t) => {
  const enterpriseId = await newEnterprise('L4');
  const [year] = await knex('exercices_comptables').where({ enterprise_id: enterpriseId }).pluck('id');
  const [cash, deposits] = await Promise.all(
    ['5710', '3711'].map(
      async (code) => (await knex('company_chart_entries').where({ enterprise_id: enterpriseId, code }).first('id')).id,
    ),
  );
  const unbalanced = knex.transaction(async (trx) => {
    const [entry] = await trx('journal_entries')
      .insert({ enterprise_id: enterpriseId, exercice_id: year, entry_date: '2026-11-22', journal_code: 'OD' })
      .returning('id');
    const line = { enterprise_id: enterpriseId, entry_id: entry.id };
    await trx('journal_lines').insert([
      { ...line, chart_entry_id: cash, debit: 100 },
      { ...line, chart_entry_id: deposits, credit: 99 },
    ]);
  });
  await t.throwsAsync(unbalanced, { message: /not balanced/ });
  const empty = knex.transaction(async (trx) => {
    await trx('journal_entries').insert({
      enterprise_id: enterpriseId,
      exercice_id: year,
      entry_date: '2026-11-22',
      journal_code: 'OD',
    });
  });
  await t.throwsAsync(empty, { message: /has no lines/ });
  t.is((await knex('journal_entries').where({ enterprise_id: enterpriseId })).length, 0);

  const posted = await record({ enterpriseId, idempotencyKey: 'p' });
  await t.throwsAsync(knex('journal_lines').where({ entry_id: posted.entryId }).update({ debit: 1 }), {
    message: /append-only/,
  });
  await t.throwsAsync(knex('journal_entries').where({ id: posted.entryId }).delete(), { message: /append-only/ });
  await assertBooksBalance(t, enterpriseId);
});

test('a rule may only name postable accounts; a new version applies to later events', async (t) => {
  const enterpriseId = await newEnterprise('L5');
  const configure = (debit: string) =>
    configureRule(context, actor, enterpriseId, {
      kind: 'deposit',
      legs: [{ debit: { account: debit }, credit: { role: 'member_deposits' } }],
      active: true,
      reason: 'test',
    });
  t.is(((await t.throwsAsync(configure('99999'))) as { code?: string }).code, 'account_unknown');
  t.is(((await t.throwsAsync(configure('571'))) as { code?: string }).code, 'account_not_leaf');
  await knex('company_chart_entries').where({ enterprise_id: enterpriseId, code: '573' }).update({ is_active: false });
  t.is(((await t.throwsAsync(configure('573'))) as { code?: string }).code, 'account_inactive');

  const before = await record({ enterpriseId, idempotencyKey: 'v1' });
  const rule = await configure('5711');
  t.is(rule.version, 2);
  const after = await record({ enterpriseId, idempotencyKey: 'v2' });
  t.is((await linesOf(before.entryId!))[0]!.code, '5710', 'posted entries keep their version');
  t.is((await linesOf(after.entryId!))[0]!.code, '5711');
  const inactive = await configureRule(context, actor, enterpriseId, {
    kind: 'deposit',
    legs: rule.legs,
    active: false,
    reason: 'suspended',
  });
  t.false(inactive.is_active);
  t.is((await record({ enterpriseId, idempotencyKey: 'v3' })).entryId, null, 'logged, not posted');
  await assertBooksBalance(t, enterpriseId);
});
