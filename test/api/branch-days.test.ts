import test from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest } from '../helpers/approvals';
import { createTestDatabase } from '../helpers/database';
import { asApprover, createLoanWorld, putBusinessDate, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue } from '../helpers/worker';

/**
 * A branch's day (issue 29, docs/domain.md §13.3): its head closes it once, at the business date; a pending four-eyes
 * request that would post holds it (409 listing the request); a second close answers the first; branch isolation
 * holds for the close, the list and the detail.
 */

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
const day = '2026-03-10';

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue: newTaskQueue() });
  world = await createLoanWorld(app, knex, 'BDY');
  await putBusinessDate(world, day);
});

const headers = (user: string) => world.users[user]!.headers;
const close = (user: string, json: Record<string, unknown>) =>
  app.request('POST', '/api/v1/cash/branch-days/', {
    headers: headers(user),
    json: { enterprise: world.enterpriseId, ...json },
  });
const audits = async (id: string) =>
  Number(
    (await knex('audit_events')
      .where({ entity_type: 'branch_day', entity_id: id, action: 'branch_day.close' })
      .count('* as n')
      .first())!.n,
  );

test.serial(
  'the branch head closes the day of the business date once; a second close answers the first and changes nothing',
  async (t) => {
    const first = await close('branch_head', { branch: world.headOffice, date: day });
    t.is(first.status, 201, first.text);
    t.like(first.body, {
      enterprise: world.enterpriseId,
      branch: world.headOffice,
      date: day,
      closed_by: world.users.branch_head!.id,
    });
    t.is(first.headers.get('location'), `/api/v1/cash/branch-days/${first.body.id as string}/`);
    const again = await close('direction', { branch: world.headOffice, date: day });
    t.is(again.status, 201, again.text);
    t.deepEqual(again.body, first.body, 'the first close, as it was: closed by the branch head, at its time');
    t.is(
      await knex('branch_days')
        .where({ branch_id: world.headOffice })
        .count('* as n')
        .first()
        .then((row) => Number(row!.n)),
      1,
    );
    t.is(await audits(first.body.id as string), 1, 'one close audited');
    const detail = await app.request('GET', `/api/v1/cash/branch-days/${first.body.id as string}/`, {
      headers: headers('branch_head'),
    });
    t.is(detail.status, 200, detail.text);
    t.deepEqual(detail.body, first.body);
  },
);

test.serial(
  'a date other than the business date is refused naming date; ' +
    "a cashier may not close, another branch's head does not see the branch",
  async (t) => {
    const other = await close('other_head', { branch: world.otherBranch, date: '2026-03-09' });
    t.is(other.status, 422, other.text);
    t.is(other.body.code, 'branch_day_not_business_date');
    t.deepEqual(
      other.body.errors.map((error: { field: string }) => error.field),
      ['date'],
    );
    t.is((await close('cashier', { branch: world.headOffice, date: day })).status, 403);
    t.is((await close('other_cashier', { branch: world.otherBranch, date: day })).status, 403);
    t.is(
      (await close('other_head', { branch: world.headOffice, date: '2026-03-11' })).status,
      404,
      'the head of B2 does not see the head office',
    );
    const malformed = await close('other_head', { branch: world.otherBranch, date: '2026-02-30' });
    t.is(malformed.status, 400);
    t.true(malformed.body.errors.some((error: { field: string }) => error.field === 'date'));
    t.is(
      await knex('branch_days')
        .where({ branch_id: world.otherBranch })
        .count('* as n')
        .first()
        .then((row) => Number(row!.n)),
      0,
      'nothing written',
    );
  },
);

test.serial(
  'a four-eyes request of the branch that would post holds its day, listed by reason and id, until it is decided',
  async (t) => {
    const transfer = {
      enterprise: world.enterpriseId,
      branch: world.otherBranch,
      transfer_date: day,
      amount: '20000',
      reference: 'BDY-1',
    };
    // Till to bank: treasury transfers are always under four eyes, so the request waits in the second branch.
    const bank = await app.request('POST', '/api/v1/accounting/bank-accounts/', {
      headers: headers('direction'),
      json: { enterprise: world.enterpriseId, bank_name: 'BDY Bank', account_number: 'BDY-001' },
    });
    t.is(bank.status, 201, bank.text);
    const requested = await app.request('POST', '/api/v1/accounting/treasury-transfers/', {
      headers: headers('direction'),
      json: { ...transfer, to_bank_account: bank.body.id },
    });
    t.is(requested.status, 202, requested.text);
    const blocked = await close('other_head', { branch: world.otherBranch, date: day });
    t.is(blocked.status, 409, blocked.text);
    t.is(blocked.body.code, 'branch_day_blocked');
    t.is(blocked.body.errors.length, 1);
    t.is(blocked.body.errors[0].field, 'blockers.approvals_pending');
    t.true(
      (blocked.body.errors[0].message as string).includes(requested.body.id as string),
      'the request holding the day is named',
    );
    t.is(
      await knex('branch_days')
        .where({ branch_id: world.otherBranch })
        .count('* as n')
        .first()
        .then((row) => Number(row!.n)),
      0,
    );

    t.is((await approveRequest(knex, requested, asApprover(world))).status, 200);
    const closed = await close('other_head', { branch: world.otherBranch, date: day });
    t.is(closed.status, 201, closed.text);
    t.is(closed.body.branch, world.otherBranch);
  },
);

test.serial(
  "each branch head lists and reads only their branch's days; direction sees both, and filters by branch and date",
  async (t) => {
    const list = async (user: string, query = '') =>
      app.request('GET', `/api/v1/cash/branch-days/?enterprise=${world.enterpriseId}${query}`, {
        headers: headers(user),
      });
    t.deepEqual(
      (await list('other_head')).body.results.map((row: { branch: string }) => row.branch),
      [world.otherBranch],
    );
    t.deepEqual(
      (await list('branch_head')).body.results.map((row: { branch: string }) => row.branch),
      [world.headOffice],
    );
    t.is((await list('direction')).body.count, 2);
    t.is((await list('direction', `&branch=${world.otherBranch}`)).body.count, 1);
    t.is((await list('direction', '&date_from=2026-03-11')).body.count, 0);
    t.is((await list('direction', `&date_from=${day}&date_to=${day}`)).body.count, 2);
    const headOfficeDay = (await list('direction', `&branch=${world.headOffice}`)).body.results[0].id as string;
    t.is(
      (await app.request('GET', `/api/v1/cash/branch-days/${headOfficeDay}/`, { headers: headers('other_head') }))
        .status,
      404,
      "another branch's day is not there",
    );
  },
);

test.serial(
  'a till session of the branch still open holds its day, named by id; closed, and the vault counted, the day closes',
  async (t) => {
    const other = await createLoanWorld(app, knex, 'BDZ');
    await putBusinessDate(other, day);
    const as = (user: string) => ({ headers: other.users[user]!.headers });
    const till = await app.request('POST', '/api/v1/cash/tills/', {
      ...as('branch_head'),
      json: {
        enterprise: other.enterpriseId,
        branch: other.headOffice,
        code: 'G1',
        label: 'Guichet 1',
        cashier: other.users.cashier!.id,
      },
    });
    t.is(till.status, 201, till.text);
    const session = await app.request('POST', '/api/v1/cash/till-sessions/', { ...as('cashier'), json: { count: {} } });
    t.is(session.status, 201, session.text);
    const blocked = await app.request('POST', '/api/v1/cash/branch-days/', {
      ...as('branch_head'),
      json: { enterprise: other.enterpriseId, branch: other.headOffice, date: day },
    });
    t.is(blocked.status, 409, blocked.text);
    t.deepEqual(
      blocked.body.errors.map((error: { field: string }) => error.field),
      ['blockers.till_sessions_open', 'blockers.vault_not_counted'],
    );
    t.true((blocked.body.errors[0].message as string).includes(session.body.id as string), 'the open session is named');
    const closedSession = await app.request('POST', `/api/v1/cash/till-sessions/${session.body.id as string}/close/`, {
      ...as('cashier'),
      json: { count: {} },
    });
    t.is(closedSession.status, 200, closedSession.text);
    // Under till control, the vault is counted before the day closes.
    const uncounted = await app.request('POST', '/api/v1/cash/branch-days/', {
      ...as('branch_head'),
      json: { enterprise: other.enterpriseId, branch: other.headOffice, date: day },
    });
    t.deepEqual(
      uncounted.body.errors?.map((error: { field: string }) => error.field),
      ['blockers.vault_not_counted'],
    );
    const counted = await app.request('POST', '/api/v1/cash/vault-counts/', {
      ...as('branch_head'),
      json: { enterprise: other.enterpriseId, branch: other.headOffice, count: {} },
    });
    t.is(counted.status, 201, counted.text);
    const closed = await app.request('POST', '/api/v1/cash/branch-days/', {
      ...as('branch_head'),
      json: { enterprise: other.enterpriseId, branch: other.headOffice, date: day },
    });
    t.is(closed.status, 201, closed.text);
  },
);
