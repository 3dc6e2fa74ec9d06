import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { proposeDueRecurringEntries } from '../../activities/accounting/recurring-entries.activity';
import { approveRequest } from '../helpers/approvals';
import { startTestApp, type TestApp } from '../helpers/app';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue } from '../helpers/worker';

/**
 * Recurring manual entries (docs/domain.md §12.7) through the API: a model of the monthly rent proposes its draft
 * for June then July, dated the model's day with the model's lines, never twice for one period, never after the
 * business date; the draft is then validated by a second person as any manual entry. The figures are written here.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
const accountant: { id: string; headers: Record<string, string> } = { id: '', headers: {} };

const base = '/api/v1/accounting/recurring-entries/';
const rentLines = () => [
  { account: '65234', branch: world.headOffice, debit: '150000', label: 'Loyer du siège' },
  { account: '5603', branch: world.headOffice, credit: '150000' },
];
const rentModel = (fields: Record<string, unknown> = {}) =>
  app.request('POST', base, {
    headers: accountant.headers,
    json: {
      enterprise: world.enterpriseId,
      label: 'Loyer mensuel du siège',
      reference_pattern: 'LOYER-{period}',
      day_of_period: 5,
      first_period: '2026-06',
      lines: rentLines(),
      ...fields,
    },
  });
const propose = (id: string, period: string) =>
  app.request('POST', `${base}${id}/proposals/`, { headers: accountant.headers, json: { period } });
const setBusinessDate = (date: string) =>
  knex('enterprise_configurations').where({ enterprise_id: world.enterpriseId }).update({ business_date: date });
const draftsOf = (reference: string) =>
  knex('manual_entries').where({ enterprise_id: world.enterpriseId, reference }).select('id', 'entry_date', 'status');

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'REC');
  await setBusinessDate('2026-06-30');
  accountant.id = await createUser(knex, 'accountant_rec', [
    { role: 'accountant', enterpriseId: world.enterpriseId, branchId: null },
  ]);
  accountant.headers = await bearer(app, 'accountant_rec', '10.64.0.1');
});

test.serial(
  'a monthly rent model proposes its June then its July draft, dated its day, ' +
    'with its lines, once per period and never after the business date',
  async (t) => {
    const model = await rentModel();
    t.is(model.status, 201, model.text);
    t.like(model.body, { active: true, frequency: 'monthly', branch: world.headOffice, journal: 'OD', proposals: [] });

    const june = await propose(model.body.id, '2026-06');
    t.is(june.status, 201, june.text);
    t.like(june.body, {
      status: 'draft',
      journal: 'OD',
      entry_date: '2026-06-05',
      reference: 'LOYER-2026-06',
      label: 'Loyer mensuel du siège',
      created_by: accountant.id,
    });
    t.deepEqual(
      june.body.lines,
      [
        { account: '65234', branch: world.headOffice, debit: '150000', credit: '0', label: 'Loyer du siège' },
        { account: '5603', branch: world.headOffice, debit: '0', credit: '150000', label: null },
      ],
      'the lines of the model',
    );
    const again = await propose(model.body.id, '2026-06');
    t.is(again.body.id, june.body.id, 'asked again, the same draft');
    t.is(
      (await proposeDueRecurringEntries({ knex, clock: testClock }, { enterpriseId: world.enterpriseId })).proposed
        .length,
      0,
      'the daily pass finds June proposed',
    );
    t.is((await draftsOf('LOYER-2026-06')).length, 1, 'one draft for June');

    const early = await propose(model.body.id, '2026-07');
    t.like(
      early.body,
      { status: 422, code: 'recurring_entry_not_due', errors: [{ field: 'period' }] },
      'July waits for its day',
    );
    await setBusinessDate('2026-07-04');
    t.deepEqual(
      await proposeDueRecurringEntries({ knex, clock: testClock }, { enterpriseId: world.enterpriseId }),
      { proposed: [], refused: [] },
      'the 4th: not yet',
    );
    t.deepEqual(await draftsOf('LOYER-2026-07'), []);

    await setBusinessDate('2026-07-05');
    const due = await proposeDueRecurringEntries({ knex, clock: testClock }, { enterpriseId: world.enterpriseId });
    t.is(due.proposed.length, 1);
    t.deepEqual(
      await proposeDueRecurringEntries({ knex, clock: testClock }, { enterpriseId: world.enterpriseId }),
      { proposed: [], refused: [] },
      'a rerun proposes nothing twice',
    );
    const july = await draftsOf('LOYER-2026-07');
    t.deepEqual(
      july.map((row) => [row.id, row.entry_date, row.status]),
      [[due.proposed[0], '2026-07-05', 'draft']],
    );
    const detail = await app.request('GET', `${base}${model.body.id}/`, { headers: accountant.headers });
    t.deepEqual(detail.body.proposals, [
      { period: '2026-07', manual_entry: due.proposed[0] },
      { period: '2026-06', manual_entry: june.body.id },
    ]);
    await assertDraftPostedOnApproval(t, june.body.id);
  },
);

/** The draft is a manual entry like any other: a second person validates it. */
async function assertDraftPostedOnApproval(t: ExecutionContext, entryId: string) {
  const submitted = await app.request('POST', `/api/v1/accounting/manual-entries/${entryId}/submission/`, {
    headers: accountant.headers,
  });
  t.is(submitted.status, 202, submitted.text);
  await approveRequest(knex, submitted, { id: world.users.branch_head!.id, roles: ['branch_head'] });
  t.like(
    (await app.request('GET', `/api/v1/accounting/manual-entries/${entryId}/`, { headers: accountant.headers })).body,
    { status: 'posted' },
  );
}

/** A model's lines are refused as a manual entry's; its periods are checked; a cashier makes none; nothing saved. */
async function assertModelsRefused(t: ExecutionContext) {
  const deposits = await rentModel({
    lines: [rentLines()[0], { account: '3711', branch: world.headOffice, credit: '150000' }],
  });
  t.like(deposits.body, {
    status: 422,
    code: 'manual_entry_subledger_account',
    errors: [{ field: 'lines[1].account' }],
  });
  const unbalanced = await rentModel({
    lines: [rentLines()[0], { account: '5603', branch: world.headOffice, credit: '100000' }],
  });
  t.like(unbalanced.body, { status: 422, code: 'manual_entry_unbalanced' });
  const backwards = await rentModel({ last_period: '2026-05' });
  t.like(backwards.body, { status: 422, code: 'recurring_entry_periods', errors: [{ field: 'last_period' }] });
  const cashier = await app.request('POST', base, { headers: world.users.cashier!.headers, json: {} });
  t.is(cashier.status, 403);
  t.is(
    await knex('recurring_entries')
      .where({ enterprise_id: world.enterpriseId })
      .count('* as n')
      .first()
      .then((row) => Number(row!.n)),
    1,
    "nothing saved but the first test's model",
  );
}

test.serial(
  "a model's lines are refused as a manual entry's, naming the field; " +
    'a deactivated or quarterly model proposes only when due',
  async (t) => {
    await assertModelsRefused(t);

    const quarterly = await rentModel({
      reference_pattern: 'ASSUR-{period}',
      frequency: 'quarterly',
      day_of_period: 31,
      first_period: '2026-04',
    });
    t.is(quarterly.status, 201, quarterly.text);
    t.like(
      (await propose(quarterly.body.id, '2026-05')).body,
      { status: 422, code: 'recurring_entry_not_due' },
      "May is not a quarter's month from April",
    );
    t.like(
      (await propose(quarterly.body.id, '2026-04')).body,
      { status: 'draft', entry_date: '2026-04-30', reference: 'ASSUR-2026-04' },
      'the 31st in April is its 30th',
    );

    const edited = await app.request('PATCH', `${base}${quarterly.body.id}/`, {
      headers: accountant.headers,
      json: { lines: [rentLines()[0], { account: '3711', branch: world.headOffice, credit: '150000' }] },
    });
    t.like(edited.body, {
      status: 422,
      code: 'manual_entry_subledger_account',
      errors: [{ field: 'lines[1].account' }],
    });
    const renamed = await app.request('PATCH', `${base}${quarterly.body.id}/`, {
      headers: accountant.headers,
      json: { label: 'Assurance trimestrielle', last_period: '2026-12' },
    });
    t.like(renamed.body, {
      label: 'Assurance trimestrielle',
      last_period: '2026-12',
      frequency: 'quarterly',
      proposals: [{ period: '2026-04' }],
    });
    t.like(
      (await propose(quarterly.body.id, '2027-01')).body,
      { status: 422, code: 'recurring_entry_not_due' },
      'after its last period',
    );
    t.is((await app.request('DELETE', `${base}${quarterly.body.id}/`, { headers: accountant.headers })).status, 204);
    t.like((await propose(quarterly.body.id, '2026-07')).body, { status: 409, code: 'recurring_entry_inactive' });
    const audit = await knex('audit_events')
      .where({ entity_id: quarterly.body.id })
      .orderBy('occurred_at')
      .pluck('action');
    t.deepEqual(audit, [
      'recurring_entry.create',
      'recurring_entry.propose',
      'recurring_entry.update',
      'recurring_entry.deactivate',
    ]);

    const listed = await app.request('GET', `${base}?enterprise=${world.enterpriseId}&active=true`, {
      headers: accountant.headers,
    });
    t.deepEqual(
      listed.body.results.map((model: { reference_pattern: string }) => model.reference_pattern),
      ['LOYER-{period}'],
      'the deactivated model is not active',
    );
    t.is((await app.request('GET', base, { headers: world.users.cashier!.headers })).status, 403);
  },
);

test.serial(
  "the Schedule's draft is the system's: no author, so the model's author validates it once another person submits it",
  async (t) => {
    const model = await app.request('POST', base, {
      headers: world.users.branch_head!.headers,
      json: {
        enterprise: world.enterpriseId,
        label: 'Électricité',
        reference_pattern: 'ELEC-{period}',
        day_of_period: 1,
        first_period: '2026-07',
        lines: rentLines(),
      },
    });
    t.is(model.status, 201, model.text);
    const due = await proposeDueRecurringEntries({ knex, clock: testClock }, { enterpriseId: world.enterpriseId });
    t.deepEqual(due.proposed.length, 1, "July's electricity, due on the 1st");
    const draft = (
      await app.request('GET', `/api/v1/accounting/manual-entries/${due.proposed[0]!}/`, {
        headers: accountant.headers,
      })
    ).body;
    t.like(
      draft,
      { reference: 'ELEC-2026-07', status: 'draft', created_by: null },
      "not the model's author, who did nothing that day",
    );
    const created = await knex('audit_events')
      .where({ entity_id: draft.id, action: 'manual_entry.create' })
      .first('actor_id');
    t.is(created.actor_id, null, 'the audit trail names no person either');

    const submitted = await app.request('POST', `/api/v1/accounting/manual-entries/${draft.id as string}/submission/`, {
      headers: accountant.headers,
    });
    t.like(
      submitted.body,
      { status: 'pending', maker: accountant.id },
      'the person who submits is the maker the four eyes exclude',
    );
    await approveRequest(knex, submitted, { id: world.users.branch_head!.id, roles: ['branch_head'] });
    t.like(
      (
        await app.request('GET', `/api/v1/accounting/manual-entries/${draft.id as string}/`, {
          headers: accountant.headers,
        })
      ).body,
      {
        status: 'posted',
        created_by: null,
        approved_by: world.users.branch_head!.id,
      },
    );
  },
);
