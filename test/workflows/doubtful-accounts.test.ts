import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { approveRequest } from '../helpers/approvals';
import {
  accountBalance,
  approvedLoan,
  asApprover,
  confirmedGuarantee,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  putBusinessDate,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { testClock } from '../helpers/clock';

/**
 * The PCEMF accounts of doubtful loans by cover and of their provisions by cover and years doubtful (docs/domain.md
 * §2, §4), through two years of runs. Every figure is computed here by hand: four cash loans of 1 200 000 over 12
 * months from 15 January 2026, never paid (first due date 15 February), each of its own borrower:
 * - A: no cover: 3352, provisions 3931 → 3932 → 3933;
 * - B: a mortgage of 600 000 confirmed from the disbursement: 3342, provisions 3921 → 3922 → 3923;
 * - C: a State guarantee of 600 000: 3332, provisions 39100 all along;
 * - D: no cover when it becomes doubtful, a mortgage of 600 000 from the next day: moves from 3352 to 3342.
 */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
});

async function cashLoan(w: LoanWorld): Promise<string> {
  const loanId = await approvedLoan(w, await memberOf(w), { amount: '1200000', term_periods: 12 });
  const response = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
    headers: w.users.cashier!.headers,
    json: { channel: 'cash' },
  });
  if (response.status !== 200) throw new Error(response.text);
  return loanId;
}

/**
 * A run as of `asOf` (the business date or before) through the run's activities (no worker needed); its row once
 * completed.
 */
async function runAt(w: LoanWorld, asOf: string) {
  const run = await startProvisioningRun(knex, testClock(), {
    enterpriseId: w.enterpriseId,
    asOf,
    trigger: 'api',
    requestedBy: null,
  });
  for (let status = 'running'; status === 'running';)
    status = (await provisionBatch(knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
  return knex('provisioning_runs').where({ id: run.id }).first();
}

const balances = async (w: LoanWorld, codes: readonly string[]) =>
  Object.fromEntries(
    await Promise.all(codes.map(async (code) => [code, await accountBalance(knex, w.enterpriseId, code)])),
  );
const accountsOf = async (loanId: string) =>
  knex('loans').where({ id: loanId }).first('doubtful_account_code', 'provision_account_code', 'provision_amount');

/** The entries of a run of one kind: [debit account, credit account, amount, loans], by amount. */
async function entriesOf(w: LoanWorld, runId: string, kind: string): Promise<[string, string, string, number][]> {
  const events = await knex('business_event_logs as ev')
    .join('journal_entries as e', 'e.event_id', 'ev.id')
    .where({ 'ev.enterprise_id': w.enterpriseId, 'ev.kind': kind })
    .whereRaw(`ev.payload->>'run' = ?`, [runId])
    .select('e.id', 'ev.amount', 'ev.payload', 'e.journal_code')
    .orderBy(['ev.amount', 'e.id']);
  const entries: [string, string, string, number][] = [];
  for (const event of events) {
    const lines = await knex('journal_lines as l')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .where('l.entry_id', event.id)
      .select('c.code', 'l.debit', 'l.credit');
    const debit = lines.find((line) => Number(line.debit) > 0)!.code as string;
    const credit = lines.find((line) => Number(line.credit) > 0)!.code as string;
    if (event.journal_code !== 'PRV') throw new Error(`${kind} posted in ${event.journal_code as string}`);
    entries.push([debit, credit, event.amount as string, event.payload.loans as number]);
  }
  // By amount, then by accounts: two entries of one amount come in the same order on every run.
  entries.sort((a, b) => Number(a[2]) - Number(b[2]) || a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));
  return entries;
}

/**
 * The arrears statement's agreement with the ledger at `date`: every figure agrees, the doubtful and provision accounts
 * listed.
 */
async function agreement(w: LoanWorld, date: string) {
  const response = await app.request(
    'GET',
    `/api/v1/loans/arrears-statement/?enterprise=${w.enterpriseId}&date=${date}`,
    { headers: w.users.direction!.headers },
  );
  if (response.status !== 200) throw new Error(response.text);
  return response.body.ledger as {
    figure: string;
    accounts: { account: string; amount: string }[];
    ledger: string;
    statement: string;
    agrees: boolean;
  }[];
}

const doubtful = ['3332', '3342', '3352'];
const provisions = ['39100', '3921', '3922', '3923', '3924', '3931', '3932', '3933'];
type Loans = Record<'a' | 'b' | 'c' | 'd', string>;

/**
 * 2026: each loan on the accounts of its cover; D's mortgage, added while doubtful, moves its principal and its
 * provision.
 */
async function firstYear(t: ExecutionContext, w: LoanWorld, { a, b, c, d }: Loans) {
  // 2 April 2026, 46 days late: doubtful; 25 % of the uncovered part (the State's and the mortgage's 600 000 not
  // provisioned in the first year).
  await setBusinessDate(w, '2026-04-02');
  const first = await runAt(w, '2026-04-02');
  t.like(first, { loans_reclassified: 4, amount_charged: '900000' });
  t.deepEqual(await balances(w, [...doubtful, '3931', '3921', '39100', '6913']), {
    3332: '1200000',
    3342: '1200000',
    3352: '2400000',
    3931: '-600000',
    3921: '-150000',
    39100: '-150000',
    6913: '900000',
  });
  t.like(await accountsOf(a), {
    doubtful_account_code: '3352',
    provision_account_code: '3931',
    provision_amount: '300000',
  });
  t.like(await accountsOf(b), {
    doubtful_account_code: '3342',
    provision_account_code: '3921',
    provision_amount: '150000',
  });
  t.like(await accountsOf(c), {
    doubtful_account_code: '3332',
    provision_account_code: '39100',
    provision_amount: '150000',
  });
  t.like((await app.request('GET', `/api/v1/loans/loans/${b}/`, { headers: w.users.cashier!.headers })).body, {
    doubtful_account: '3342',
    provision_account: '3921',
  });

  // 3 April: a mortgage of 600 000 on D, confirmed: its principal moves to 3342, its 300 000 moved whole to 3921, then
  // 150 000 reversed there.
  await setBusinessDate(w, '2026-04-03');
  await confirmedGuarantee(w, { loan: d, kind: 'mortgage', value: '600000', start_date: '2026-04-03' });
  const second = await runAt(w, '2026-04-03');
  t.like(second, { loans_reclassified: 0, amount_charged: '0', amount_reversed: '150000' });
  t.deepEqual(await entriesOf(w, second.id, 'reclassification_doubtful'), [['3342', '3352', '1200000', 1]]);
  t.deepEqual(await entriesOf(w, second.id, 'provision_transfer'), [['3931', '3921', '300000', 1]]);
  t.deepEqual(await entriesOf(w, second.id, 'provision_reversal'), [['3921', '7913', '150000', 1]]);
  t.deepEqual(await balances(w, [...doubtful, '3931', '3921', '6913', '7913']), {
    3332: '1200000',
    3342: '2400000',
    3352: '1200000',
    3931: '-300000',
    3921: '-300000',
    6913: '900000',
    7913: '-150000',
  });
}

/** 2027 and 2028: every provision moves to the account of its years doubtful, only the difference charged. */
async function laterYears(t: ExecutionContext, w: LoanWorld) {
  await aYearDoubtful(t, w);
  await twoYearsDoubtful(t, w);
}

/** 2027: each provision moves to its account of 1–2 years doubtful. */
async function aYearDoubtful(t: ExecutionContext, w: LoanWorld) {
  // 2 April 2027, a year doubtful, 411 days late: the uncovered part 100 %, the covered 25 %. Each provision moves to
  // its account of 1–2 years (3931 → 3932, 3921 → 3922; the State's stays in 39100), only the difference charged.
  await setBusinessDate(w, '2027-04-02');
  const third = await runAt(w, '2027-04-02');
  t.like(third, { loans_reclassified: 0, amount_charged: '2700000', amount_reversed: '0' }); // 900 000 + 600 000 × 3
  t.deepEqual(await entriesOf(w, third.id, 'provision_transfer'), [
    ['3921', '3922', '300000', 2],
    ['3931', '3932', '300000', 1],
  ]);
  t.deepEqual(await entriesOf(w, third.id, 'provision_charge'), [
    ['6913', '39100', '600000', 1],
    ['6913', '3932', '900000', 1],
    ['6913', '3922', '1200000', 2],
  ]);
  t.deepEqual(await balances(w, [...provisions, '6913', '7913']), {
    39100: '-750000',
    3921: '0',
    3922: '-1500000',
    3923: '0',
    3924: '0',
    3931: '0',
    3932: '-1200000',
    3933: '0',
    6913: '3600000',
    7913: '-150000',
  });
  t.true((await agreement(w, '2027-04-02')).every((row) => row.agrees));
}

/** 2028: the provisions move to their account of 2–3 years doubtful; the ledger agrees with the portfolio. */
async function twoYearsDoubtful(t: ExecutionContext, w: LoanWorld) {
  // 2 April 2028, two years: A's 1 200 000 moves to 3933 with no charge at all; the covered part 50 %: 150 000 more
  // each on B, C, D. The API opens no third year while 2026 is open (closing it is another test's matter): 2028 opened
  // as a test setting.
  await putBusinessDate(w, '2028-04-02');
  const fourth = await runAt(w, '2028-04-02');
  t.like(fourth, { amount_charged: '450000', amount_reversed: '0' });
  t.deepEqual(await entriesOf(w, fourth.id, 'provision_transfer'), [
    ['3932', '3933', '1200000', 1],
    ['3922', '3923', '1500000', 2],
  ]);
  t.deepEqual(await entriesOf(w, fourth.id, 'provision_charge'), [
    ['6913', '39100', '150000', 1],
    ['6913', '3923', '300000', 2],
  ]);
  t.deepEqual(await balances(w, [...provisions, '6913', '7913']), {
    39100: '-900000',
    3921: '0',
    3922: '0',
    3923: '-1800000',
    3924: '0',
    3931: '0',
    3932: '0',
    3933: '-1200000',
    6913: '4050000',
    7913: '-150000',
  });
  const agreed = await agreement(w, '2028-04-02');
  t.true(
    agreed.every((row) => row.agrees),
    JSON.stringify(agreed),
  );
  t.deepEqual(
    agreed
      .find((row) => row.figure === 'doubtful')!
      .accounts.map((row) => [row.account, row.amount])
      .sort(),
    [
      ['3332', '1200000'],
      ['3342', '2400000'],
      ['3352', '1200000'],
    ],
  );
  t.is(agreed.find((row) => row.figure === 'provisions')!.ledger, '3900000');
}

/**
 * 2028: a repayment and write-offs credit the loans' own doubtful accounts and reverse their provisions where they sit.
 */
async function repaymentAndWriteOffs(t: ExecutionContext, w: LoanWorld, { a, b, c }: Loans) {
  // B repaid in full: its principal credited to 3342, nothing to the portfolio account.
  const { position } = (await app.request('GET', `/api/v1/loans/loans/${b}/`, { headers: w.users.cashier!.headers }))
    .body;
  const due = new Money(position.overdue_principal).plus(position.overdue_interest).plus(position.penalties).toFixed(0);
  const repaid = await app.request('POST', '/api/v1/loans/repayments/', {
    headers: w.users.cashier!.headers,
    json: { loan: b, amount: due },
  });
  t.is(repaid.status, 201, repaid.text);
  t.is(repaid.body.principal, '1200000');
  t.deepEqual(await balances(w, ['3342', '3221']), { 3342: '1200000', 3221: '0' });

  // A and C written off: 6921 for what their provisions cover, 6922 for the rest, crediting their doubtful accounts;
  // their provisions reversed where they sit.
  for (const loan of [a, c]) {
    // Under four eyes: direction asks, the administrator approves; the loan then reads written off.
    await approveRequest(
      knex,
      await app.request('POST', `/api/v1/loans/loans/${loan}/write-off/`, {
        headers: w.users.direction!.headers,
        json: {},
      }),
      asApprover(w),
    );
    const writeOff = await app.request('GET', `/api/v1/loans/loans/${loan}/`, { headers: w.users.direction!.headers });
    t.is(writeOff.status, 200, writeOff.text);
    t.like(writeOff.body, { status: 'written_off', provision_amount: '0', provision_account: null });
  }
  t.deepEqual(await balances(w, ['3352', '3332', '3933', '39100', '6921', '6922', '7913']), {
    3352: '0',
    3332: '0',
    3933: '0',
    39100: '0',
    6921: '2100000',
    6922: '300000',
    7913: String(-150_000 - 1_200_000 - 900_000),
  });

  // The same date again: B's 900 000 reversed from 3923; the books agree with the statement, D alone left.
  await runAt(w, '2028-04-02');
  t.deepEqual(await balances(w, ['3342', '3923']), { 3342: '1200000', 3923: '-900000' });
  const after = await agreement(w, '2028-04-02');
  t.true(
    after.every((row) => row.agrees),
    JSON.stringify(after),
  );
  t.true(await ledgerBalanced(knex, w.enterpriseId));
}

test(
  'doubtful loans by cover, their provisions by cover and years doubtful; moves without charge; ' +
    "repayment and write-off from the loan's accounts",
  async (t) => {
    const w = await createLoanWorld(app, knex, 'DA1');
    await knex('enterprise_configurations')
      .where({ enterprise_id: w.enterpriseId })
      .update({ business_date: '2026-01-15' });
    const [a, b, c, d] = [await cashLoan(w), await cashLoan(w), await cashLoan(w), await cashLoan(w)];
    await confirmedGuarantee(w, { loan: b, kind: 'mortgage', value: '600000', start_date: '2026-01-15' });
    await confirmedGuarantee(w, { loan: c, kind: 'public_guarantee', value: '600000', start_date: '2026-01-15' });
    const nextYear = await app.request('POST', '/api/v1/enterprise/exercices/', {
      headers: w.users.direction!.headers,
      json: { enterprise: w.enterpriseId, code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' },
    });
    t.is(nextYear.status, 201, nextYear.text);
    const loans = { a, b, c, d };
    await firstYear(t, w, loans);
    await laterYears(t, w);
    await repaymentAndWriteOffs(t, w, loans);
  },
);
