import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import {
  accountBalance,
  approvedLoan,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { runMonthEnd } from '../helpers/month-ends';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Interest paid before it is earned is income received in advance (docs/domain.md §3): the example, a loan
 * of 1 000 000 at 24 %/year (2 % a month, constant principal over 10 months) disbursed on 15 January 2026, whose
 * first installment (due 15 February) carries 20 000 of interest for the 31 days from 15 January. The test's own
 * figures: earned = interest × actual days run / 31, half-up to the franc.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let worldCount = 0;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

const earned = (interest: number, days: number, of: number) =>
  new Money(interest).times(days).div(of).toDecimalPlaces(0, Money.ROUND_HALF_UP);
const byJanuary20 = earned(20_000, 5, 31); // 3 226
const byJanuary31 = earned(20_000, 16, 31); // 10 323
// The second installment (interest 900 000 × 2 % = 18 000, from 15 February to 15 March) accrued at February's end.
const secondAccruedFebruary = earned(18_000, 13, 28);

/** A cooperative of its own (month ends run in order), with the loan of the example disbursed in cash on 15 January. */
async function exampleLoan(): Promise<LoanWorld & { loanId: string }> {
  worldCount += 1;
  const world = await createLoanWorld(app, knex, `UI${worldCount}`);
  const product = await app.request('POST', '/api/v1/loans/products/', {
    headers: world.users.direction!.headers,
    json: {
      enterprise: world.enterpriseId,
      code: 'DEG',
      name: 'Crédit dégressif',
      term_category: 'cta',
      method: 'constant_principal',
      annual_rate: '0.24',
      min_amount: '50000',
      max_amount: '200000000',
      min_term_periods: 1,
      max_term_periods: 24,
      max_grace_periods: 0,
      fee_rate: '0',
      penalty_rate: '0',
    },
  });
  if (product.status !== 201) throw new Error(product.text);
  await knex('enterprise_configurations')
    .where({ enterprise_id: world.enterpriseId })
    .update({ business_date: '2026-01-15' });
  const declining = { ...world, productId: product.body.id as string };
  const loanId = await approvedLoan(declining, await memberOf(world), { amount: '1000000', term_periods: 10 });
  const disbursed = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
    headers: world.users.cashier!.headers,
    json: { channel: 'cash' },
  });
  if (disbursed.status >= 300) throw new Error(disbursed.text);
  return { ...declining, loanId };
}

const repay = (world: LoanWorld & { loanId: string }, amount: string) =>
  app.request('POST', '/api/v1/loans/repayments/', {
    headers: world.users.cashier!.headers,
    json: { loan: world.loanId, amount },
  });

/** Income is a credit: the balance of 713 (debit − credit) is minus the income. */
const income = (world: LoanWorld) =>
  accountBalance(knex, world.enterpriseId, '713').then((balance) => new Money(balance).negated().toFixed(0));
const unearned = (world: LoanWorld) =>
  accountBalance(knex, world.enterpriseId, '47220').then((balance) => new Money(balance).negated().toFixed(0));
const entriesOf = async (world: LoanWorld) =>
  Number(
    (await knex('journal_entries').where({ enterprise_id: world.enterpriseId }).count<{ count: string }[]>())[0]!.count,
  );

/**
 * Debits equal credits; the portfolio account equals the loans' outstanding principal, 47220 what their installments
 * hold unearned.
 */
async function booksAgree(t: ExecutionContext, world: LoanWorld) {
  t.true(await ledgerBalanced(knex, world.enterpriseId), 'debits equal credits');
  const loans = await knex('loans')
    .where({ enterprise_id: world.enterpriseId })
    .first(knex.raw('COALESCE(sum(outstanding_principal), 0)::text AS total'));
  t.is(
    await accountBalance(knex, world.enterpriseId, '3221'),
    loans.total,
    'portfolio account = outstanding principal',
  );
  const installments = await knex('loan_installments as i')
    .join('loans as l', 'l.id', 'i.loan_id')
    .where('l.enterprise_id', world.enterpriseId)
    .first(knex.raw('COALESCE(sum(i.interest_unearned), 0)::text AS total'));
  t.is(await unearned(world), installments.total, '47220 = the interest the installments hold unearned');
}

async function monthEnd(t: ExecutionContext, world: LoanWorld, period: string, businessDate: string) {
  await setBusinessDate(world, businessDate);
  const run = await runMonthEnd(world, period);
  t.is(run.body.status, 'done', run.text);
  return run.body.steps.find((step: { step: string }) => step.step === 'recognizeUnearnedInterest');
}

test(
  "the issue's example: 20 000 of interest for 15 January–15 February paid on 20 January is income " +
    'of 10 323 in January and 9 677 in February; a rerun posts nothing',
  async (t) => {
    const world = await exampleLoan();
    const [first] = await knex('loan_installments')
      .where({ loan_id: world.loanId })
      .orderBy('number')
      .select('due_date', 'principal_due', 'interest_due');
    t.deepEqual(
      { ...first },
      { due_date: '2026-02-15', principal_due: '100000', interest_due: '20000' },
      'the schedule the test computes from',
    );
    t.is(byJanuary31.toFixed(0), '10323');

    await setBusinessDate(world, '2026-01-20');
    const repaid = await repay(world, '120000');
    t.is(repaid.status, 201, repaid.text);
    t.like(repaid.body, { interest: '20000', principal: '100000' });
    // Earned by 20 January: income at once; the rest received in advance.
    t.is(await income(world), byJanuary20.toFixed(0));
    t.is(await unearned(world), new Money(20_000).minus(byJanuary20).toFixed(0));
    await booksAgree(t, world);

    await withWorker(
      knex,
      async () => {
        const january = await monthEnd(t, world, '2026-01', '2026-02-01');
        t.like(january, {
          amount: byJanuary31.minus(byJanuary20).toFixed(0),
          lines: [{ loan: world.loanId, account: '47220' }],
        });
        t.is(
          await income(world),
          byJanuary31.toFixed(0),
          "January earned 16 of the period's 31 days, and no accrual counts it again",
        );
        t.is(await unearned(world), new Money(20_000).minus(byJanuary31).toFixed(0));
        await booksAgree(t, world);

        // Started again, the done month end posts nothing.
        const entries = await entriesOf(world);
        const again = await runMonthEnd(world, '2026-01');
        t.is(again.body.status, 'done');
        t.is(await entriesOf(world), entries);
        t.is(await income(world), byJanuary31.toFixed(0));

        const february = await monthEnd(t, world, '2026-02', '2026-03-01');
        t.like(february, { amount: new Money(20_000).minus(byJanuary31).toFixed(0) });
        t.is(await unearned(world), '0', 'the period is over: nothing is left received in advance');
        // February: the rest of the first installment's interest, and the second's accrued since 15 February.
        t.is(await income(world), new Money(20_000).plus(secondAccruedFebruary).toFixed(0));
        await booksAgree(t, world);
      },
      taskQueue,
    );
  },
);

test(
  'a partial prepayment: what is earned by its date is income, the rest in advance; the month end ' +
    'accrues only what is earned beyond what was paid',
  async (t) => {
    const world = await exampleLoan();
    await setBusinessDate(world, '2026-01-20');
    t.is((await repay(world, '5000')).status, 201);
    t.is(await income(world), byJanuary20.toFixed(0));
    t.is(await unearned(world), new Money(5_000).minus(byJanuary20).toFixed(0));

    await withWorker(
      knex,
      async () => {
        const january = await monthEnd(t, world, '2026-01', '2026-02-01');
        t.like(january, { amount: new Money(5_000).minus(byJanuary20).toFixed(0) });
        t.is(await unearned(world), '0', 'all paid is earned by 31 January');
        t.is(
          await accountBalance(knex, world.enterpriseId, '3291'),
          byJanuary31.minus(5_000).toFixed(0),
          'accrued: earned beyond what was paid',
        );
        t.is(await income(world), byJanuary31.toFixed(0));
        await booksAgree(t, world);
      },
      taskQueue,
    );
  },
);

test('a payment on the due date defers nothing: all its interest is earned', async (t) => {
  const world = await exampleLoan();
  await setBusinessDate(world, '2026-02-15');
  const repaid = await repay(world, '120000');
  t.is(repaid.status, 201, repaid.text);
  t.is(await income(world), '20000');
  t.is(await unearned(world), '0');
  const events = await knex('business_event_logs')
    .where({ enterprise_id: world.enterpriseId, kind: 'repayment_interest_unearned' })
    .count<{ count: string }[]>();
  t.is(events[0]!.count, '0');
  await booksAgree(t, world);
});
