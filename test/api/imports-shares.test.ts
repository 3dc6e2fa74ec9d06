import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import type { DetailTotal, ImportKindSteps, ImportScope } from '../../activities/imports/import-steps';
import { branchUserSteps } from '../../activities/imports/branch-user-steps';
import { shareSteps } from '../../activities/imports/share-steps';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, type LoanWorld } from '../helpers/loans';
import { createShareType } from '../helpers/shares';
import { validateImport } from '../helpers/imports';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * The go-live import's share subscriptions and branches-users (issue 31, docs/domain.md §15.3): hand-made
 * files validated through the API, then the kind's steps called directly (the import workflow calls them the
 * same way): detail totals, apply in batches, cancel. Every expected figure is worked out here from the files.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '../fixtures/imports', name));
const cutOverDate = '2026-10-31';
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

/** An enterprise member of the head office under a number of the files, a founder or not. */
async function member(number: string, founder = false, branchId = world.headOffice): Promise<string> {
  const id = await memberOf(world, branchId);
  await knex('client_profiles').where({ id }).update({ member_number: number, founder });
  return id;
}

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  // The world's 002 ordinary shares: 1 000 000 XAF, paid in full at subscription. 001 founder shares: 10 000 XAF, a
  // quarter at least at subscription, at most 100 a member.
  world = await createLoanWorld(app, knex, 'IMS', { capital: false });
  await createShareType(world, { code: '001', nominal_value: '10000', max_shares: 100 });
  // Another enterprise has honorary shares (003); this one has none.
  const other = await createLoanWorld(app, knex, 'IMT', { capital: false });
  await createShareType(other, { code: '003', nominal_value: '5000' });
  await member('M-EXIST');
  await member('M-FOUND', true);
  await member('M-MAX', true);
});

const direction = () => world.users.direction!.headers;

async function newImport(t: ExecutionContext): Promise<string> {
  const created = await app.request('POST', '/api/v1/imports/', {
    headers: direction(),
    json: { enterprise: world.enterpriseId, cut_over_date: cutOverDate },
  });
  t.is(created.status, 201, created.text);
  return created.body.id as string;
}

const upload = (id: string, kind: string, body: Uint8Array) =>
  app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
    headers: { ...direction(), 'content-type': 'text/csv' },
    body,
  });
/** The import once its workflow has validated it (a worker runs it meanwhile). */
const validate = (id: string) => withWorker(knex, () => validateImport(app, id, direction()), taskQueue);

async function problemsOf(id: string): Promise<string[]> {
  const report = await app.request('GET', `/api/v1/imports/${id}/report/?page_size=100`, { headers: direction() });
  return (report.body.results as { kind: string; row: number; column: string; value: string; problem: string }[]).map(
    (problem) => `${problem.kind} ${problem.row} ${problem.column} '${problem.value}': ${problem.problem}`,
  );
}

const registerTotals = async () =>
  (
    await app.request('GET', `/api/v1/shares/register/?enterprise=${world.enterpriseId}&date=${cutOverDate}`, {
      headers: direction(),
    })
  ).body.totals;
const countOf = async (table: string) =>
  Number((await knex(table).where({ enterprise_id: world.enterpriseId }).count({ count: '*' }).first())!.count);

// The file by hand: member, branch (members file: M001 and M003 at HQ, M002 at B2; M-EXIST at the head office HQ),
// subscribed, paid.
const shareRows = [
  { branch: 'HQ', subscribed: 3n * 1_000_000n, paid: 3_000_000n },
  { branch: 'B2', subscribed: 10n * 10_000n, paid: 25_000n },
  { branch: 'HQ', subscribed: 1n * 1_000_000n, paid: 1_000_000n },
  { branch: 'HQ', subscribed: 2n * 1_000_000n, paid: 2_000_000n },
  { branch: 'HQ', subscribed: 4n * 10_000n, paid: 40_000n },
];
// The default rules: a subscription 4411 / 10010, a payment cash / 4411 and 10010 / 10000 (docs/domain.md §2).
const expectedTotals = ['HQ', 'B2'].flatMap((branch) => {
  const subscribed = shareRows.filter((row) => row.branch === branch).reduce((sum, row) => sum + row.subscribed, 0n);
  const paid = shareRows.filter((row) => row.branch === branch).reduce((sum, row) => sum + row.paid, 0n);
  return [
    [branch, '10000', -paid],
    [branch, '10010', paid - subscribed],
    [branch, '4411', subscribed - paid],
  ].map(([b, a, v]) => `${b} ${a} ${v}`);
});

/** The share steps' detail totals: per branch, the lines the ledger would post for the file's subscriptions. */
async function assertDetailTotals(t: ExecutionContext, scope: ImportScope): Promise<void> {
  const totals = await knex.transaction((trx) => shareSteps.detailTotals!(trx, scope));
  t.deepEqual(
    totals.map((total: DetailTotal) => `${total.branchCode} ${total.accountCode} ${total.balance.toFixed(0)}`).sort(),
    expectedTotals.sort(),
  );
  t.true(totals.every((total) => total.what === 'share subscriptions'));
}

/** Applies the import with a kind's steps in batches of two, each in its transaction; returns each batch's last row. */
async function appliedBatches(steps: ImportKindSteps, scope: ImportScope): Promise<(number | null)[]> {
  const context = testActivityContext(knex);
  const applied: (number | null)[] = [];
  for (let after: number | null = 0; after !== null;) {
    after = await knex.transaction((trx) => steps.applyBatch!(trx, context, scope, after!, 2));
    applied.push(after);
  }
  return applied;
}

/** Each subscription of the file: its member, branch, shares, amounts, number and payment due date. */
async function assertSubscriptionsAsFiled(
  t: ExecutionContext,
  id: string,
  clients: { M001: string; M002: string; M003: string },
): Promise<void> {
  const subscriptions = await knex('share_subscriptions')
    .where({ import_id: id })
    .orderBy('import_row_number')
    .select(
      'client_id',
      'branch_id',
      'shares',
      'amount',
      'paid_amount',
      'opening_paid',
      'subscribed_on',
      'payment_due_on',
      'number',
    );
  t.deepEqual(
    subscriptions.map((row) => [
      row.client_id,
      row.branch_id,
      row.shares,
      row.amount,
      row.paid_amount,
      row.opening_paid,
    ]),
    [
      [clients.M001, world.headOffice, 3, '3000000', '3000000', '3000000'],
      [clients.M002, world.otherBranch, 10, '100000', '25000', '25000'],
      [clients.M003, world.headOffice, 1, '1000000', '1000000', '1000000'],
      [
        (
          await knex('client_profiles')
            .where({ enterprise_id: world.enterpriseId, member_number: 'M-EXIST' })
            .first('id')
        ).id,
        world.headOffice,
        2,
        '2000000',
        '2000000',
        '2000000',
      ],
      [clients.M001, world.headOffice, 4, '40000', '40000', '40000'],
    ],
  );
  t.deepEqual(
    subscriptions.map((row) => row.number),
    ['SUB-2026-000001', 'SUB-2026-000002', 'SUB-2026-000003', 'SUB-2026-000004', 'SUB-2026-000005'],
  );
  // Founder shares may be paid in part, the rest within the type's 36 months (as a subscription made today); ordinary
  // shares are paid at once.
  t.deepEqual(
    subscriptions.map((row) => row.payment_due_on),
    ['2026-10-31', '2029-10-31', '2026-10-31', '2026-10-31', '2029-10-31'],
  );
  t.deepEqual(
    await knex('client_profiles').whereIn('id', Object.values(clients)).orderBy('member_number').pluck('founder'),
    [true, true, false],
  );
}

/** Cancelled: the register empty, no subscription of the import left, no share held. */
async function assertSubscriptionsCancelled(t: ExecutionContext, id: string): Promise<void> {
  t.like(await registerTotals(), { members: 0, shares: 0, paid: '0', unpaid: '0' });
  t.deepEqual(await knex('share_subscriptions').where({ import_id: id }).whereNull('cancelled_at').pluck('id'), []);
  t.is(
    Number(
      (
        await knex('share_subscriptions')
          .where({ import_id: id })
          .first(knex.raw('sum(shares - withdrawn_shares) AS held'))
      ).held,
    ),
    0,
  );
}

test(
  'a good shares file validates, adds up per branch as the ledger ' +
    'would post it, applies in batches without posting, and cancels',
  async (t) => {
    const id = await newImport(t);
    t.is((await upload(id, 'members', fixture('members-good.csv'))).status, 200);
    t.is((await upload(id, 'shares', fixture('shares-good.csv'))).status, 200);
    const validated = await validate(id);
    t.deepEqual(await problemsOf(id), []);
    t.like(validated, { status: 'validated', problems: 0 });

    const scope: ImportScope = { importId: id, enterpriseId: world.enterpriseId, cutOverDate };
    await assertDetailTotals(t, scope);

    // Part A applies the members first; here they are made the plain way, M002 at the other branch.
    const clients = {
      M001: await member('M001'),
      M002: await member('M002', false, world.otherBranch),
      M003: await member('M003'),
    };
    const eventsBefore = await countOf('business_event_logs');
    t.deepEqual(await appliedBatches(shareSteps, scope), [3, 5, 6, null]);
    await assertSubscriptionsAsFiled(t, id, clients);
    t.is(await countOf('business_event_logs'), eventsBefore);
    const paid = shareRows.reduce((sum, row) => sum + row.paid, 0n);
    const subscribed = shareRows.reduce((sum, row) => sum + row.subscribed, 0n);
    t.like(await registerTotals(), { members: 4, shares: 20, paid: String(paid), unpaid: String(subscribed - paid) });

    await knex.transaction((trx) => shareSteps.cancel!(trx, scope));
    await assertSubscriptionsCancelled(t, id);
  },
);

test(
  'each bad shares row gets its problem: an unknown member, another ' +
    "enterprise's type, paid over nominal, negative, not a founder, bounds, twice",
  async (t) => {
    const id = await newImport(t);
    t.is((await upload(id, 'shares', fixture('shares-bad.csv'))).status, 200);
    t.like(await validate(id), { status: 'rejected', problems: 11 });
    t.deepEqual((await problemsOf(id)).sort(), [
      "shares 10 share_type_code '001': the member's shares of " +
        'this type twice in the file (one row per member and type)',
      "shares 10 shares '50': with the shares of this type the " +
        "member holds already, above the type's maximum per member",
      "shares 2 member_number 'M-NOBODY': neither in the members file nor a member of the enterprise",
      "shares 3 share_type_code '003': not a share type of the enterprise",
      "shares 4 amount_paid '3 000 000': above the 2 shares' value, 2000000 XAF (1000000 XAF each)",
      "shares 5 amount_paid '-5000': negative: impossible in this column",
      "shares 6 share_type_code '001': founder shares: the member is not named a founder by direction",
      "shares 7 shares '0': at least one share",
      "shares 8 amount_paid '400000': share type 002 is paid in full at subscription: 600000 XAF left unpaid",
      "shares 9 share_type_code '001': the member's shares of " +
        'this type twice in the file (one row per member and type)',
      "shares 9 shares '60': with the shares of this type the " +
        "member holds already, above the type's maximum per member",
    ]);
    t.deepEqual(await knex('share_subscriptions').where({ import_id: id }).pluck('id'), []);
  },
);

/** The file's users: invited (no password), a cashier's role at once and no other; no password signs in. */
async function assertUsersInvited(t: ExecutionContext, id: string): Promise<void> {
  const users = await knex('users')
    .where({ import_id: id })
    .orderBy('username')
    .select('id', 'username', 'full_name', 'password_hash');
  t.deepEqual(
    users.map((user) => [user.username, user.full_name, user.password_hash]),
    [
      ['ag07.head', 'Marie Kamga', 'invited'],
      ['ag08-cash', 'Luc Tchana', 'invited'],
      ['b2.cashier', 'Paul Fotso', 'invited'],
    ],
  );
  const grants = await knex('role_grants as g')
    .join('users as u', 'u.id', 'g.user_id')
    .join('branches as b', 'b.id', 'g.branch_id')
    .where('u.import_id', id)
    .orderBy('u.username')
    .select('u.username', 'g.role', 'b.code');
  t.deepEqual(
    grants.map((grant) => `${grant.username} ${grant.role} ${grant.code}`),
    ['ag08-cash cashier AG08', 'b2.cashier cashier B2'],
  );
  // No password signs in.
  t.is(
    (await app.request('POST', '/api/v1/token/', { json: { username: 'b2.cashier', password: 'invited' } })).status,
    401,
  );
}

test(
  'a good branches-users file validates and applies: new branches with ' +
    "their vault, users with no password, a cashier's role at once, no other",
  async (t) => {
    const id = await newImport(t);
    t.is((await upload(id, 'branches-users', fixture('branches-users-good.csv'))).status, 200);
    t.like(await validate(id), { status: 'validated', problems: 0 });
    const scope: ImportScope = { importId: id, enterpriseId: world.enterpriseId, cutOverDate };
    t.deepEqual(await appliedBatches(branchUserSteps, scope), [3, 5, null]);
    const branches = await knex('branches')
      .where({ enterprise_id: world.enterpriseId })
      .whereIn('code', ['B2', 'AG07', 'AG08'])
      .orderBy('code')
      .select('id', 'code', 'name', 'import_id');
    t.deepEqual(
      branches.map((branch) => [branch.code, branch.name, branch.import_id]),
      [
        ['AG07', 'Agence de Dschang', id],
        ['AG08', 'Agence de Mbouda', id],
        ['B2', 'Branch two', null],
      ],
    );
    t.deepEqual(
      await knex('tills')
        .whereIn(
          'branch_id',
          branches.map((branch) => branch.id),
        )
        .orderBy('label')
        .pluck('label'),
      ['Coffre Agence de Dschang', 'Coffre Agence de Mbouda', 'Coffre Branch two'],
    );
    await assertUsersInvited(t, id);

    await knex.transaction((trx) => branchUserSteps.cancel!(trx, scope));
    t.deepEqual(await knex('users').where({ import_id: id }).orderBy('username').pluck('is_active'), [
      false,
      false,
      false,
    ]);
    t.deepEqual(
      await knex('branches')
        .whereIn(
          'id',
          branches.map((branch) => branch.id),
        )
        .orderBy('code')
        .pluck('status'),
      ['closed', 'closed', 'active'],
    );
  },
);

test(
  'each bad branches-users row gets its problem: a branch code clashing, ' +
    'a username taken or twice, a user without a name, a role unknown',
  async (t) => {
    const id = await newImport(t);
    t.is((await upload(id, 'branches-users', fixture('branches-users-bad.csv'))).status, 200);
    t.like(await validate(id), { status: 'rejected', problems: 10 });
    t.deepEqual((await problemsOf(id)).sort(), [
      "branches-users 10 username 'x': not a username: 3 to 150 letters, digits, dots, dashes or underscores",
      "branches-users 11 role 'direction': not one of cashier, branch_head, credit_committee, accountant",
      "branches-users 2 branch_code 'B2': already a branch of the enterprise, under another name",
      "branches-users 3 branch_name 'Agence A': the branch code is given another name in another row",
      "branches-users 4 branch_name 'Agence B': the branch code is given another name in another row",
      "branches-users 5 username 'direction_ims': already a user of the platform",
      "branches-users 6 username 'dup.user': twice in the file (one row per user)",
      "branches-users 7 username 'DUP.user': twice in the file (one row per user)",
      "branches-users 8 full_name '': required with a username",
      "branches-users 9 full_name 'Zoe Person': only with a username",
    ]);
    t.deepEqual(
      await knex('branches')
        .where({ enterprise_id: world.enterpriseId })
        .whereIn('code', ['AG09', 'AG10'])
        .pluck('code'),
      [],
    );
  },
);
