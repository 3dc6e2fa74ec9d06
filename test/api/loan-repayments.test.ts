import test from 'ava';
import type { Knex } from 'knex';
import { applyRepayment } from '../../activities/loans/loan-repayments.activity';
import { penaltyFor } from '../../domain/loans/loan-product';
import { Money } from '../../domain/money';
import { Loan } from '../../db/models/loan.model';
import { inTransaction } from '../../db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import {
  accountBalance,
  approvedLoan,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  openSavingsAccount,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { testClock } from '../helpers/clock';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let worldCount = 0;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
});

/**
 * A cooperative of its own per test (business dates only move forward), its business date set at the start of the year.
 */
async function world(startDate = '2026-01-15'): Promise<LoanWorld> {
  worldCount += 1;
  const created = await createLoanWorld(app, knex, `RP${worldCount}`);
  await knex('enterprise_configurations')
    .where({ enterprise_id: created.enterpriseId })
    .update({ business_date: startDate });
  return created;
}

const disburse = (w: LoanWorld, loanId: string, json: object, as = 'cashier') =>
  app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, { headers: w.users[as]!.headers, json });
const repay = (w: LoanWorld, json: object, headers: Record<string, string> = {}, as = 'cashier') =>
  app.request('POST', '/api/v1/loans/repayments/', { headers: { ...w.users[as]!.headers, ...headers }, json });
const schedule = async (w: LoanWorld, loanId: string) =>
  (await app.request('GET', `/api/v1/loans/loans/${loanId}/schedule/`, { headers: w.users.cashier!.headers })).body
    .installments;
const loanDetail = async (w: LoanWorld, loanId: string) =>
  (await app.request('GET', `/api/v1/loans/loans/${loanId}/`, { headers: w.users.cashier!.headers })).body;

async function disbursedLoan(w: LoanWorld, terms: { amount?: string; term_periods?: number } = {}) {
  const client = await memberOf(w);
  const account = await openSavingsAccount(w, client, '50000');
  const loanId = await approvedLoan(w, client, terms);
  const response = await disburse(w, loanId, { channel: 'account', account });
  if (response.status !== 200) throw new Error(response.text);
  return { client, account, loanId };
}

/** The portfolio account equals the outstanding principal of the loans, and the ledger balances. */
async function booksAgree(t: import('ava').ExecutionContext, w: LoanWorld) {
  t.true(await ledgerBalanced(knex, w.enterpriseId), 'debits equal credits');
  const outstanding = await knex('loans')
    .where({ enterprise_id: w.enterpriseId })
    .whereNot('status', 'awaiting_disbursement')
    .first(knex.raw('COALESCE(sum(outstanding_principal), 0)::text AS total'));
  t.is(
    await accountBalance(knex, w.enterpriseId, '3221'),
    outstanding.total,
    'portfolio account = outstanding principal',
  );
}

test(
  'disbursement to the account: schedule from the business date, ' + 'fees withheld, entries posted; once only',
  async (t) => {
    const w = await world();
    const client = await memberOf(w);
    const account = await openSavingsAccount(w, client, '50000');
    const loanId = await approvedLoan(w, client, { amount: '1200000', term_periods: 12 });
    t.is((await repay(w, { loan: loanId, amount: '1000' })).body.code, 'loan_not_disbursed');
    t.is((await disburse(w, loanId, { channel: 'account' })).body.errors[0].field, 'account');
    const stranger = await openSavingsAccount(w, await memberOf(w));
    t.is(
      (await disburse(w, loanId, { channel: 'account', account: stranger })).body.errors[0].field,
      'account',
      "another member's account is refused",
    );
    const response = await disburse(w, loanId, { channel: 'account', account });
    t.is(response.status, 200, response.text);
    t.like(response.body, {
      status: 'active',
      disbursed_on: '2026-01-15',
      disbursement_channel: 'account',
      outstanding_principal: '1200000',
    });
    t.is((await knex('comptes_clients').where({ id: account }).first()).balance, String(50000 + 1200000 - 12000));
    const installments = await schedule(w, loanId);
    t.deepEqual([installments[0].due_date, installments[11].due_date], ['2026-02-15', '2027-01-15']);
    t.is(await accountBalance(knex, w.enterpriseId, '7153'), '-12000', 'fee income credited');
    t.is((await disburse(w, loanId, { channel: 'cash' })).body.code, 'loan_not_awaiting_disbursement');
    await booksAgree(t, w);
  },
);

test('disbursement in cash pays from the till', async (t) => {
  const w = await world();
  const loanId = await approvedLoan(w, await memberOf(w), { amount: '600000', term_periods: 6 });
  const tillBefore = new Money(await accountBalance(knex, w.enterpriseId, '5710'));
  t.is((await disburse(w, loanId, { channel: 'cash', account: '00000000-0000-4000-8000-000000000000' })).status, 400);
  t.is(
    (await disburse(w, loanId, { channel: 'cash' }, 'other_cashier')).status,
    404,
    'a cashier of another branch does not see the loan',
  );
  await t.throwsAsync(
    knex('loans').where({ id: loanId }).update({ branch_id: w.otherBranch }),
    { message: /never changes enterprise or branch/ },
    'a loan stays in its branch',
  );
  t.is((await disburse(w, loanId, { channel: 'cash' })).status, 200);
  t.is(
    new Money(await accountBalance(knex, w.enterpriseId, '5710')).minus(tillBefore).toFixed(0),
    String(-600000 + 6000),
    'principal out, fees in',
  );
  await booksAgree(t, w);
});

test('a partial repayment pays interest before principal; the position follows', async (t) => {
  const w = await world();
  const { loanId } = await disbursedLoan(w, { amount: '1200000', term_periods: 12 });
  const [first] = await schedule(w, loanId);
  t.is(first.interest_due, '18000', '1.5 % of 1 200 000 for the first month');
  const response = await repay(w, { loan: loanId, amount: '20000', reference: 'R1' });
  t.is(response.status, 201, response.text);
  t.like(response.body, {
    amount: '20000',
    penalty: '0',
    interest: '18000',
    principal: '2000',
    channel: 'cash',
    business_date: '2026-01-15',
    outstanding_after: '1198000',
  });
  t.deepEqual(response.body.allocations, [
    { number: 1, due_date: '2026-02-15', penalty: '0', interest: '18000', principal: '2000' },
  ]);
  // Paid on the disbursement day, the interest has earned nothing yet: all of it is received in advance (docs/domain.md
  // §3).
  t.is(await accountBalance(knex, w.enterpriseId, '713'), '0');
  t.is(await accountBalance(knex, w.enterpriseId, '47220'), '-18000');
  const detail = await loanDetail(w, loanId);
  t.like(detail.position, { outstanding_principal: '1198000', days_past_due: 0, penalties: '0' });
  t.is(
    (await app.request('GET', `/api/v1/loans/repayments/${response.body.id}/`, { headers: w.users.direction!.headers }))
      .body.id,
    response.body.id,
  );
  t.is(
    (await app.request('GET', `/api/v1/loans/repayments/?loan=${loanId}`, { headers: w.users.cashier!.headers })).body
      .count,
    1,
  );
  await booksAgree(t, w);
});

test('arrears: penalties accrue on what is late, and a repayment clears the oldest installment first', async (t) => {
  const w = await world();
  const { loanId } = await disbursedLoan(w, { amount: '1200000', term_periods: 12 });
  const installments = await schedule(w, loanId);
  await setBusinessDate(w, '2026-03-25'); // installment 1 (15 Feb) is 38 days late, installment 2 (15 Mar) 10 days
  const late = (row: { principal_due: string; interest_due: string }) =>
    new Money(row.principal_due).plus(row.interest_due);
  const penalty1 = penaltyFor(late(installments[0]), new Money('0.12'), '2026-02-15', '2026-03-25');
  const penalty2 = penaltyFor(late(installments[1]), new Money('0.12'), '2026-03-15', '2026-03-25');
  const detail = await loanDetail(w, loanId);
  t.like(detail.position, { days_past_due: 38, penalties: penalty1.plus(penalty2).toFixed(0) });
  // Enough for installment 1 whole and part of installment 2: penalties, interest, principal, oldest first.
  const amount = late(installments[0]).plus(penalty1).plus(penalty2).plus(5000);
  const response = await repay(w, { loan: loanId, amount: amount.toFixed(0) });
  t.is(response.status, 201, response.text);
  t.deepEqual(response.body.allocations, [
    {
      number: 1,
      due_date: '2026-02-15',
      penalty: penalty1.toFixed(0),
      interest: installments[0].interest_due,
      principal: installments[0].principal_due,
    },
    { number: 2, due_date: '2026-03-15', penalty: penalty2.toFixed(0), interest: '5000', principal: '0' },
  ]);
  t.like((await loanDetail(w, loanId)).position, { days_past_due: 10, penalties: '0' });
  t.is(
    await accountBalance(knex, w.enterpriseId, '719'),
    penalty1.plus(penalty2).negated().toFixed(0),
    'penalty income',
  );
  await booksAgree(t, w);
});

test('a full repayment closes the loan; beyond the amount due is refused; a closed loan takes nothing', async (t) => {
  const w = await world();
  const { loanId } = await disbursedLoan(w, { amount: '100000', term_periods: 1 });
  const [only] = await schedule(w, loanId);
  const due = new Money(only.principal_due).plus(only.interest_due);
  const over = await repay(w, { loan: loanId, amount: due.plus(1).toFixed(0) });
  t.is(over.status, 409);
  t.is(over.body.code, 'exceeds_total_due');
  t.is((await knex('loan_repayments').where({ loan_id: loanId })).length, 0, 'nothing written');
  const full = await repay(w, { loan: loanId, amount: due.toFixed(0) });
  t.is(full.body.outstanding_after, '0');
  t.like(await loanDetail(w, loanId), {
    status: 'closed',
    closed_on: '2026-01-15',
    outstanding_principal: '0',
    position: null,
  });
  t.is((await repay(w, { loan: loanId, amount: '1' })).body.code, 'loan_closed');
  t.is(
    (
      await app.request('GET', `/api/v1/loans/loans/?enterprise=${w.enterpriseId}&status=closed`, {
        headers: w.users.cashier!.headers,
      })
    ).body.count,
    1,
  );
  await booksAgree(t, w);
});

test('repayment by debit of the member account: the account pays, an overdraft is refused', async (t) => {
  const w = await world();
  const { loanId, account } = await disbursedLoan(w, { amount: '1200000', term_periods: 12 });
  const before = new Money((await knex('comptes_clients').where({ id: account }).first()).balance);
  const paid = await repay(w, { loan: loanId, amount: '30000', channel: 'account', account });
  t.is(paid.status, 201, paid.text);
  t.is((await knex('comptes_clients').where({ id: account }).first()).balance, before.minus(30000).toFixed(0));
  // Leave 10 000 on the account: a 20 000 repayment from it would overdraw it.
  const withdrawal = await app.request('POST', `/api/v1/members/accounts/${account}/withdrawals/`, {
    headers: w.users.cashier!.headers,
    json: { amount: before.minus(40000).toFixed(0) },
  });
  t.is(withdrawal.status, 201, withdrawal.text);
  const tooMuch = await repay(w, { loan: loanId, amount: '20000', channel: 'account', account });
  t.is(tooMuch.body.code, 'insufficient_funds');
  t.is((await knex('loan_repayments').where({ loan_id: loanId })).length, 1);
  const reconciliation = await app.request('GET', `/api/v1/members/reconciliation/?enterprise=${w.enterpriseId}`, {
    headers: w.users.direction!.headers,
  });
  t.deepEqual(reconciliation.body.results, [], 'member balances still equal the ledger');
  await booksAgree(t, w);
});

test('idempotent: a retry answers the first repayment; the same key with another body is refused', async (t) => {
  const w = await world();
  const { loanId } = await disbursedLoan(w);
  const first = await repay(w, { loan: loanId, amount: '10000' }, { 'Idempotency-Key': 'rp-1' });
  const again = await repay(w, { loan: loanId, amount: '10000' }, { 'Idempotency-Key': 'rp-1' });
  t.is(again.status, 201);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(again.body.id, first.body.id);
  t.is(
    (await repay(w, { loan: loanId, amount: '10001' }, { 'Idempotency-Key': 'rp-1' })).body.code,
    'idempotency_key_reused',
  );
  t.is((await knex('loan_repayments').where({ loan_id: loanId })).length, 1);
  await booksAgree(t, w);
});

test('16 concurrent repayments on one loan: the sum paid never exceeds the sum due, none is lost', async (t) => {
  const w = await world();
  const { loanId } = await disbursedLoan(w, { amount: '1200000', term_periods: 12 });
  const payable = new Money((await loanDetail(w, loanId)).position.payable); // the first installment
  const each = payable.div(5).floor();
  const responses = await Promise.all(
    Array.from({ length: 16 }, (_, index) =>
      repay(w, { loan: loanId, amount: each.toFixed(0) }, { 'Idempotency-Key': `c-${index}` }),
    ),
  );
  const accepted = responses.filter((response) => response.status === 201);
  t.is(accepted.length, 5);
  t.true(
    responses.every((response) => response.status === 201 || response.body.code === 'exceeds_total_due'),
    responses.map((response) => response.status).join(),
  );
  const paid = await knex('loan_repayments').where({ loan_id: loanId }).first(knex.raw('sum(amount)::text AS total'));
  t.is(paid.total, each.mul(5).toFixed(0));
  const installments = await schedule(w, loanId);
  const paidOnSchedule = installments.reduce(
    (sum: Money, row: { principal_paid: string; interest_paid: string; penalty_paid: string }) =>
      sum.plus(row.principal_paid).plus(row.interest_paid).plus(row.penalty_paid),
    new Money(0),
  );
  t.is(paidOnSchedule.toFixed(0), paid.total, 'the schedule holds every franc paid');
  t.true(paidOnSchedule.lte(payable));
  await booksAgree(t, w);
});

// Serial (ava runs these first): it holds a connection while another waits, so it keeps out of the other tests' way on
// the pool.
test.serial("a repayment queued behind the loan's lock reads the installments as the holder left them", async (t) => {
  const w = await world();
  const { loanId } = await disbursedLoan(w, { amount: '1200000', term_periods: 12 });
  const holder = await knex.transaction();
  t.teardown(async () => {
    if (!holder.isCompleted()) await holder.rollback();
  });
  await holder.raw('SELECT coopbank_loan_for_repayment(?, NULL)', [loanId]);
  const queued = repay(w, { loan: loanId, amount: '1000' });
  await waitForLockWait('coopbank_loan_for_repayment');
  // What a repayment committed while this one waited (its ledger side left out: only the schedule is read here).
  await holder('loan_installments').where({ loan_id: loanId, number: 1 }).increment('interest_paid', 500);
  await holder.commit();
  const response = await queued;
  t.is(response.status, 201, response.text);
  t.like(response.body.allocations[0], { number: 1, interest: '1000' });
  t.is((await schedule(w, loanId))[0].interest_paid, '1500', 'added to what the holder paid, not written over it');
});

/** Until a backend of this database waits for a lock in a statement naming `text`. */
async function waitForLockWait(text: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const { rows } = await knex.raw(
      `SELECT count(*)::int AS waiting
         FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE ?`,
      [`%${text}%`],
    );
    if (rows[0].waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no statement naming ${text} waited for a lock`);
}

test(
  "principal repaid ahead (a leaving member's refund): " + 'the unearned interest is waived in the schedule itself',
  async (t) => {
    const w = await world();
    const { loanId } = await disbursedLoan(w, { amount: '1200000', term_periods: 12 });
    const loan = await Loan.query(knex).findById(loanId).throwIfNotFound();
    await inTransaction(knex, (trx) =>
      applyRepayment(trx, testClock(), {
        loan,
        businessDate: '2026-01-15',
        amount: new Money('300000'),
        funding: { channel: 'share_refund', account: '4417' },
        dues: 'overdue_and_principal',
        reference: 'refund',
        key: `refund:${loanId}`,
        request: {},
        actorId: w.users.cashier!.id,
      }),
    );
    const settled: { interest_due: string; interest_paid: string; principal_due: string; principal_paid: string }[] =
      await knex('loan_installments').where({ loan_id: loanId }).whereNotNull('paid_on');
    t.true(settled.length >= 2, 'installments paid off ahead of their dates');
    for (const row of settled)
      t.like(row, { interest_due: '0', interest_paid: '0', principal_paid: row.principal_due });
    await booksAgree(t, w);
  },
);

test('bad input: a date other than the business date, a closed accounting year; nothing written', async (t) => {
  const w = await world();
  const { loanId } = await disbursedLoan(w);
  const dated = await repay(w, { loan: loanId, amount: '1000', date: '2026-01-14' });
  t.is(dated.status, 422);
  t.is(dated.body.errors[0].field, 'date');
  t.is((await repay(w, { loan: loanId, amount: 1000 })).body.errors[0].field, 'amount');
  t.is((await repay(w, { loan: '00000000-0000-4000-8000-000000000000', amount: '1000' })).status, 404);
  t.is((await repay(w, { loan: loanId, amount: '1000' }, {}, 'other_cashier')).status, 404);
  const exercice = await knex('exercices_comptables')
    .where({ enterprise_id: w.enterpriseId, status: 'open' })
    .first('id');
  // The year locked, as the first step of its closing does (the closing itself:
  // test/workflows/year-end-closing.test.ts).
  await knex('exercices_comptables').where({ id: exercice.id }).update({ status: 'closed' });
  const closed = await repay(w, { loan: loanId, amount: '1000' });
  t.is(closed.status, 409);
  t.is(closed.body.code, 'exercice_closed');
  t.is((await knex('loan_repayments').where({ loan_id: loanId })).length, 0);
  t.is((await knex('loan_installments').where({ loan_id: loanId }).sum({ paid: 'interest_paid' }).first())!.paid, '0');
});
