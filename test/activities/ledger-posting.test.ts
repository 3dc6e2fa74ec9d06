import test from 'ava';
import type { Knex } from 'knex';
import { setExerciceStatus } from '../../activities/enterprise/exercices.activity';
import { defaultRoleAccounts, defaultRules } from '../../activities/events/default-rules';
import { recordBusinessEvent, type BusinessEvent } from '../../activities/events/record-business-event';
import type { ActivityContext, Actor } from '../../activities/context';
import { linesForEvent } from '../../domain/events/journal';
import { eventKinds, type RoleAccounts } from '../../domain/events/rules';
import { formatAmount, Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { activitySetting } from '../helpers/activity-setting';
import { createTestDatabase } from '../helpers/database';
import { fileTeardown } from '../helpers/teardown';

/**
 * The posting is one database function (coopbank_record_event, coopbank_post_entry): these tests hold it to the
 * rules the activities used to apply themselves, and prove the database refuses what it must whoever writes.
 */
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

const record = (
  event: Partial<BusinessEvent> & { enterpriseId: string; idempotencyKey: string },
  alongside?: (trx: Knex.Transaction) => Knex.QueryBuilder,
) =>
  inTransaction(knex, (trx) =>
    recordBusinessEvent(
      trx,
      now,
      { branchId: null, kind: 'deposit', amount: new Money('150000'), payload: {}, actorId: actor.userId, ...event },
      alongside?.(trx),
    ),
  );

const codeOf = async (promise: Promise<unknown>) =>
  (
    (await promise.then(
      () => undefined,
      (error: unknown) => error,
    )) as { code?: string } | undefined
  )?.code;

async function linesOf(entryId: string) {
  return knex('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('l.entry_id', entryId)
    .orderBy('l.id')
    .select('c.code as account', 'l.debit', 'l.credit');
}

test('every default rule posts the lines linesForEvent gives, product accounts in place of the defaults', async (t) => {
  const enterpriseId = await newEnterprise('P1');
  const productAccounts: Partial<RoleAccounts> = { member_deposits: '373', cash: '5711' };
  const amount = new Money('12345');
  for (const kind of eventKinds) {
    const recorded = await record({ enterpriseId, kind, amount, productAccounts, idempotencyKey: `rule-${kind}` });
    const legs = defaultRules.find((rule) => rule.kind === kind)!.legs;
    const expected = linesForEvent(legs, amount, defaultRoleAccounts, productAccounts).map((line) => ({
      account: line.account,
      debit: formatAmount(line.debit),
      credit: formatAmount(line.credit),
    }));
    t.deepEqual(await linesOf(recorded.entryId!), expected, kind);
  }
});

test('the database refuses an entry in a closed year or outside every year, whatever inserts it', async (t) => {
  const enterpriseId = await newEnterprise('P2');
  const [year] = await knex('exercices_comptables').where({ enterprise_id: enterpriseId }).pluck('id');
  const insert = (entryDate: string) =>
    knex('journal_entries').insert({ enterprise_id: enterpriseId, exercice_id: year, entry_date: entryDate });
  t.like(await insert('2031-01-01').catch((error: unknown) => error), {
    code: 'CB409',
    detail: 'no_exercice_for_date',
  });
  const other = await newEnterprise('P3');
  const [otherYear] = await knex('exercices_comptables').where({ enterprise_id: other }).pluck('id');
  t.like(
    await knex('journal_entries')
      .insert({ enterprise_id: enterpriseId, exercice_id: otherYear, entry_date: '2026-11-22' })
      .catch((error: unknown) => error),
    { code: 'CB409', detail: 'no_exercice_for_date' },
    "another enterprise's year",
  );
  await setExerciceStatus(context, actor, year, 'closed', '');
  t.like(await insert('2026-11-22').catch((error: unknown) => error), { code: 'CB409', detail: 'exercice_closed' });
  t.is((await knex('journal_entries').where({ enterprise_id: enterpriseId })).length, 0);
});

test('refusals keep their codes, and nothing of a refused event is kept', async (t) => {
  const enterpriseId = await newEnterprise('P4');
  t.is(
    await codeOf(record({ enterpriseId: '00000000-0000-4000-8000-000000000000', idempotencyKey: 'nobody' })),
    'not_found',
  );
  const unknown = await record({
    enterpriseId,
    productAccounts: { member_deposits: '99999' },
    idempotencyKey: 'unknown',
  }).catch((error: unknown) => error);
  t.like(
    unknown,
    { kind: 'unprocessable', code: 'account_unknown', message: "Account 99999 is not in the enterprise's chart." },
    'the AppError the activity threw itself',
  );
  const [chart] = await knex('company_chart_entries')
    .where({ enterprise_id: enterpriseId, code: '3711' })
    .pluck('chart_id');
  await knex('company_chart_entries').insert({
    chart_id: chart,
    enterprise_id: enterpriseId,
    code: '37111',
    label: 'Sub-account',
    class: 3,
    parent_code: '3711',
    is_system: false,
  });
  t.is(await codeOf(record({ enterpriseId, idempotencyKey: 'not-leaf' })), 'account_not_leaf');
  await knex('company_chart_entries').where({ enterprise_id: enterpriseId, code: '5710' }).update({ is_active: false });
  t.is(
    await codeOf(record({ enterpriseId, productAccounts: { member_deposits: '3712' }, idempotencyKey: 'inactive' })),
    'account_inactive',
  );
  await knex('enterprise_configurations')
    .where({ enterprise_id: enterpriseId })
    .update({ business_date: '2031-01-01' });
  t.is(
    await codeOf(record({ enterpriseId, kind: 'interest_accrual', idempotencyKey: 'no-year' })),
    'no_exercice_for_date',
  );
  t.is((await knex('business_event_logs').where({ enterprise_id: enterpriseId })).length, 0);
});

test(
  'a suspended enterprise records no money movement; book-keeping still posts, and a retry is still ' + 'answered',
  async (t) => {
    const enterpriseId = await newEnterprise('P5');
    const before = await record({ enterpriseId, idempotencyKey: 'before' });
    await knex('enterprises').where({ id: enterpriseId }).update({ status: 'suspended' });
    t.is(await codeOf(record({ enterpriseId, idempotencyKey: 'after' })), 'enterprise_suspended');
    t.deepEqual(await record({ enterpriseId, idempotencyKey: 'before' }), { ...before, replayed: true });
    t.not(
      (await record({ enterpriseId, kind: 'interest_accrual', amount: new Money('10'), idempotencyKey: 'accrual' }))
        .entryId,
      null,
    );
  },
);

test('an update sent alongside the event takes effect with a new event only', async (t) => {
  const enterpriseId = await newEnterprise('P6');
  const hour = (value: number) => (trx: Knex.Transaction) =>
    trx('enterprise_configurations').update({ provisioning_hour: value }).where({ enterprise_id: enterpriseId });
  const hourNow = async () =>
    (await knex('enterprise_configurations').where({ enterprise_id: enterpriseId }).first('provisioning_hour'))
      .provisioning_hour;
  const first = await record({ enterpriseId, idempotencyKey: 'with-update' }, hour(5));
  t.is(await hourNow(), 5);
  t.true((await record({ enterpriseId, idempotencyKey: 'with-update' }, hour(7))).replayed);
  t.is(await hourNow(), 5, 'a replay changes nothing');
  t.is(
    await codeOf(record({ enterpriseId, idempotencyKey: 'with-update', amount: new Money(1) }, hour(7))),
    'idempotency_key_reused',
  );
  t.is(await hourNow(), 5);
  t.not(first.entryId, null);
});
