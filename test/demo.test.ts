import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { ensureInitialAdmin } from '../activities/auth/register.activity';
import { Money } from '../domain/money';
import { DemoStopped, loadDemoCooperative, type DemoReport } from '../scripts/demo/load-demo';
import { startTestApp, testActivityContext, type TestApp } from './helpers/app';
import { createTestDatabase } from './helpers/database';
import { fileTeardown } from './helpers/teardown';
import { newTaskQueue, withWorker } from './helpers/worker';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
// The platform administrator as npm start creates it on an empty database (runtime/start-components.ts).
const admin = { username: 'admin', password: 'first start secret' };
let app: TestApp;
let knex: Knex;
let headers: Record<string, string>;
let report: DemoReport;
// The demo's progress files, as under npm start's DATA_DIR.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-demo-'));
file.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  // A real workflow day, as `npm run demo`'s: apply's approval wakes the go-live import's workflow, which would look
  // once a day.
  app = await startTestApp(file, { knex, taskQueue });
  await ensureInitialAdmin(testActivityContext(knex), admin);
  const outcome = await withWorker(
    knex,
    () => loadDemoCooperative({ baseUrl: app.baseUrl, admin, code: 'DEMO', dataDir }),
    taskQueue,
  );
  if (outcome.kind !== 'loaded') throw new Error(`the demo found ${outcome.enterprise.code} already there`);
  report = outcome.report;
  const tokens = await app.request('POST', '/api/v1/token/', { json: admin });
  headers = { authorization: `Bearer ${tokens.body.access}` };
});

/** The count of a list endpoint for the demo cooperative, with filters. */
async function count(path: string, filters: Record<string, string> = {}): Promise<number> {
  const query = new URLSearchParams({ enterprise: report.enterprise.id, ...filters });
  const response = await app.request('GET', `${path}?${query}`, { headers });
  if (response.status !== 200) throw new Error(`${path}: ${response.text}`);
  return response.body.count as number;
}

test('the cooperative, its staff with one user per role, and its members', async (t) => {
  t.is(await count('/api/v1/enterprise/branches/'), 2);
  t.deepEqual([...new Set(report.staff.map((user) => user.role))].sort(), [
    'accountant',
    'admin',
    'branch_head',
    'cashier',
    'credit_committee',
    'direction',
  ]);
  // Each user signed in with their password during the load; the one printed is that one.
  const teller = report.staff.find((user) => user.role === 'cashier')!;
  t.is(
    (await app.request('POST', '/api/v1/token/', { json: { username: teller.username, password: teller.password } }))
      .status,
    200,
  );
  t.is(await count('/api/v1/members/clients/'), 16);
  t.is(await count('/api/v1/members/accounts/'), 20, 'a current account each, three savings books and a term deposit');
  const termDeposit = await app.request('GET', `/api/v1/members/accounts/${report.story.termDeposit}/`, { headers });
  t.like(termDeposit.body, { balance: '1000000', status: 'open' });
  t.truthy(termDeposit.body.maturity_date, 'a term deposit has its maturity');
});

test("a pledged deposit: held on the borrower's account, in force once a second person confirmed it", async (t) => {
  const pledge = await app.request('GET', `/api/v1/loans/guarantees/${report.story.pledge}/`, { headers });
  t.like(pledge.body, { kind: 'pledged_deposit', status: 'in_force', value: '100000', pending_change: null });
  const held = await app.request('GET', `/api/v1/members/accounts/${pledge.body.account}/`, { headers });
  t.is(held.body.held_amount, '100000');
  t.is(
    BigInt(held.body.available_balance),
    BigInt(held.body.balance) - 100_000n,
    'the current account has no minimum balance: only the hold is kept back',
  );
});

test(
  'a guarantor member: his savings held for the amount he ' + 'guarantees, the guarantee in the collateral register',
  async (t) => {
    const { guarantors } = report;
    const held = await app.request('GET', `/api/v1/members/accounts/${guarantors.heldAccount}/`, { headers });
    t.is(held.body.held_amount, guarantors.heldAmount, 'his account holds the amount guaranteed');
    t.like((await app.request('GET', `/api/v1/loans/guarantees/${guarantors.guarantee}/`, { headers })).body, {
      kind: 'personal_guarantor',
      status: 'in_force',
      account: guarantors.heldAccount,
    });
    t.is(
      guarantors.registerLines,
      2,
      "the register lists the pledged deposit of the story and the guarantor's guarantee",
    );
  },
);

test('the cash journal is numbered 1, 2, 3… with no gap', async (t) => {
  const cash = await app.request(
    'GET',
    `/api/v1/accounts/journal-entries/?enterprise=${report.enterprise.id}&journal=CAI&page_size=100`,
    { headers },
  );
  const byYear = new Map<string, number[]>();
  for (const entry of cash.body.results as { exercice: string; number: number }[])
    byYear.set(entry.exercice, [...(byYear.get(entry.exercice) ?? []), entry.number]);
  t.true(cash.body.count > 10 && cash.body.count <= 100, `${cash.body.count} cash entries, all on one page`);
  for (const [year, numbers] of byYear)
    t.deepEqual(
      numbers.sort((a, b) => a - b),
      Array.from({ length: numbers.length }, (_, index) => index + 1),
      year,
    );
});

test('loans at every stage of the circuit and of their life, classified by the provisioning run', async (t) => {
  const applications = (status: string, step?: string) =>
    count('/api/v1/loans/applications/', step === undefined ? { status } : { status, current_step: step });
  t.is(await applications('in_review', 'cashier'), 1, 'submitted');
  t.is(await applications('in_review', 'credit_committee'), 1, 'mid-approval');
  t.is(await applications('rejected'), 1);
  // Five of the story, the loan written off after it and the one prepaid (issue 30, scripts/demo/credit-recovery.ts,
  // credit-prepayment.ts).
  t.is(await applications('approved'), 7);
  const loans = (filters: Record<string, string>) => count('/api/v1/loans/loans/', filters);
  t.is(await loans({ status: 'awaiting_disbursement' }), 1);
  t.is(await loans({ status: 'active' }), 5);
  t.is(await loans({ classification: 'performing' }), 3, 'repaid on time, paid out on the last day, and prepaid');
  t.is(await loans({ classification: 'overdue' }), 1);
  t.is(await loans({ classification: 'doubtful' }), 1);
  t.is(
    await count('/api/v1/loans/repayments/'),
    6,
    'three on time, two before the overdue borrower stopped, and the prepayment',
  );
  // Issue 30: the doubtful loan restructured, approved by a second person above its granting step.
  t.like(
    (await app.request('GET', `/api/v1/loans/loans/${report.restructuring.loan}/restructurings/`, { headers })).body
      .results[0],
    { status: 'approved', number: 1, class_before: 'doubtful', schedule_version: 2 },
  );
  t.like(report.story.provisioningRun, { status: 'completed', as_of: report.cashDay.date, loans_processed: 4 });
  const totals = await app.request(
    'GET',
    `/api/v1/loans/provisions/totals/?enterprise=${report.enterprise.id}&as_of=${report.cashDay.date}`,
    { headers },
  );
  const doubtful = totals.body.by_class.find((row: { classification: string }) => row.classification === 'doubtful');
  t.true(BigInt(doubtful.provisions) > 0n, 'the doubtful loan is provisioned');
});

test('a litigious loan written off under four eyes, and a recovery on it (issue 30)', async (t) => {
  const loan = await app.request('GET', `/api/v1/loans/loans/${report.recovery.loan}/`, { headers });
  t.like(loan.body, { status: 'written_off', recovered_total: '100000' });
});

test('share capital: subscriptions, payments (libérations), a withdrawal in its notice period', async (t) => {
  t.is(await count('/api/v1/shares/types/'), 2);
  t.is(await count('/api/v1/shares/subscriptions/'), 16);
  t.is(
    await count('/api/v1/shares/payments/'),
    19,
    "one per subscription, and a second quarter of each founder's shares",
  );
  t.is(await count('/api/v1/shares/subscriptions/', { payment_overdue: 'true' }), 0);
  t.is(await count('/api/v1/shares/withdrawals/', { status: 'notice' }), 1);
  const register = await app.request(
    'GET',
    `/api/v1/shares/register/?enterprise=${report.enterprise.id}&date=${report.businessDate}`,
    { headers },
  );
  t.is(
    register.body.totals.paid,
    '17750000',
    'three founders half paid (15 000 000) and 275 ordinary shares (2 750 000)',
  );
});

test('the books are balanced: accounts agree with the ledger, debits equal credits', async (t) => {
  t.is(await count('/api/v1/members/reconciliation/'), 0);
  const trial = await app.request('GET', `/api/v1/accounts/charts/${report.chartId}/trial-balance/`, { headers });
  t.true(trial.body.totals.balanced);
  t.not(trial.body.totals.debit, '0');
});

test(
  "the accountant's month: the opening balance sheet, " + 'salaries, suppliers and a motorcycle, in the trial balance',
  async (t) => {
    // At the date they were booked: a year closed since would have zeroed the expenses into the result.
    const trial = await app.request(
      'GET',
      `/api/v1/accounts/charts/${report.chartId}/trial-balance/?date=${report.story.books.date}`,
      { headers },
    );
    const balance = (code: string) =>
      BigInt(trial.body.accounts.find((row: { code: string }) => row.code === code)?.balance ?? '0');
    // The opening: bank 8 000 000 against reserves 2 000 000 and a fund 1 000 000; the rest waits on 4780.
    t.is(balance('4780'), -(8_000_000n - 2_000_000n - 1_000_000n));
    // The bank paid ENEO in full, half the rent and the motorcycle.
    t.is(balance('5603'), 8_000_000n - 85_000n - 125_000n - 1_200_000n);
    t.is(balance('422'), -600_000n, 'salaries due');
    t.is(balance('65211') + balance('65234') + balance('6511'), 85_000n + 250_000n + 600_000n);
    t.is(balance('225'), 1_200_000n, 'the motorcycle at cost');
    const openItems = await app.request(
      'GET',
      `/api/v1/accounting/suppliers/${report.story.books.suppliers.landlord}/open-items/`,
      { headers },
    );
    t.is(openItems.status, 200, openItems.text);
    t.deepEqual(
      openItems.body.items.map((item: { remaining: string }) => item.remaining),
      [String(250_000 - 125_000)],
    );
    const asset = await app.request('GET', `/api/v1/accounting/fixed-assets/${report.story.books.fixedAsset}/`, {
      headers,
    });
    t.like(asset.body, { cost: '1200000', status: 'active' });
  },
);

test('a second run finds the demo cooperative and changes nothing', async (t) => {
  const enterprises = await app.request('GET', '/api/v1/enterprise/enterprises/', { headers });
  const again = await loadDemoCooperative({ baseUrl: app.baseUrl, admin, code: 'DEMO', dataDir });
  t.like(again, { kind: 'exists', enterprise: report.enterprise, why: 'loaded_earlier' });
  const byName = (users: { username: string; password: string }[] = []) =>
    users.map(({ username, password }) => `${username} ${password}`).sort();
  t.deepEqual(
    byName(again.kind === 'exists' ? again.staff : undefined),
    byName(report.staff),
    'the passwords printed at the load',
  );
  t.is((await app.request('GET', '/api/v1/enterprise/enterprises/', { headers })).body.count, enterprises.body.count);
});

test.serial(
  'a load interrupted after the members is taken up again by the next run, which finishes it without twins',
  async (t) => {
    const options = { baseUrl: app.baseUrl, admin, code: 'HALF', dataDir };
    const stopped = await t.throwsAsync(
      withWorker(knex, () => loadDemoCooperative({ ...options, stopAfter: 'members' }), taskQueue),
    );
    t.true(stopped instanceof DemoStopped);
    const enterprise = await knex('enterprises').where({ code: 'HALF' }).first();
    const clients = () =>
      knex('client_profiles')
        .where({ enterprise_id: enterprise.id })
        .count({ n: '*' })
        .first()
        .then((row) => Number(row!.n));
    t.is(await clients(), 16);

    const resumed = await withWorker(knex, () => loadDemoCooperative(options), taskQueue);
    t.like(resumed, { kind: 'loaded', resumed: true });
    t.is(await clients(), 16, 'the members of the first run, not registered twice');
    t.is(
      await knex('users')
        .whereLike('username', 'half.%')
        .count({ n: '*' })
        .first()
        .then((row) => Number(row!.n)),
      8,
      'one account per staff member',
    );
    t.is(
      await knex('branches')
        .where({ enterprise_id: enterprise.id })
        .count({ n: '*' })
        .first()
        .then((row) => Number(row!.n)),
      2,
    );
    const staff = resumed.kind === 'loaded' ? resumed.report.staff : [];
    const teller = staff.find((user) => user.username === 'half.guichet-akwa')!;
    t.is(
      (await app.request('POST', '/api/v1/token/', { json: { username: teller.username, password: teller.password } }))
        .status,
      200,
      'the password of the first run still signs in',
    );
    t.like(await loadDemoCooperative(options), { kind: 'exists', why: 'loaded_earlier' });
  },
);

test(
  'four eyes: the business date moved on approvals; one ' + "request left waiting in the administrator's inbox",
  async (t) => {
    t.true(
      (await count('/api/v1/approvals/requests/', { operation: 'business_date.move', status: 'approved' })) > 0,
      'each move of the story approved by a second person',
    );
    t.is(await count('/api/v1/approvals/requests/', { status: 'pending' }), 1);
    const administrator = report.staff.find((user) => user.role === 'admin')!;
    const tokens = await app.request('POST', '/api/v1/token/', {
      json: { username: administrator.username, password: administrator.password },
    });
    const inbox = await app.request(
      'GET',
      `/api/v1/approvals/pending/?enterprise=${report.enterprise.id}&kind=approval_request`,
      { headers: { authorization: `Bearer ${tokens.body.access}` } },
    );
    t.like(inbox.body, { count: 1, results: [{ kind: 'approval_request', decision: 'approve or reject' }] });
  },
);

test(
  'a day of two tills: sessions counted, a 1 000 shortage recovered, the vault counted, both branches closed, ' +
    'the end of day moved the date',
  async (t) => {
    const { cashDay } = report;
    // What each drawer should hold, computed here: the teller took three deposits; the cashier one deposit and one
    // withdrawal.
    const tellerHolds = 150_000n + 85_000n + 40_000n;
    const cashierHolds = 300_000n - 120_000n;
    const sessions = await app.request(
      'GET',
      `/api/v1/cash/till-sessions/?enterprise=${report.enterprise.id}&business_date=${cashDay.date}`,
      { headers },
    );
    t.is(sessions.body.count, 2);
    const byId = new Map(
      (sessions.body.results as { id: string; account: string; status: string }[]).map((session) => [
        session.id,
        session,
      ]),
    );
    const trial = await app.request(
      'GET',
      `/api/v1/accounts/charts/${report.chartId}/trial-balance/?date=${cashDay.date}`,
      { headers },
    );
    const balance = (code: string) =>
      BigInt(trial.body.accounts.find((row: { code: string }) => row.code === code)?.balance ?? '0');
    const teller = byId.get(cashDay.sessions.teller)!;
    const cashier = byId.get(cashDay.sessions.cashier)!;
    t.like(teller, { status: 'closed' });
    t.like(cashier, { status: 'closed' });
    t.is(balance(teller.account), tellerHolds, "the teller's till holds what was counted");
    t.is(
      balance(cashier.account),
      cashierHolds - BigInt(cashDay.shortage),
      "the cashier's till holds what was counted, the shortage taken out",
    );
    t.is(balance('4631'), 0n, 'the shortage posted to 4631, then recovered from the cashier');
    t.is(await count('/api/v1/cash/vault-counts/'), 1, 'the vault of Akwa counted');
    t.like(cashDay.endOfDay, { status: 'done' });
    t.true((cashDay.endOfDay.next_date ?? '') > cashDay.date, 'the end of day moved the business date on');
    t.is(
      report.businessDate,
      cashDay.endOfDay.next_date ?? '',
      'the business date the demo ends on is the one the end of day moved to',
    );
    t.is(
      await count('/api/v1/cash/branch-days/', { date_from: cashDay.date, date_to: cashDay.date }),
      2,
      'both branches closed their day',
    );
  },
);

test(
  'loan officers: the branch head follows the doubtful ' + 'loan, taken over from its submitter; it counts in PAR 30',
  async (t) => {
    const { creditPortfolio } = report;
    const loan = await app.request('GET', `/api/v1/loans/loans/${creditPortfolio.reassignedLoan}/`, { headers });
    t.like(loan.body, {
      loan_officer: creditPortfolio.officer,
      officer_assignments: [{ to_officer: creditPortfolio.officer, reason: 'Recovery follow-up by the branch head' }],
    });
    t.true(
      creditPortfolio.par30.loans >= 1 && creditPortfolio.par30.ratio > '0.000000',
      JSON.stringify(creditPortfolio.par30),
    );
  },
);

test(
  'credit insurance: a product with a spread premium, its TEG within the usury rate direction set and the ' +
    'administrator approved',
  async (t) => {
    const { creditInsurance } = report;
    // 500 000 × 1.2 % = 6 000 of premium, 500 on each of the 12 installments, and a TEG within the 60.94 % of usury.
    const simulation = await app.request('POST', `/api/v1/loans/products/${creditInsurance.product}/simulation/`, {
      headers,
      json: { amount: '500000', term_periods: 12 },
    });
    t.true(
      simulation.body.insurance_premium === '6000' &&
        simulation.body.installments.every((row: { insurance: string }) => row.insurance === '500') &&
        new Money(simulation.body.teg).lte(creditInsurance.usuryRate.rate) &&
        creditInsurance.usuryRate.rate === '60.94',
      simulation.text,
    );
  },
);

test('early repayment: a loan prepaid by 30 %, its term shortened, runs on version 2 of its schedule', async (t) => {
  const { prepayment } = report;
  const versions = (await app.request('GET', `/api/v1/loans/loans/${prepayment.loan}/schedule/versions/`, { headers }))
    .body.versions as { version: number; reason: string; installments: { due_date: string }[] }[];
  t.deepEqual(
    versions.map((version) => [version.version, version.reason]),
    [
      [1, 'original'],
      [2, 'prepayment'],
    ],
  );
  const lastDue = (version: { installments: { due_date: string }[] }) => version.installments.at(-1)!.due_date;
  t.true(
    lastDue(versions[1]!) < lastDue(versions[0]!),
    `the term is shorter: ${lastDue(versions[1]!)} before ${lastDue(versions[0]!)}`,
  );
  t.like((await app.request('GET', `/api/v1/loans/loans/${prepayment.loan}/`, { headers })).body, {
    schedule_version: 2,
  });
});

test(
  'a second cooperative moved in from files by the go-live import: applied under four eyes, reconciled, its ' +
    'members, loans and deposits those of the files',
  async (t) => {
    const { goLiveImport } = report;
    const rows = (kind: string) =>
      fs
        .readFileSync(path.join(__dirname, '../scripts/demo/import-files', `${kind}.csv`), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(';'));
    const imported = await app.request('GET', `/api/v1/imports/${goLiveImport.import}/`, { headers });
    const query = `enterprise=${goLiveImport.enterprise}&page_size=100`;
    const accounts = (await app.request('GET', `/api/v1/members/accounts/?${query}`, { headers })).body.results as {
      balance: string;
    }[];
    t.deepEqual(
      {
        status: imported.body.status,
        reconciled: imported.body.reconciliation.reconciled,
        members: (await app.request('GET', `/api/v1/members/clients/?${query}`, { headers })).body.count,
        loans: (await app.request('GET', `/api/v1/loans/loans/?${query}`, { headers })).body.count,
        deposits: accounts.reduce((total, account) => total + BigInt(account.balance), 0n),
      },
      {
        status: 'applied',
        reconciled: true,
        members: rows('members').length,
        loans: rows('loans').length,
        // The balance column of the accounts file, which the trial balance's 3711 lines equal.
        deposits: rows('member-accounts').reduce((total, row) => total + BigInt(row[4]!), 0n),
      },
    );
    // IC-001's statement starts with its balance in the accounts file, at the cut-over; the imported cashier signs in.
    const ic001 = rows('member-accounts').find((row) => row[0] === 'IC-001')!;
    t.like(goLiveImport.opening, {
      account: 'IC-001',
      kind: 'import.opening_balance',
      entry_date: '2026-10-31',
      amount: ic001[4],
      description: "Solde d'ouverture à la bascule (IMPORT-2026-10-31)",
    });
    const cashier = rows('branches-users').find((row) => row[4] === 'cashier')!;
    // Its username the file's, prefixed with the cooperative's code as its staff's are.
    t.is(goLiveImport.invited.username, `demoi.${cashier[2]!}`);
    const signIn = await app.request('POST', '/api/v1/token/', {
      json: { username: goLiveImport.invited.username, password: goLiveImport.invited.password },
    });
    t.is(signIn.status, 200, signIn.text);
  },
);
