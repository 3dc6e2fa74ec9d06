import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';

/**
 * Cash between the vault and the tills (issue 29, docs/domain.md §13.2): the giver requests, the cash waits on 459,
 * the receiver counts it in; never the maker; the maker alone cancels. Every expected figure is computed here.
 */

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let tills: { g1: string; g2: string };
/** The head office's vault before the first transfer: the world's capital and the members' initial deposits. */
let vault0: number;
/** A member's savings account of the head office. */
let account: string;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'TTR');
  // Two members' initial deposits go to the head office's vault, before any till.
  for (let member = 0; member < 2; member += 1) account = await openSavingsAccount(world, await memberOf(world));
  const create = (code: string, cashier: string) =>
    app.request('POST', '/api/v1/cash/tills/', {
      headers: as('branch_head'),
      json: {
        enterprise: world.enterpriseId,
        branch: world.headOffice,
        code,
        label: `Guichet ${code}`,
        cashier: world.users[cashier]!.id,
      },
    });
  tills = { g1: (await create('G1', 'cashier')).body.id, g2: (await create('G2', 'teller')).body.id };
});

const as = (user: string) => world.users[user]!.headers;
const request = (user: string, json: Record<string, unknown>) =>
  app.request('POST', '/api/v1/cash/till-transfers/', { headers: as(user), json });
const confirm = (user: string, id: string, count: Record<string, unknown>) =>
  app.request('POST', `/api/v1/cash/till-transfers/${id}/confirm/`, { headers: as(user), json: { count } });
const cancel = (user: string, id: string) =>
  app.request('POST', `/api/v1/cash/till-transfers/${id}/cancel/`, { headers: as(user), json: {} });
const list = async (user: string, filter: string) =>
  (
    await app.request('GET', `/api/v1/cash/till-transfers/?enterprise=${world.enterpriseId}${filter}`, {
      headers: as(user),
    })
  ).body;

/** Debits less credits of an account code in the head office's entries, as a number of francs (small figures). */
async function balance(code: string): Promise<number> {
  const row = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({ 'e.enterprise_id': world.enterpriseId, 'e.branch_id': world.headOffice, 'c.code': code })
    .first(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  return Number(row.balance);
}

const books = async () => ({
  vault: await balance('5710'),
  transit: await balance('459'),
  g1: await balance('5712001'),
});

/** Each refusal of an approvisionnement names its field or its reason. */
async function assertApprovisionnementRefused(t: ExecutionContext, approvisionnement: Record<string, unknown>) {
  t.like(
    (await request('cashier', approvisionnement)).body,
    { status: 403, code: 'till_transfer_side_refused' },
    "the vault's side is the branch head's",
  );
  t.like((await request('branch_head', { ...approvisionnement, amount: '12.5' })).body, {
    status: 400,
    errors: [{ field: 'amount' }],
  });
  t.like(
    (await request('branch_head', { ...approvisionnement, amount: 50000 })).body,
    { status: 400, errors: [{ field: 'amount' }] },
    'a JSON number is no amount',
  );
  t.like((await request('branch_head', { ...approvisionnement, kind: 'sideways' })).body, {
    status: 400,
    errors: [{ field: 'kind' }],
  });
  t.like((await request('branch_head', { ...approvisionnement, count: { note_10000: 4 } })).body, {
    status: 422,
    code: 'till_transfer_count_differs',
    errors: [{ field: 'count' }],
  });
  t.like((await request('branch_head', { ...approvisionnement, amount: String(vault0 + 1), count: undefined })).body, {
    status: 409,
    code: 'till_transfer_funds_short',
    errors: [{ field: 'amount' }],
  });
  t.like(
    (await request('branch_head', { ...approvisionnement, till: tills.g2 })).body,
    { status: 409, code: 'till_transfer_session_closed' },
    'the teller has no open session',
  );
  const vault = await knex('tills').where({ branch_id: world.headOffice, kind: 'vault' }).first('id');
  t.like((await request('branch_head', { ...approvisionnement, till: vault.id })).body, {
    status: 422,
    code: 'till_transfer_till_refused',
    errors: [{ field: 'till' }],
  });
  t.is((await request('other_head', approvisionnement)).status, 404, "another branch's head does not see the till");
}

test.serial(
  'an approvisionnement: requested by the branch head, ' +
    'on 459 until the cashier counts it in; refusals name their field and write nothing',
  async (t) => {
    t.is(
      (await app.request('POST', '/api/v1/cash/till-sessions/', { headers: as('cashier'), json: { count: {} } }))
        .status,
      201,
    );
    const start = await books();
    vault0 = start.vault;
    t.deepEqual(start, { vault: vault0, transit: 0, g1: 0 });
    const approvisionnement = { till: tills.g1, kind: 'to_till', amount: '50000', count: { note_10000: 5 } };

    await assertApprovisionnementRefused(t, approvisionnement);
    t.deepEqual(await books(), start, 'nothing posted by the refusals');
    t.deepEqual(await knex('till_transfers').where({ enterprise_id: world.enterpriseId }).pluck('id'), []);

    const requested = await request('branch_head', approvisionnement);
    t.is(requested.status, 201, requested.text);
    t.like(requested.body, {
      kind: 'to_till',
      status: 'pending',
      amount: '50000',
      account: '5712001',
      count: { note_10000: 5, note_5000: 0 },
      decided_by: null,
    });
    t.deepEqual(await books(), { vault: vault0 - 50000, transit: 50000, g1: 0 }, 'the cash left the vault for 459');

    const id = requested.body.id as string;
    t.like(
      (await confirm('branch_head', id, { note_10000: 5 })).body,
      { status: 403, code: 'till_transfer_own' },
      'nobody confirms their own transfer',
    );
    t.like(
      (await confirm('teller', id, { note_10000: 5 })).body,
      { status: 403, code: 'till_transfer_side_refused' },
      'another cashier is not the receiver',
    );
    t.like((await confirm('cashier', id, { note_5000: 9 })).body, {
      status: 422,
      code: 'till_transfer_count_differs',
      errors: [{ field: 'count' }],
    });
    t.like((await cancel('cashier', id)).body, { status: 403, code: 'till_transfer_not_maker' });
    t.deepEqual(await books(), { vault: vault0 - 50000, transit: 50000, g1: 0 });

    const confirmed = await confirm('cashier', id, { note_10000: 4, note_5000: 2 });
    t.is(confirmed.status, 200, confirmed.text);
    t.like(confirmed.body, {
      status: 'confirmed',
      decided_by: world.users.cashier!.id,
      received_count: { note_10000: 4, note_5000: 2 },
    });
    t.deepEqual(await books(), { vault: vault0 - 50000, transit: 0, g1: 50000 }, 'the cash entered the till from 459');
    t.like((await confirm('cashier', id, { note_10000: 5 })).body, { status: 409, code: 'till_transfer_not_pending' });
    t.like((await cancel('branch_head', id)).body, { status: 409, code: 'till_transfer_not_pending' });
    t.deepEqual(await books(), { vault: vault0 - 50000, transit: 0, g1: 50000 });
  },
);

test.serial(
  'a dégagement: requested by the cashier, cancelled by them (cash back), ' +
    'requested again and counted in by the branch head',
  async (t) => {
    const degagement = { till: tills.g1, kind: 'to_vault', amount: '20000' };
    t.like(
      (await request('branch_head', degagement)).body,
      { status: 403, code: 'till_transfer_side_refused' },
      "the till's side is its cashier's",
    );
    t.like((await request('cashier', { ...degagement, amount: '50001' })).body, {
      status: 409,
      code: 'till_transfer_funds_short',
    });

    const first = await request('cashier', degagement);
    t.is(first.status, 201, first.text);
    t.deepEqual(await books(), { vault: vault0 - 50000, transit: 20000, g1: 30000 });
    t.like((await cancel('branch_head', first.body.id)).body, { status: 403, code: 'till_transfer_not_maker' });
    t.like((await cancel('cashier', first.body.id)).body, {
      status: 'cancelled',
      decided_by: world.users.cashier!.id,
      received_count: null,
    });
    t.deepEqual(
      await books(),
      { vault: vault0 - 50000, transit: 0, g1: 50000 },
      'a cancelled transfer gives the cash back from 459',
    );

    const second = await request('cashier', { ...degagement, count: { note_10000: 2 } });
    t.like((await confirm('cashier', second.body.id, { note_10000: 2 })).body, {
      status: 403,
      code: 'till_transfer_own',
    });
    t.like((await confirm('other_head', second.body.id, { note_10000: 2 })).body, { status: 404 }, 'another branch');
    t.like((await confirm('branch_head', second.body.id, { note_10000: 2 })).body, {
      status: 'confirmed',
      decided_by: world.users.branch_head!.id,
    });
    t.deepEqual(await books(), { vault: vault0 - 30000, transit: 0, g1: 30000 });

    const ids = (page: { results: { id: string }[] }) => page.results.map((row) => row.id);
    t.deepEqual(
      ids(await list('branch_head', '')),
      [second.body.id, first.body.id, (await knex('till_transfers').where({ kind: 'to_till' }).first('id')).id],
      'the latest first',
    );
    t.deepEqual(ids(await list('direction', '&kind=to_vault&status=cancelled')), [first.body.id]);
    t.deepEqual(ids(await list('cashier', `&till=${tills.g2}`)), []);
    t.deepEqual(ids(await list('other_head', '')), [], 'another branch sees none');
    t.is(
      (
        await app.request('GET', `/api/v1/cash/till-transfers/${second.body.id as string}/`, {
          headers: as('other_head'),
        })
      ).status,
      404,
    );
    const actions = await knex('audit_events')
      .where({ enterprise_id: world.enterpriseId, entity_type: 'till_transfer' })
      .orderBy('id')
      .pluck('action');
    t.deepEqual(actions, [
      'till_transfer.request',
      'till_transfer.confirm',
      'till_transfer.request',
      'till_transfer.cancel',
      'till_transfer.request',
      'till_transfer.confirm',
    ]);
  },
);

test.serial(
  "a till above its cash limit: the deposit's answer and the till's detail say so; " +
    'a branch head who is also the cashier never confirms their own transfer',
  async (t) => {
    const till = await app.request('POST', '/api/v1/cash/tills/', {
      headers: as('branch_head'),
      json: {
        enterprise: world.enterpriseId,
        branch: world.headOffice,
        code: 'G3',
        label: 'Guichet 3',
        cash_limit: '10000',
        cashier: world.users.cashier_and_head!.id,
      },
    });
    t.like(till.body, { cash_limit: '10000', over_limit: false });
    t.is(
      (
        await app.request('POST', '/api/v1/cash/till-sessions/', {
          headers: as('cashier_and_head'),
          json: { count: {} },
        })
      ).status,
      201,
    );

    const deposit = (user: string, amount: string) =>
      app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, { headers: as(user), json: { amount } });
    t.like((await deposit('cashier_and_head', '9000')).body, { till_over_limit: false, till_cash_limit: '10000' });
    t.like(
      (await deposit('cashier_and_head', '6000')).body,
      { till_over_limit: true, till_cash_limit: '10000' },
      '15 000 in a till of 10 000',
    );
    t.false('till_over_limit' in (await deposit('cashier', '1000')).body, 'no warning for a till without a limit');
    const detail = async () =>
      (await app.request('GET', `/api/v1/cash/tills/${till.body.id as string}/`, { headers: as('branch_head') })).body;
    t.like(await detail(), { balance: '15000', over_limit: true });

    // The vault's side as branch head, the till's side as its cashier: one person, so never both sides of one transfer.
    const own = await request('cashier_and_head', { till: till.body.id, kind: 'to_till', amount: '1000' });
    t.like((await confirm('cashier_and_head', own.body.id, { note_1000: 1 })).body, {
      status: 403,
      code: 'till_transfer_own',
    });
    t.like((await cancel('cashier_and_head', own.body.id)).body, { status: 'cancelled' });
    const degagement = await request('cashier_and_head', { till: till.body.id, kind: 'to_vault', amount: '6000' });
    t.like((await confirm('branch_head', degagement.body.id, { note_5000: 1, note_1000: 1 })).body, {
      status: 'confirmed',
    });
    t.like(await detail(), { balance: '9000', over_limit: false }, 'handed to the vault, back under the limit');
  },
);
