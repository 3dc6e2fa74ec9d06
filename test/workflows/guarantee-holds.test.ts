import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import {
  approvedLoan,
  memberOf,
  numberedWorlds,
  openSavingsAccount,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { testClock } from '../helpers/clock';
import { approveRequest } from '../helpers/approvals';
import { decideApprovalRequest } from '../../activities/approvals/approval-request.activity';
import type { Role } from '../../domain/access';

/**
 * Issue 25: a declared guarantee can no longer wipe out a provision. A pledged deposit is a hold on a real account, and
 * a guarantee that lowers a provision takes effect only once a second person approves its request (docs/domain.md §4).
 */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
});

const nextWorld = numberedWorlds('GH', '2026-01-15');
const world = (): Promise<LoanWorld> => nextWorld(app, knex);

const as = (w: LoanWorld, user: string) => ({ headers: w.users[user]!.headers });
const post = (w: LoanWorld, user: string, path: string, json: object) =>
  app.request('POST', path, { ...as(w, user), json });
const addGuarantee = (w: LoanWorld, user: string, json: object) =>
  post(w, user, '/api/v1/loans/guarantees/', { start_date: '2026-01-15', ...json });
/**
 * The decision on an addition's request as its workflow takes it (the activity: this file runs no worker), by one of
 * the world's users.
 */
const decide = (w: LoanWorld, user: string, roles: readonly Role[], request: string, decision: 'approve' | 'reject') =>
  decideApprovalRequest(knex, testClock(), {
    requestId: request,
    decision: {
      decision,
      deciderId: w.users[user]!.id,
      deciderRoles: roles,
      reason: `${decision} (test)`,
      requestId: null,
    },
  });
const guaranteeOf = async (w: LoanWorld, id: string) =>
  (await app.request('GET', `/api/v1/loans/guarantees/${id}/`, as(w, 'branch_head'))).body;
const withdraw = (w: LoanWorld, account: string, amount: string) =>
  post(w, 'cashier', `/api/v1/members/accounts/${account}/withdrawals/`, { amount, channel: 'cash' });
const accountOf = async (w: LoanWorld, account: string) =>
  (await app.request('GET', `/api/v1/members/accounts/${account}/`, as(w, 'cashier'))).body;
const provisionOf = async (loanId: string) =>
  (await knex('loans').where({ id: loanId }).first('provision_amount')).provision_amount as string;

/**
 * The provisioning run of `asOf` (the business date moved to it), through the run's activities (as the daily workflow
 * runs them).
 */
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

async function cashLoan(w: LoanWorld, client: string, amount: string, termPeriods: number): Promise<string> {
  const loanId = await approvedLoan(w, client, { amount, term_periods: termPeriods });
  const response = await post(w, 'cashier', `/api/v1/loans/loans/${loanId}/disbursement/`, { channel: 'cash' });
  if (response.status !== 200) throw new Error(response.text);
  return loanId;
}

/**
 * Through the API, a declared figure is refused: a pledged deposit names the account; a cashier cannot add one at all.
 */
async function refusedPledges(t: ExecutionContext, w: LoanWorld, loan: string, pledgedAccount: string): Promise<void> {
  t.is(
    (await addGuarantee(w, 'cashier', { loan, kind: 'pledged_deposit', value: '1000000', account: pledgedAccount }))
      .status,
    403,
  );
  const undeclared = await addGuarantee(w, 'branch_head', { loan, kind: 'pledged_deposit', value: '1000000' });
  t.is(undeclared.status, 400);
  t.is(undeclared.body.errors[0].field, 'account');
  t.is(
    (await addGuarantee(w, 'branch_head', { loan, kind: 'mortgage', value: '1000000', account: pledgedAccount })).body
      .errors[0].field,
    'account',
    'an account is for a pledged deposit only',
  );
  t.is(
    (
      await addGuarantee(w, 'branch_head', {
        loan,
        kind: 'pledged_deposit',
        value: '1000000',
        account: pledgedAccount,
        end_date: '2027-01-01',
      })
    ).body.errors[0].field,
    'end_date',
  );
  t.is(
    (await addGuarantee(w, 'branch_head', { loan, kind: 'pledged_deposit', value: '1000001', account: pledgedAccount }))
      .body.errors[0].field,
    'value',
    'more than the account has',
  );
  t.is(
    (await addGuarantee(w, 'branch_head', { loan, kind: 'pledged_deposit', value: 'a lot', account: pledgedAccount }))
      .status,
    400,
  );
  t.is(
    (await addGuarantee(w, 'branch_head', { loan, kind: 'pledged_deposit', value: '1000', account: 'not-a-uuid' })).body
      .errors[0].field,
    'account',
  );
}

/**
 * Releasing a covering guarantee raises the provision: asked, a four-eyes request (`guarantee.change`), approved by
 * another; meanwhile the hold stays.
 */
async function releaseUnderFourEyes(
  t: ExecutionContext,
  w: LoanWorld,
  guaranteeId: string,
  pledgedAccount: string,
): Promise<void> {
  const guaranteePath = `/api/v1/loans/guarantees/${guaranteeId}/`;
  const release = await post(w, 'branch_head', `${guaranteePath}end/`, { end_date: '2026-09-07' });
  t.is(release.status, 202, release.text);
  t.like(release.body, {
    operation: 'guarantee.change',
    status: 'pending',
    payload: { guaranteeId, endDate: '2026-09-07' },
  });
  t.like((await app.request('GET', guaranteePath, as(w, 'branch_head'))).body, {
    status: 'in_force',
    end_date: null,
    pending_change: { change: 'end', end_date: '2026-09-07', requested_by: w.users.branch_head!.id },
  });
  t.is(
    (await post(w, 'direction', `${guaranteePath}end/`, { end_date: '2026-09-08' })).body.code,
    'confirmation_pending',
    'one change at a time',
  );
  t.is((await withdraw(w, pledgedAccount, '1')).status, 409, 'held until the release is approved');
  t.is(
    (
      await post(w, 'other_head', `/api/v1/approvals/requests/${release.body.id as string}/approve/`, {
        reason: 'not theirs',
      })
    ).status,
    404,
  );
  t.is((await approveRequest(knex, release, { id: w.users.direction!.id, roles: ['direction'] })).status, 200);
  t.like((await app.request('GET', guaranteePath, as(w, 'branch_head'))).body, {
    end_date: '2026-09-07',
    pending_change: null,
  });
}

/** The hold approved by the direction, after the refusals of those who may not check it; then closed. */
async function approvedByTheChecker(
  t: ExecutionContext,
  w: LoanWorld,
  { requestId, guaranteeId }: { requestId: string; guaranteeId: string },
) {
  // The checker: never the maker, nor a cashier, nor a branch head of another branch (the request is not theirs to
  // see).
  t.like(await decide(w, 'branch_head', ['branch_head'], requestId, 'approve'), { code: 'approval_own_request' });
  t.like(await decide(w, 'cashier', ['cashier'], requestId, 'approve'), { code: 'approval_role_required' });
  t.is(
    (
      await post(w, 'other_head', `/api/v1/approvals/requests/${requestId}/approve/`, {
        reason: 'not theirs',
      })
    ).status,
    404,
  );
  t.like(await decide(w, 'direction', ['direction'], requestId, 'approve'), {
    status: 'approved',
    failure: null,
  });
  t.like(await guaranteeOf(w, guaranteeId), { status: 'in_force', pending_change: null });
  t.like(await decide(w, 'root', ['admin'], requestId, 'approve'), { code: 'approval_request_closed' });
}

async function assertAuditedByWhom(
  t: ExecutionContext,
  w: LoanWorld,
  { requestId, guaranteeId }: { requestId: string; guaranteeId: string },
) {
  // Every step is in the audit trail, by whom.
  const audit = await knex('audit_events').where({ entity_id: guaranteeId }).orderBy('id').select('action', 'actor_id');
  t.deepEqual(
    audit.map((row) => [row.action, row.actor_id]),
    [
      ['loan_guarantee.add', w.users.branch_head!.id],
      ['loan_guarantee.in_force', w.users.branch_head!.id], // the operation runs as its maker, once approved
      ['loan_guarantee.end', w.users.branch_head!.id],
    ],
  );
  const decisions = await knex('audit_events')
    .where({ entity_id: requestId, action: 'approval_request.approve' })
    .select('actor_id');
  t.deepEqual(
    decisions.map((row) => row.actor_id),
    [w.users.direction!.id],
    "the second person is on the request's record",
  );
}

test.serial(
  "the issue's example: a declared pledged deposit no longer reverses a 750 000 provision; a " +
    'confirmed hold of a real account does; released, it does no more',
  async (t) => {
    const w = await world();
    const borrower = await memberOf(w);
    const loan = await cashLoan(w, borrower, '1000000', 12);
    const guarantor = await memberOf(w);
    const pledgedAccount = await openSavingsAccount(w, guarantor, '1000000');

    // Nothing paid: the first installment fell due on 15 February; on 3 September it is 200 days late (doubtful,
    // 181-365 days: 75 %).
    const asOf = '2026-09-03';
    t.is((Date.parse(asOf) - Date.parse('2026-02-15')) / 86_400_000, 200);
    await provision(w, asOf);
    const provisionAt200 = new Money(1_000_000).mul('0.75');
    t.is(await provisionOf(loan), provisionAt200.toFixed(0), '75 % of the 1 000 000 outstanding');

    // A pledged deposit merely declared (as the table held them before): it covers nothing now.
    await knex('loan_guarantees').insert({
      enterprise_id: w.enterpriseId,
      loan_id: loan,
      kind: 'pledged_deposit',
      value: '1000000',
      start_date: '2026-01-15',
      created_by: w.users.cashier!.id,
    });
    await refusedPledges(t, w, loan, pledgedAccount);
    await provision(w, '2026-09-04');
    t.is(await provisionOf(loan), provisionAt200.toFixed(0), 'the declared pledged deposit reverses nothing');

    // The hold, asked by the branch head: pending, it already holds the account but covers nothing.
    const asked = await addGuarantee(w, 'branch_head', {
      loan,
      kind: 'pledged_deposit',
      value: '1000000',
      account: pledgedAccount,
    });
    t.is(asked.status, 202, asked.text);
    t.like(asked.body, { operation: 'guarantee.change', status: 'pending', payload: { change: 'add' } });
    const guaranteeId = asked.body.payload.guaranteeId as string;
    t.like(await guaranteeOf(w, guaranteeId), {
      status: 'pending',
      account: pledgedAccount,
      pending_change: { change: 'add', requested_by: w.users.branch_head!.id },
    });
    t.like(await accountOf(w, pledgedAccount), { balance: '1000000', held_amount: '1000000', available_balance: '0' });
    const refused = await withdraw(w, pledgedAccount, '1');
    t.is(refused.status, 409);
    t.is(refused.headers.get('content-type')?.startsWith('application/problem+json'), true);
    t.like(refused.body, { code: 'insufficient_funds', errors: [{ field: 'amount' }] });
    await provision(w, '2026-09-05');
    t.is(await provisionOf(loan), provisionAt200.toFixed(0), 'unapproved, the hold covers nothing');

    await approvedByTheChecker(t, w, { requestId: asked.body.id as string, guaranteeId });

    // In force: the account's 1 000 000 covers the whole principal in cash, nothing is provisioned.
    await provision(w, '2026-09-06');
    t.is(await provisionOf(loan), '0', 'the 750 000 are reversed: the account holds the cover');

    await releaseUnderFourEyes(t, w, guaranteeId, pledgedAccount);
    t.like(await accountOf(w, pledgedAccount), { held_amount: '0', available_balance: '1000000' });
    t.is((await withdraw(w, pledgedAccount, '400000')).status, 201, "released: the money is the member's again");
    await provision(w, '2026-09-07');
    t.is(await provisionOf(loan), provisionAt200.toFixed(0));

    await assertAuditedByWhom(t, w, { requestId: asked.body.id as string, guaranteeId });
  },
);

test.serial(
  'a partial hold covers what it holds; a refused one nothing; repaid, the loan frees the account; ' +
    "the borrower's own debits respect the hold",
  async (t) => {
    const w = await world();
    const borrower = await memberOf(w);
    const account = await openSavingsAccount(w, borrower, '500000');
    const loan = await cashLoan(w, borrower, '1000000', 12);
    const small = await cashLoan(w, borrower, '100000', 1);

    // A mortgage asked and refused: it never counts; the hold of 400 000 on the borrower's account does.
    const mortgage = await addGuarantee(w, 'branch_head', { loan, kind: 'mortgage', value: '1000000' });
    t.like(await decide(w, 'direction', ['direction'], mortgage.body.id, 'reject'), { status: 'rejected' });
    t.like(await guaranteeOf(w, mortgage.body.payload.guaranteeId), { status: 'refused', pending_change: null });
    const hold = await addGuarantee(w, 'cashier_and_head', { loan, kind: 'pledged_deposit', value: '400000', account });
    t.is(hold.status, 202, hold.text);
    t.like(
      await decide(w, 'branch_head', ['branch_head'], hold.body.id, 'approve'),
      { status: 'approved' },
      'another branch head of the branch approves',
    );
    const smallHold = await addGuarantee(w, 'branch_head', {
      loan: small,
      kind: 'pledged_deposit',
      value: '100000',
      account,
    });
    t.like(await decide(w, 'direction', ['direction'], smallHold.body.id, 'approve'), { status: 'approved' });
    t.like(await accountOf(w, account), { held_amount: '500000', available_balance: '0' });
    t.is((await withdraw(w, account, '1')).status, 409);
    // Repaying a loan from the pledged account is a debit too: it cannot take the held money.
    const fromAccount = await post(w, 'cashier', '/api/v1/loans/repayments/', {
      loan,
      amount: '1000',
      channel: 'account',
      account,
    });
    t.is(fromAccount.status, 409, fromAccount.text);
    t.like(fromAccount.body, { code: 'insufficient_funds', errors: [{ field: 'amount' }] });
    t.is(
      (await post(w, 'branch_head', `/api/v1/members/accounts/${account}/close/`, { reason: 'member leaves' })).body
        .code,
      'account_pledged',
    );

    // 200 days late on 3 September: 75 % of what the 400 000 held leave uncovered.
    await provision(w, '2026-09-03');
    t.is(await provisionOf(loan), new Money(1_000_000).minus(400_000).mul('0.75').toFixed(0));

    // The small loan repaid in full: its hold ends with it, the other stays.
    const { position } = (await app.request('GET', `/api/v1/loans/loans/${small}/`, as(w, 'cashier'))).body;
    const repaid = await post(w, 'cashier', '/api/v1/loans/repayments/', { loan: small, amount: position.payable });
    t.is(repaid.status, 201, repaid.text);
    t.is((await knex('loans').where({ id: small }).first('status')).status, 'closed');
    t.like(await accountOf(w, account), { held_amount: '400000', available_balance: '100000' });
    t.is((await withdraw(w, account, '100001')).status, 409);
    t.is((await withdraw(w, account, '100000')).status, 201);
  },
);
