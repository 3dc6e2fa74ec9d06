import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { decideApprovalRequest } from '../../activities/approvals/approval-request.activity';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import type { Role } from '../../domain/access';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest } from '../helpers/approvals';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import {
  accountBalance,
  approvedLoan,
  ledgerBalanced,
  memberOf,
  numberedWorlds,
  openSavingsAccount,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';

/**
 * Issue 30, guarantors and collateral (docs/domain.md §14.4): a guarantor is a member whose savings are held up to
 * the amount guaranteed; the collateral register shows what provisioning may count of each guarantee; a revaluation
 * of a covering one goes through four eyes.
 */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
});

const nextWorld = numberedWorlds('GR', '2026-01-15');
const world = (): Promise<LoanWorld> => nextWorld(app, knex);

const as = (w: LoanWorld, user: string) => ({ headers: w.users[user]!.headers });
const post = (w: LoanWorld, user: string, path: string, json: object) =>
  app.request('POST', path, { ...as(w, user), json });
const get = (w: LoanWorld, user: string, path: string) => app.request('GET', path, as(w, user));
const addGuarantee = (w: LoanWorld, user: string, json: object) =>
  post(w, user, '/api/v1/loans/guarantees/', { start_date: '2026-01-15', ...json });
const guaranteeOf = async (w: LoanWorld, id: string) =>
  (await get(w, 'branch_head', `/api/v1/loans/guarantees/${id}/`)).body;
const withdraw = (w: LoanWorld, account: string, amount: string) =>
  post(w, 'cashier', `/api/v1/members/accounts/${account}/withdrawals/`, { amount, channel: 'cash' });
const accountOf = async (w: LoanWorld, account: string) =>
  (await get(w, 'cashier', `/api/v1/members/accounts/${account}/`)).body;
const register = (w: LoanWorld, user: string, query: string, viewer = w) =>
  get(viewer, user, `/api/v1/loans/collateral-register/?enterprise=${w.enterpriseId}&${query}`);
/** A decision on a request as its workflow takes it (this file runs no worker). */
const decide = (w: LoanWorld, user: string, roles: readonly Role[], request: string) =>
  decideApprovalRequest(knex, testClock(), {
    requestId: request,
    decision: {
      decision: 'approve',
      deciderId: w.users[user]!.id,
      deciderRoles: roles,
      reason: 'test',
      requestId: null,
    },
  });

async function cashLoan(w: LoanWorld, client: string, amount: string, termPeriods: number): Promise<string> {
  const loanId = await approvedLoan(w, client, { amount, term_periods: termPeriods });
  const response = await post(w, 'cashier', `/api/v1/loans/loans/${loanId}/disbursement/`, { channel: 'cash' });
  if (response.status !== 200) throw new Error(response.text);
  return loanId;
}

/** The provisioning run of `asOf` (the business date moved to it), through the run's activities. */
async function provision(w: LoanWorld, asOf: string): Promise<void> {
  await setBusinessDate(w, asOf);
  const run = await startProvisioningRun(knex, testClock(), {
    enterpriseId: w.enterpriseId,
    asOf,
    trigger: 'api',
    requestedBy: null,
  });
  for (let status = 'running'; status === 'running';)
    status = (await provisionBatch(knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
}

const provisionOf = async (loanId: string) =>
  (await knex('loans').where({ id: loanId }).first('provision_amount')).provision_amount as string;

/** What a guarantor's guarantee refuses: every one names the field. */
async function refusedGuarantors(
  t: ExecutionContext,
  w: LoanWorld,
  loan: string,
  borrower: string,
  guarantor: string,
  guarantorAccount: string,
  borrowerAccount: string,
) {
  const personal = { loan, kind: 'personal_guarantor', value: '200000' };
  const field = async (json: object, user = 'cashier') => {
    const response = await addGuarantee(w, user, json);
    t.is(response.status, 400, response.text);
    return response.body.errors[0].field as string;
  };
  t.is(
    await field({ ...personal, guarantor: borrower }),
    'guarantor',
    'the borrower does not guarantee their own loan',
  );
  t.is(
    await field({ ...personal, guarantor: '00000000-0000-4000-8000-000000000000' }),
    'guarantor',
    'a member of the enterprise',
  );
  t.is(await field({ ...personal, guarantor: 'someone' }), 'guarantor');
  t.is(await field({ ...personal, account: guarantorAccount }), 'guarantor', 'a held account names its guarantor');
  t.is(await field({ ...personal, guarantor, account: borrowerAccount }), 'account', "the guarantor's own account");
  t.is(
    await field({ ...personal, guarantor, account: guarantorAccount, end_date: '2027-01-01' }),
    'end_date',
    'held until released',
  );
  t.is(await field({ ...personal, value: '-5', guarantor }), 'value');
  t.is(
    await field({ loan, kind: 'mortgage', value: '200000', guarantor }, 'branch_head'),
    'guarantor',
    'only a personal guarantee names a guarantor',
  );
  const tooMuch = await addGuarantee(w, 'cashier', {
    ...personal,
    value: '300001',
    guarantor,
    account: guarantorAccount,
  });
  t.like(tooMuch.body, { code: 'insufficient_funds', errors: [{ field: 'value' }] });
}

/** What the guarantor guarantees for others (the one guarantee given); the borrower guarantees nothing. */
async function assertGuaranteesGivenBy(
  t: ExecutionContext,
  w: LoanWorld,
  guarantor: string,
  borrower: string,
  guarantee: { id: string; loan: string },
) {
  const given = (await get(w, 'cashier', `/api/v1/loans/guarantees/?guarantor=${guarantor}`)).body;
  t.is(given.count, 1);
  t.like(given.results[0], { id: guarantee.id, loan: guarantee.loan, guarantor });
  t.is((await get(w, 'cashier', `/api/v1/loans/guarantees/?guarantor=${borrower}`)).body.count, 0);
  t.is((await get(w, 'cashier', '/api/v1/loans/guarantees/?guarantor=nobody')).status, 400);
}

/**
 * A pledge of equipment counts for nothing (its eligibility is NOT FOUND): a cashier records and revalues it at once;
 * 933 follows.
 */
async function assertEquipmentPledgeRevalued(t: ExecutionContext, w: LoanWorld, loan: string) {
  const gage = await addGuarantee(w, 'cashier', {
    loan,
    kind: 'equipment_pledge',
    value: '150000',
    document_reference: 'GAGE-7',
  });
  t.is(gage.status, 201, gage.text);
  t.like(gage.body, { status: 'in_force', cover: 'none', countable_value: '0' });
  t.is(await accountBalance(knex, w.enterpriseId, '933'), '-150000');
  const revalued = await post(w, 'cashier', `/api/v1/loans/guarantees/${gage.body.id as string}/revaluation/`, {
    value: '180000',
    valuation_date: '2026-01-15',
  });
  t.is(revalued.status, 200, revalued.text);
  t.like(revalued.body, { value: '180000', valuation_date: '2026-01-15', pending_change: null });
  t.is(await accountBalance(knex, w.enterpriseId, '933'), '-180000');
}

test.serial(
  "a guarantor member's savings are held up to the amount guaranteed: a withdrawal " +
    'refused, then accepted once the guarantee is released; class 9 follows',
  async (t) => {
    const w = await world();
    const borrower = await memberOf(w);
    const borrowerAccount = await openSavingsAccount(w, borrower, '50000');
    const loan = await cashLoan(w, borrower, '500000', 6);
    const guarantor = await memberOf(w);
    const guarantorAccount = await openSavingsAccount(w, guarantor, '300000');
    await refusedGuarantors(t, w, loan, borrower, guarantor, guarantorAccount, borrowerAccount);

    // A cashier records it (a personal guarantee lowers no provision): in force at once, the guarantor's 200 000 held.
    const added = await addGuarantee(w, 'cashier', {
      loan,
      kind: 'personal_guarantor',
      value: '200000',
      guarantor,
      account: guarantorAccount,
      document_reference: 'CAU-2026-001',
    });
    t.is(added.status, 201, added.text);
    t.like(added.body, {
      status: 'in_force',
      guarantor,
      account: guarantorAccount,
      value: '200000',
      valuation_date: '2026-01-15',
      document_reference: 'CAU-2026-001',
      cover: 'none',
      countable_value: '0',
    });
    t.like(await accountOf(w, guarantorAccount), {
      balance: '300000',
      held_amount: '200000',
      available_balance: '100000',
    });
    const refused = await withdraw(w, guarantorAccount, '100001');
    t.is(refused.status, 409);
    t.like(refused.body, { code: 'insufficient_funds', errors: [{ field: 'amount' }] });
    t.is(await accountBalance(knex, w.enterpriseId, '934'), '-200000', 'avals et cautions received: credited');

    await assertGuaranteesGivenBy(t, w, guarantor, borrower, { id: added.body.id as string, loan });

    // Released (a personal guarantee ends at once): the money is the guarantor's again, the class 9 entry reversed.
    const ended = await post(w, 'cashier', `/api/v1/loans/guarantees/${added.body.id as string}/end/`, {
      end_date: '2026-01-15',
    });
    t.is(ended.status, 200, ended.text);
    t.like(await accountOf(w, guarantorAccount), { held_amount: '0', available_balance: '300000' });
    t.is((await withdraw(w, guarantorAccount, '150000')).status, 201);
    t.is(await accountBalance(knex, w.enterpriseId, '934'), '0');

    // A member suspended commits to nothing new.
    const suspended = await memberOf(w);
    await knex('client_profiles').where({ id: suspended }).update({ status: 'suspended', status_reason: 'test' });
    t.like(
      (await addGuarantee(w, 'cashier', { loan, kind: 'personal_guarantor', value: '1000', guarantor: suspended }))
        .body,
      { code: 'member_not_active', errors: [{ field: 'guarantor' }] },
    );

    await assertEquipmentPledgeRevalued(t, w, loan);
    t.true(await ledgerBalanced(knex, w.enterpriseId));
  },
);

test.serial("a guarantor's hold ends when the loan is repaid", async (t) => {
  const w = await world();
  const borrower = await memberOf(w);
  const loan = await cashLoan(w, borrower, '100000', 1);
  const guarantor = await memberOf(w);
  const account = await openSavingsAccount(w, guarantor, '100000');
  t.is(
    (await addGuarantee(w, 'cashier', { loan, kind: 'personal_guarantor', value: '100000', guarantor, account }))
      .status,
    201,
  );
  t.is((await withdraw(w, account, '1')).status, 409);
  // The guarantor's account cannot be closed while it holds the guarantee.
  t.is(
    (await post(w, 'branch_head', `/api/v1/members/accounts/${account}/close/`, { reason: 'member leaves' })).body.code,
    'account_pledged',
  );

  const { position } = (await get(w, 'cashier', `/api/v1/loans/loans/${loan}/`)).body;
  const repaid = await post(w, 'cashier', '/api/v1/loans/repayments/', { loan, amount: position.payable });
  t.is(repaid.status, 201, repaid.text);
  t.is((await knex('loans').where({ id: loan }).first('status')).status, 'closed');
  t.like(await accountOf(w, account), { held_amount: '0', available_balance: '100000' });
  t.is((await withdraw(w, account, '100000')).status, 201);
});

/** The years a doubtful loan has been so at `date`, whole years as R-2017/07 counts them (the test's own count). */
const wholeYears = (since: string, date: string) =>
  Number(date.slice(0, 4)) - Number(since.slice(0, 4)) - (date.slice(4) < since.slice(4) ? 1 : 0);

/**
 * A year and more after 3 September, R-2017/07 wants 25 % of the covered part per whole year doubtful: what is left
 * is what counts. `since` is the date the loan became doubtful.
 */
async function assertCountableAfterMinimum(t: ExecutionContext, w: LoanWorld, since: string) {
  for (const date of ['2026-09-03', '2027-09-10', '2028-09-10']) {
    const years = wholeYears(since, date);
    const countable = new Money(800_000).minus(new Money(800_000).mul(Math.min(0.25 * years, 1)));
    const answer = (await register(w, 'branch_head', `date=${date}`)).body;
    t.deepEqual(
      answer.lines.map((line: Record<string, unknown>) => [line.kind, line.value, line.countable_value]),
      [
        ['mortgage', '800000', countable.toFixed(0)],
        ['personal_guarantor', '300000', '0'],
      ],
      date,
    );
    t.like(answer.totals, { guarantees: 2, value: '1100000', countable_value: countable.toFixed(0) });
  }
  t.is(wholeYears(since, '2028-09-10'), 2, 'the loop reached two whole years');
}

/** The register downloads as CSV and XLSX. */
async function assertRegisterDownloads(t: ExecutionContext, w: LoanWorld) {
  const csv = await register(w, 'branch_head', 'date=2027-09-10&format=csv');
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type') ?? '', /text\/csv/);
  t.true(csv.text.includes('TF 1234/MFOUNDI') && csv.text.includes('600000'), csv.text);
  const xlsx = await register(w, 'branch_head', 'date=2027-09-10&format=xlsx');
  t.is(xlsx.status, 200);
  t.regex(xlsx.headers.get('content-type') ?? '', /spreadsheetml/);
}

test.serial(
  'the collateral register: what provisioning may count after the R-2017/07 minimum; a ' +
    "guarantor's hold counts nothing; a revaluation under four eyes moves the provision",
  async (t) => {
    const w = await world();
    const borrower = await memberOf(w);
    const loan = await cashLoan(w, borrower, '1000000', 12);
    const guarantor = await memberOf(w);
    const guarantorAccount = await openSavingsAccount(w, guarantor, '300000');
    const mortgageAsked = await addGuarantee(w, 'branch_head', {
      loan,
      kind: 'mortgage',
      value: '800000',
      valuation_date: '2026-01-10',
      document_reference: 'TF 1234/MFOUNDI',
    });
    t.is(mortgageAsked.status, 202, mortgageAsked.text);
    t.is((await approveRequest(knex, mortgageAsked, { id: w.users.direction!.id, roles: ['direction'] })).status, 200);
    const mortgage = mortgageAsked.body.payload.guaranteeId as string;
    const personal = (
      await addGuarantee(w, 'cashier', {
        loan,
        kind: 'personal_guarantor',
        value: '300000',
        guarantor,
        account: guarantorAccount,
      })
    ).body.id as string;
    t.is(await accountBalance(knex, w.enterpriseId, '9311'), '-800000');

    // 200 days late on 3 September: doubtful, 75 % of the uncovered part. The mortgage covers 800 000 (no full year
    // doubtful yet: nothing of its minimum); the guarantor's 300 000 held are no cash cover, so 200 000 stay uncovered.
    await provision(w, '2026-09-03');
    t.is(await provisionOf(loan), new Money(1_000_000).minus(800_000).mul('0.75').toFixed(0));
    const { doubtful_since: since } = await knex('loans')
      .where({ id: loan })
      .first(knex.raw(`to_char(doubtful_since, 'YYYY-MM-DD') AS doubtful_since`));
    t.like(await guaranteeOf(w, mortgage), {
      cover: 'eligible',
      value: '800000',
      valuation_date: '2026-01-10',
      document_reference: 'TF 1234/MFOUNDI',
      countable_value: '800000',
    });

    await assertCountableAfterMinimum(t, w, since as string);
    const line = (await register(w, 'branch_head', 'date=2026-09-03')).body.lines[1];
    t.like(line, {
      guarantee: personal,
      guarantor,
      account: guarantorAccount,
      classification: 'doubtful',
      outstanding: '1000000',
    });
    t.is((await register(w, 'branch_head', 'date=2026-01-01')).body.lines.length, 0, 'none in force before it started');

    await assertRegisterDownloads(t, w);

    await revaluation(t, w, { loan, mortgage, personal });
  },
);

/** The mortgage valued anew at 600 000: a request, approved by another; class 9 and the next provision follow it. */
async function revaluation(
  t: ExecutionContext,
  w: LoanWorld,
  ids: { loan: string; mortgage: string; personal: string },
) {
  const path = `/api/v1/loans/guarantees/${ids.mortgage}/revaluation/`;
  t.is(
    (await post(w, 'cashier', path, { value: '600000', valuation_date: '2026-09-01' })).status,
    403,
    'a covering guarantee: a branch head asks',
  );
  const early = await post(w, 'branch_head', path, { value: '600000', valuation_date: '2026-01-01' });
  t.like(early.body, { status: 400, errors: [{ field: 'valuation_date' }] });
  t.like((await post(w, 'branch_head', path, { value: '0', valuation_date: '2026-09-01' })).body, {
    status: 400,
    errors: [{ field: 'value' }],
  });
  t.like(
    (
      await post(w, 'cashier', `/api/v1/loans/guarantees/${ids.personal}/revaluation/`, {
        value: '100000',
        valuation_date: '2026-09-01',
      })
    ).body,
    { code: 'guarantee_held' },
  );

  const asked = await post(w, 'branch_head', path, { value: '600000', valuation_date: '2026-09-01' });
  t.is(asked.status, 202, asked.text);
  t.like(asked.body, {
    operation: 'guarantee.change',
    payload: { guaranteeId: ids.mortgage, change: 'revalue', value: '600000' },
  });
  t.like(await guaranteeOf(w, ids.mortgage), {
    value: '800000',
    pending_change: { change: 'revalue', value: '600000', valuation_date: '2026-09-01' },
  });
  t.is(
    (await post(w, 'branch_head', path, { value: '500000', valuation_date: '2026-09-02' })).body.code,
    'confirmation_pending',
  );
  t.like(await decide(w, 'branch_head', ['branch_head'], asked.body.id), { code: 'approval_own_request' });
  t.like(await decide(w, 'direction', ['direction'], asked.body.id), { status: 'approved' });
  t.like(await guaranteeOf(w, ids.mortgage), { value: '600000', valuation_date: '2026-09-01', pending_change: null });
  t.is(await accountBalance(knex, w.enterpriseId, '9311'), '-600000', 'class 9 follows the new value');
  await provision(w, '2026-09-04');
  t.is(await provisionOf(ids.loan), new Money(1_000_000).minus(600_000).mul('0.75').toFixed(0));
  t.true(await ledgerBalanced(knex, w.enterpriseId));
  // The register at a date reads the value then in force: before the revaluation's date, the value it replaced.
  const mortgageAt = async (date: string) =>
    (await register(w, 'branch_head', `date=${date}`)).body.lines.find(
      (row: { guarantee: string }) => row.guarantee === ids.mortgage,
    );
  t.like(await mortgageAt('2026-08-31'), { value: '800000', valuation_date: '2026-01-10' });
  t.like(await mortgageAt('2026-09-01'), { value: '600000', valuation_date: '2026-09-01' });
  t.is(
    (await knex('guarantee_revaluations').where({ guarantee_id: ids.mortgage })).length,
    1,
    'the revaluation is kept',
  );
}

test.serial(
  'branch isolation: another branch sees neither the guarantee ' +
    "nor the head office's register; another enterprise gets 404",
  async (t) => {
    const w = await world();
    const borrower = await memberOf(w);
    const loan = await cashLoan(w, borrower, '300000', 6);
    const guarantor = await memberOf(w);
    const added = await addGuarantee(w, 'cashier', { loan, kind: 'personal_guarantor', value: '100000', guarantor });
    t.is(added.status, 201, added.text);
    const id = added.body.id as string;
    t.is((await get(w, 'other_cashier', `/api/v1/loans/guarantees/${id}/`)).status, 404);
    t.is((await get(w, 'other_cashier', `/api/v1/loans/guarantees/?guarantor=${guarantor}`)).body.count, 0);
    t.is((await register(w, 'other_head', `date=2026-01-15&branch=${w.headOffice}`)).status, 404);
    t.deepEqual((await register(w, 'other_head', 'date=2026-01-15')).body.lines, []);
    t.is((await register(w, 'branch_head', 'date=2026-01-15')).body.lines.length, 1);
    t.is(
      (
        await post(w, 'other_head', `/api/v1/loans/guarantees/${id}/revaluation/`, {
          value: '1000',
          valuation_date: '2026-01-15',
        })
      ).status,
      404,
    );
    t.like((await register(w, 'branch_head', 'date=2026-02-30')).body, { status: 400, errors: [{ field: 'date' }] });

    const other = await world();
    t.is((await get(other, 'direction', `/api/v1/loans/guarantees/${id}/`)).status, 404);
    t.is(
      (await register(w, 'direction', 'date=2026-01-15', other)).status,
      404,
      "asked with the first enterprise's id",
    );
  },
);
