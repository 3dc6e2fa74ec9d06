import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { postJournalEntry } from '../../activities/events/post-entry';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { ledgerBalanced } from '../helpers/loans';
import {
  closeYear,
  openNextYear,
  smallCooperative,
  trialBalanceOf,
  type SmallCooperative,
} from '../helpers/small-cooperative';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

const entriesOf = async (enterpriseId: string) =>
  Number((await knex('journal_entries').where({ enterprise_id: enterpriseId }).count<{ count: string }[]>())[0]!.count);

/** The lines of an allocation's entries: branch → account → debit minus credit. */
async function linesOf(allocationId: string): Promise<Record<string, Record<string, string>>> {
  const lines = await knex('result_allocation_entries as x')
    .join('journal_entries as e', 'e.id', 'x.entry_id')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('x.allocation_id', allocationId)
    .select('e.branch_id', 'e.entry_date', 'c.code', knex.raw('(l.debit - l.credit)::text AS amount'));
  const byBranch: Record<string, Record<string, string>> = {};
  for (const line of lines)
    byBranch[`${line.branch_id} ${line.entry_date}`] = {
      ...byBranch[`${line.branch_id} ${line.entry_date}`],
      [line.code]: line.amount,
    };
  return byBranch;
}

type Allocate = (json: Record<string, unknown>, key?: string) => Promise<TestResponse>;

interface RefusalSetting {
  allocate: Allocate;
  decision: Record<string, string>;
  floor: Money;
  remainder: Money;
  policy: (json: object) => Promise<TestResponse>;
}

/** The allocation policy changes under four eyes (docs/domain.md §11): another administrator approves each change. */
const changePolicy = async (world: SmallCooperative['world'], json: object) =>
  approveRequest(
    knex,
    await app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/result-allocation-policy/`, {
      headers: world.users.direction!.headers,
      json,
    }),
    await secondAdmin(knex, world),
  );

/** Each refusal a 4xx naming its field (the optional reserves' cap lowered to 5 %, then set to 10 %). */
async function refusals(t: ExecutionContext, { allocate, decision, floor, remainder, policy }: RefusalSetting) {
  t.like(await allocate({ ...decision }), {
    status: 422,
    body: { code: 'optional_reserves_above_cap', errors: [{ field: 'optional_reserves' }] },
  });
  await policy({ optional_reserves_rate_max: '0.1' });
  const short = {
    ...decision,
    general_reserve: floor.minus(1).toFixed(0),
    retained_earnings: remainder.plus(1).toFixed(0),
  };
  t.like(await allocate(short), {
    status: 422,
    body: { code: 'reserve_floor_not_met', errors: [{ field: 'general_reserve' }] },
  });
  t.like(await allocate({ ...decision, retained_earnings: remainder.plus(1).toFixed(0) }), {
    status: 422,
    body: { code: 'allocation_not_equal_to_result', errors: [{ field: 'retained_earnings' }] },
  });
  t.like(await allocate({ ...decision, share_interest: '47500001' }), {
    status: 422,
    body: { errors: [{ field: 'share_interest' }, { field: 'retained_earnings' }] },
  });
  t.like(await allocate({ ...decision, assembly_date: '2026-12-31' }), {
    status: 400,
    body: { errors: [{ field: 'assembly_date' }] },
  });
  t.like(
    await allocate({ ...decision, assembly_date: '2027-02-01' }),
    { status: 400, body: { errors: [{ field: 'assembly_date' }] } },
    'after the business date',
  );
  t.like(await allocate({ ...decision, ristournes: '-3000' }), {
    status: 400,
    body: { errors: [{ field: 'ristournes' }] },
  });
}

/** Cancelled (administrators): the entry reversed, the result back in 131; then the year may be reopened. */
async function cancelThenReopen(
  t: ExecutionContext,
  coop: SmallCooperative,
  done: { allocationId: string; entriesBefore: number; surplus: Money },
) {
  const { allocationId, entriesBefore, surplus } = done;
  const { world } = coop;
  const direction = world.users.direction!.headers;
  const cancelPath = `/api/v1/enterprise/result-allocations/${allocationId}/cancel/`;
  t.is((await app.request('POST', cancelPath, { headers: direction, json: { reason: 'wrong minutes' } })).status, 403);
  const cancelled = await app.request('POST', cancelPath, {
    headers: world.users.root!.headers,
    json: { reason: 'wrong minutes' },
  });
  t.like(cancelled.body, { status: 'cancelled', cancel_reason: 'wrong minutes', cancelled_by: world.users.root!.id });
  t.is(
    (await app.request('POST', cancelPath, { headers: world.users.root!.headers, json: { reason: 'wrong minutes' } }))
      .body.code,
    'result_allocation_cancelled',
  );
  t.is(await entriesOf(world.enterpriseId), entriesBefore + 2, 'one reversal');
  const afterCancel = await trialBalanceOf(coop, '2027-01-31');
  t.is(afterCancel['131'], surplus.negated().toFixed(0));
  t.is(afterCancel['111'], undefined);
  t.like(await knex('audit_events').where({ action: 'result_allocation.cancel', entity_id: allocationId }).first(), {
    actor_id: world.users.root!.id,
    details: { reason: 'wrong minutes' },
  });
  // Under four eyes: asked by one administrator, approved by another of the enterprise.
  await approveRequest(
    knex,
    await app.request('POST', `/api/v1/enterprise/exercices/${coop.year2026}/reopen/`, {
      headers: world.users.root!.headers,
      json: { reason: 'late invoices' },
    }),
    await secondAdmin(knex, world),
  );
  t.like(
    await app.request('GET', `/api/v1/enterprise/exercices/${coop.year2026}/`, { headers: world.users.root!.headers }),
    { status: 200, body: { status: 'open' } },
  );
  t.true(await ledgerBalanced(knex, world.enterpriseId));
}

/**
 * The test's own computation: 20 % of the surplus rounded up to each compulsory reserve (the reserves are empty, far
 * below the capital of 1 000 000 000), 10 % rounded down to optional reserves, 5 000 of interest on shares, 3 000 of
 * ristournes, the rest carried forward.
 */
function assemblyDecision(surplus: Money) {
  const floor = surplus.times('0.2').toDecimalPlaces(0, Money.ROUND_CEIL);
  const optional = surplus.times('0.1').toDecimalPlaces(0, Money.ROUND_FLOOR);
  const remainder = surplus.minus(floor.times(2)).minus(optional).minus(5_000).minus(3_000);
  const decision = {
    general_reserve: floor.toFixed(0),
    training_reserve: floor.toFixed(0),
    optional_reserves: optional.toFixed(0),
    share_interest: '5000',
    ristournes: '3000',
    retained_earnings: remainder.toFixed(0),
  };
  return { floor, optional, remainder, decision };
}

/** The policy: the defaults, then a tighter cap on optional reserves of this enterprise. */
async function assertPolicyTightened(t: ExecutionContext, world: SmallCooperative['world']) {
  const direction = world.users.direction!.headers;
  const policyPath = `/api/v1/enterprise/enterprises/${world.enterpriseId}/result-allocation-policy/`;
  t.like((await app.request('GET', policyPath, { headers: direction })).body, {
    general_reserve_rate_min: '0.2',
    training_reserve_rate_min: '0.2',
    optional_reserves_rate_max: '0.2',
    share_interest_rate_max: '0.0475',
    updated_at: null,
  });
  t.is(
    (
      await app.request('PATCH', policyPath, {
        headers: world.users.cashier!.headers,
        json: { optional_reserves_rate_max: '0.05' },
      })
    ).status,
    403,
  );
  t.like(
    await changePolicy(world, { optional_reserves_rate_max: '0.05' }).then(() =>
      app.request('GET', policyPath, { headers: direction }),
    ),
    { body: { optional_reserves_rate_max: '0.05', general_reserve_rate_min: '0.2' } },
  );
}

/** The allocation's entry in its journal at the head office, the trial balance of January 2027 and the audit. */
async function assertProfitAllocated(
  t: ExecutionContext,
  coop: SmallCooperative,
  allocationId: string,
  { surplus, floor, optional, remainder }: { surplus: Money; floor: Money; optional: Money; remainder: Money },
) {
  const { world } = coop;
  t.like(
    await knex('result_allocation_entries as x')
      .join('journal_entry_numbers as n', 'n.entry_id', 'x.entry_id')
      .where('x.allocation_id', allocationId)
      .first('n.journal_code', 'n.number'),
    { journal_code: 'AFF', number: 1 },
    'the allocation journal of 2027',
  );
  t.deepEqual(await linesOf(allocationId), {
    [`${world.headOffice} 2027-01-05`]: {
      131: surplus.toFixed(0),
      111: floor.negated().toFixed(0),
      112: floor.negated().toFixed(0),
      114: optional.negated().toFixed(0),
      44300: '-5000',
      44400: '-3000',
      121: remainder.negated().toFixed(0),
    },
  });
  const january = await trialBalanceOf(coop, '2027-01-31');
  t.is(january['131'], undefined, '131 is empty once allocated');
  t.like(january, {
    111: floor.negated().toFixed(0),
    112: floor.negated().toFixed(0),
    114: optional.negated().toFixed(0),
    121: remainder.negated().toFixed(0),
    44300: '-5000',
    44400: '-3000',
  });
  t.true(await ledgerBalanced(knex, world.enterpriseId));
  t.like(await knex('audit_events').where({ action: 'result_allocation.create', entity_id: allocationId }).first(), {
    actor_id: world.users.direction!.id,
    details: { exercice: '2026', assembly_reference: 'PV-AG-2027-01' },
  });
}

/** The allocation in the year's list for the direction, and shown to a cashier. */
async function assertAllocationListed(
  t: ExecutionContext,
  coop: SmallCooperative,
  allocation: { id: string; entries: unknown },
) {
  const { world } = coop;
  const listed = await app.request(
    'GET',
    `/api/v1/enterprise/enterprises/${world.enterpriseId}/result-allocations/?exercice=${coop.year2026}`,
    { headers: world.users.direction!.headers },
  );
  t.like(listed.body, { count: 1, results: [{ id: allocation.id, entries: allocation.entries }] });
  t.like(
    (
      await app.request('GET', `/api/v1/enterprise/result-allocations/${allocation.id}/`, {
        headers: world.users.cashier!.headers,
      })
    ).body,
    { id: allocation.id },
  );
}

test(
  "the general assembly allocates the closed year's profit: floors, " +
    'caps, one entry, idempotent; no reopening until it is cancelled',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'RA1');
    const { world, expected } = coop;
    const direction = world.users.direction!.headers;
    await openNextYear(coop);
    const allocate = (json: Record<string, unknown>, key?: string) =>
      app.request('POST', '/api/v1/enterprise/result-allocations/', {
        headers: key === undefined ? direction : { ...direction, 'Idempotency-Key': key },
        json: { exercice: coop.year2026, assembly_date: '2027-01-05', assembly_reference: 'PV-AG-2027-01', ...json },
      });

    const surplus = expected.result;
    const { floor, optional, remainder, decision } = assemblyDecision(surplus);
    t.true(remainder.isPositive());

    const notClosed = await allocate(decision);
    t.like(notClosed, { status: 409, body: { code: 'exercice_not_closed', errors: [{ field: 'exercice' }] } });
    await withWorker(
      knex,
      async () =>
        t.like((await closeYear(coop)).body, {
          status: 'closed',
          closing: { result: surplus.toFixed(0), result_account: '131' },
        }),
      taskQueue,
    );
    await assertPolicyTightened(t, world);

    const entriesBefore = await entriesOf(world.enterpriseId);
    await refusals(t, { allocate, decision, floor, remainder, policy: (json) => changePolicy(world, json) });
    t.is(await entriesOf(world.enterpriseId), entriesBefore, 'no refusal posted anything');

    const created = await allocate(decision, 'ag-2027-01');
    t.is(created.status, 201);
    t.like(created.body, {
      exercice: coop.year2026,
      exercice_code: '2026',
      status: 'posted',
      result: surplus.toFixed(0),
      result_account: '131',
      assembly_reference: 'PV-AG-2027-01',
      allocated_by: world.users.direction!.id,
    });
    t.is(created.headers.get('location'), `/api/v1/enterprise/result-allocations/${created.body.id}/`);
    const replay = await allocate(decision, 'ag-2027-01');
    t.like(replay, { status: 201, body: { id: created.body.id } });
    t.is(replay.headers.get('idempotent-replayed'), 'true');
    t.like(await allocate({ ...decision, assembly_reference: 'PV-other' }, 'ag-2027-01'), {
      status: 409,
      body: { code: 'idempotency_key_reused' },
    });
    t.is(await entriesOf(world.enterpriseId), entriesBefore + 1, 'one entry: the result sits at the head office only');
    await assertProfitAllocated(t, coop, created.body.id, { surplus, floor, optional, remainder });

    t.like(await allocate(decision, 'another-key'), {
      status: 409,
      body: { code: 'result_already_allocated', errors: [{ field: 'exercice' }] },
    });
    const reopen = await app.request('POST', `/api/v1/enterprise/exercices/${coop.year2026}/reopen/`, {
      headers: world.users.root!.headers,
      json: { reason: 'late invoices' },
    });
    t.like(reopen, { status: 409, body: { code: 'exercice_result_allocated' } });
    t.is(await entriesOf(world.enterpriseId), entriesBefore + 1);

    await assertAllocationListed(t, coop, created.body);

    await cancelThenReopen(t, coop, { allocationId: created.body.id, entriesBefore, surplus });
  },
);

test(
  'a loss is charged to the report à nouveau débiteur; ' +
    'nothing distributed, no reserve charged beyond what it holds',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'RA2');
    const { world, expected } = coop;
    const direction = world.users.direction!.headers;
    // Rent of 100 000 more than the year earned: a loss of 100 000.
    const rent = expected.result.plus(100_000);
    await inTransaction(knex, (trx) =>
      postJournalEntry(trx, {
        enterpriseId: world.enterpriseId,
        branchId: world.headOffice,
        entryDate: '2026-09-30',
        description: 'rent',
        lines: [
          { account: '6511', debit: rent, credit: new Money(0) },
          { account: '5710', debit: new Money(0), credit: rent },
        ],
        createdBy: world.rootId,
      }),
    );
    await openNextYear(coop);
    await withWorker(
      knex,
      async () =>
        t.like((await closeYear(coop)).body, {
          closing: { status: 'closed', result: '-100000', result_account: '132' },
        }),
      taskQueue,
    );
    const allocate = (json: Record<string, unknown>) =>
      app.request('POST', `/api/v1/enterprise/enterprises/${world.enterpriseId}/result-allocations/`, {
        headers: direction,
        json: { exercice: coop.year2026, assembly_date: '2027-01-05', assembly_reference: 'PV-7', ...json },
      });

    t.like(await allocate({ ristournes: '1000', retained_earnings: '99000' }), {
      status: 422,
      body: { code: 'nothing_to_distribute', errors: [{ field: 'ristournes' }] },
    });
    t.like(await allocate({ general_reserve: '1', retained_earnings: '99999' }), {
      status: 422,
      body: { code: 'reserve_insufficient', errors: [{ field: 'general_reserve' }] },
    });
    const created = await allocate({ retained_earnings: '100000' });
    t.like(created, { status: 201, body: { result: '-100000', result_account: '132', amounts: { 122: '100000' } } });
    t.deepEqual(await linesOf(created.body.id), {
      [`${world.headOffice} 2027-01-05`]: { 132: '-100000', 122: '100000' },
    });
    const january = await trialBalanceOf(coop, '2027-01-31');
    t.is(january['132'], undefined);
    t.is(january['122'], '100000');
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);
