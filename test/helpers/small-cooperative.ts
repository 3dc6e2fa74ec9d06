import type { Knex } from 'knex';
import { postJournalEntry } from '../../activities/events/post-entry';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import type { TestApp } from './app';
import { untilWorkflow } from './until';
import {
  approvedLoan,
  confirmedGuarantee,
  createLoanWorld,
  memberOf,
  openSavingsAccount,
  setBusinessDate,
  type LoanWorld,
} from './loans';
import { testClock } from './clock';

/**
 * A small cooperative through the year 2026, through the API, with every figure it should produce computed
 * here by hand, independently of the product: the share capital of createLoanWorld (1 000 shares of
 * 1 000 000 paid in cash at the head office), a deposit of 500 000 at the head office and one of 300 000 at
 * the second branch, a loan of 1 200 000 over 12 months at 18 % (constant annuity, 30/360, 1 % fee withheld
 * in cash) repaid on its first two due dates, and 20 000 of staff costs (6511) paid from the till. Its year end
 * (openNextYear) finds the loan doubtful, secured by a mortgage: reclassified to 3342 (doubtful, covered by
 * sûretés réelles: docs/domain.md §4), not provisioned in the first year of its downgrade.
 */
export interface SmallCooperative {
  world: LoanWorld;
  chartId: string;
  savingsAccount: string;
  year2026: string;
  expected: {
    /**
     * The loan's outstanding principal from March on: in 3221, then in 3342 once the year-end run finds it doubtful
     * (its mortgage a sûreté réelle).
     */
    loanOutstanding: Money;
    interest: Money;
    fees: Money;
    expenses: Money;
    result: Money;
    /** Debit minus credit at the end of 2026 (after the year-end provisioning and the closing), per branch. */
    headOffice: Record<string, Money>;
    otherBranch: Record<string, Money>;
  };
}

const principal = new Money(1_200_000);
const monthlyRate = new Money('0.18').div(12);
const capital = new Money(1_000_000_000);
const staffCosts = new Money(20_000);

/**
 * The annuity A = P·i / (1 − (1 + i)^−n) and the interest of the first two periods, each rounded half-up to the franc.
 */
function handComputedLoan() {
  const annuity = principal
    .times(monthlyRate)
    .div(new Money(1).minus(monthlyRate.plus(1).pow(-12)))
    .toDecimalPlaces(0);
  const interest1 = principal.times(monthlyRate).toDecimalPlaces(0);
  const principal1 = annuity.minus(interest1);
  const interest2 = principal.minus(principal1).times(monthlyRate).toDecimalPlaces(0);
  const principal2 = annuity.minus(interest2);
  return { annuity, interest: interest1.plus(interest2), principalRepaid: principal1.plus(principal2) };
}

async function request(app: TestApp, method: string, path: string, headers: Record<string, string>, json: unknown) {
  const response = await app.request(method, path, { headers, json });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.text}`);
  return response.body;
}

export async function smallCooperative(app: TestApp, knex: Knex, code: string): Promise<SmallCooperative> {
  const world = await createLoanWorld(app, knex, code);
  await knex('enterprise_configurations')
    .where({ enterprise_id: world.enterpriseId })
    .update({ business_date: '2026-01-15' });
  const { cashier, other_cashier: otherCashier } = world.users;
  const savingsAccount = await openSavingsAccount(world, await memberOf(world), '500000');
  await request(app, 'POST', '/api/v1/members/accounts/', otherCashier!.headers, {
    client: await memberOf(world, world.otherBranch),
    product: world.savingsProductId,
    initial_deposit: '300000',
  });

  const loan = handComputedLoan();
  const loanId = await approvedLoan(world, await memberOf(world), { amount: principal.toFixed(0), term_periods: 12 });
  await request(app, 'POST', `/api/v1/loans/loans/${loanId}/disbursement/`, cashier!.headers, { channel: 'cash' });
  for (const due of ['2026-02-15', '2026-03-15']) {
    await setBusinessDate(world, due);
    await request(app, 'POST', '/api/v1/loans/repayments/', cashier!.headers, {
      loan: loanId,
      amount: loan.annuity.toFixed(0),
    });
  }
  // No operation of the product pays an expense yet: the ledger's own entry point posts it.
  await inTransaction(knex, (trx) =>
    postJournalEntry(trx, {
      enterpriseId: world.enterpriseId,
      branchId: world.headOffice,
      entryDate: '2026-06-30',
      lines: [
        { account: '6511', debit: staffCosts, credit: new Money(0) },
        { account: '5710', debit: new Money(0), credit: staffCosts },
      ],
      description: 'salaries of June',
      createdBy: world.rootId,
    }),
  );

  const fees = principal.times('0.01');
  const result = loan.interest.plus(fees).minus(staffCosts);
  const headOffice = {
    5710: capital.plus(500_000).minus(principal).plus(fees).plus(loan.annuity.times(2)).minus(staffCosts),
    3711: new Money(-500_000),
    3342: principal.minus(loan.principalRepaid),
    10000: capital.negated(),
    131: result.negated(),
  };
  const year2026 = (
    await knex('exercices_comptables').where({ enterprise_id: world.enterpriseId, code: '2026' }).first('id')
  ).id as string;
  const chartId = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
  return {
    world,
    chartId,
    savingsAccount,
    year2026,
    expected: {
      loanOutstanding: principal.minus(loan.principalRepaid),
      interest: loan.interest,
      fees,
      expenses: staffCosts,
      result,
      headOffice,
      otherBranch: { 5710: new Money(300_000), 3711: new Money(-300_000) },
    },
  };
}

/**
 * Opens 2027 and moves the business date into it (the next year must be open before 2026 closes), then runs the
 * year-end provisioning (provisionYearEnd): a year closes only with its last day provisioned.
 */
export async function openNextYear(coop: SmallCooperative): Promise<string> {
  const { world } = coop;
  const created = await request(world.app, 'POST', '/api/v1/enterprise/exercices/', world.users.direction!.headers, {
    enterprise: world.enterpriseId,
    code: '2027',
    start_date: '2027-01-01',
    end_date: '2027-12-31',
  });
  await setBusinessDate(world, '2027-01-05');
  await provisionYearEnd(coop);
  return created.id as string;
}

/**
 * The loans provisioned as of 2026-12-31, as the daily run of January 1 does, through the run's activities (no
 * worker needed). The loan, 260 days late, is doubtful: the run moves its principal to 3342. A mortgage recorded
 * now (asked by the branch head, confirmed by the direction), effective from the disbursement, covers it: no
 * provision in the first year after the downgrade (R-2017/07 Art. 17-2-b), so the year's result stays the one
 * computed above.
 */
export async function provisionYearEnd(coop: SmallCooperative): Promise<void> {
  const { world } = coop;
  const { id: loan } = await loanOf(coop);
  const mortgage = { loan, kind: 'mortgage', value: principal.toFixed(0), start_date: '2026-01-15' };
  await confirmedGuarantee(world, mortgage);
  const run = await startProvisioningRun(world.knex, testClock(), {
    enterpriseId: world.enterpriseId,
    asOf: '2026-12-31',
    trigger: 'api',
    requestedBy: null,
  });
  for (let status = 'running'; status === 'running';)
    status = (await provisionBatch(world.knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
}

/** Starts the closing of 2026 and waits for its workflow to end; the year's representation then. */
export async function closeYear(coop: SmallCooperative, exerciceId = coop.year2026) {
  const { world } = coop;
  const started = await world.app.request('POST', `/api/v1/enterprise/exercices/${exerciceId}/close/`, {
    headers: world.users.direction!.headers,
    json: { reason: 'year end' },
  });
  if (started.status !== 202) return started;
  return untilWorkflow({
    workflowId: started.body.closing.workflow_id,
    what: `the closing of ${started.body.code as string}`,
    read: async () => {
      const year = await world.app.request('GET', `/api/v1/enterprise/exercices/${exerciceId}/`, {
        headers: world.users.direction!.headers,
      });
      return year.body.closing.status === 'running' ? undefined : year;
    },
  });
}

/** The cooperative's one loan (1 200 000 over 12 months at the head office). */
export async function loanOf(coop: SmallCooperative): Promise<{ id: string; client_id: string }> {
  return coop.world.knex('loans').where({ enterprise_id: coop.world.enterpriseId }).first('id', 'client_id');
}

/** Runs the provisioning at the business date through the API and waits for it (a worker must be running). */
export async function provisioningRun(coop: SmallCooperative): Promise<{ status: string; as_of: string }> {
  const { world } = coop;
  const started = await request(world.app, 'POST', '/api/v1/loans/provisions/runs/', world.users.direction!.headers, {
    enterprise: world.enterpriseId,
  });
  return untilWorkflow({
    workflowId: started.workflow_id,
    what: `the provisioning run ${started.id as string}`,
    read: async () => {
      const run = await request(
        world.app,
        'GET',
        `/api/v1/loans/provisions/runs/${started.id}/`,
        world.users.direction!.headers,
        undefined,
      );
      return run.status === 'running' ? undefined : run;
    },
  });
}

/**
 * The non-zero balances of the trial balance at a date, as the API reads them (earlier years not closed carried by
 * computation): account → debit minus credit.
 */
export async function trialBalanceOf(coop: SmallCooperative, date: string): Promise<Record<string, string>> {
  const { world } = coop;
  const trial = await world.app.request('GET', `/api/v1/accounts/charts/${coop.chartId}/trial-balance/?date=${date}`, {
    headers: world.users.direction!.headers,
  });
  return Object.fromEntries(
    trial.body.accounts
      .filter((row: { balance: string }) => row.balance !== '0')
      .map((row: { code: string; balance: string }) => [row.code, row.balance]),
  );
}
