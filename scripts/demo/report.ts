import type { DemoReport, EnterpriseSummary } from './load-demo';

export interface Addresses {
  api: string;
  temporalUi: string;
}

/** The Temporal UI's list of the cooperative's workflows, by the search attribute every workflow carries. */
const workflowsOf = (addresses: Addresses, enterpriseCode: string) =>
  `${addresses.temporalUi}/namespaces/default/workflows` +
  `?query=${encodeURIComponent(`CoopEnterpriseCode='${enterpriseCode}'`)}`;

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd());
}

/** The ids worth opening after a load, each a GET with what it shows: the cooperative, its loans and members. */
function membersWorthOpening(report: DemoReport, q: string): string[][] {
  const { enterprise, story, businessDate, chartId, cashDay } = report;
  return [
    ['GET', `/api/v1/enterprise/enterprises/${enterprise.id}/`, 'the cooperative'],
    ['GET', `/api/v1/accounts/charts/${chartId}/trial-balance/`, 'trial balance: debits equal credits'],
    ['GET', `/api/v1/loans/loans/${story.loans.doubtful}/`, 'a doubtful loan, never repaid, provisioned'],
    ['GET', `/api/v1/loans/loans/${story.loans.overdue}/`, 'an overdue loan: two installments paid, the third late'],
    [
      'GET',
      `/api/v1/loans/loans/${story.loans.repaidPartly}/schedule/`,
      'a loan repaid on time: its RepaymentSchedule',
    ],
    [
      'GET',
      `/api/v1/loans/loans/${story.loans.disbursed}/`,
      "paid out on the last day, granted after a send back (its application's decisions)",
    ],
    ['GET', `/api/v1/loans/loans/${story.loans.approved}/`, 'a granted loan awaiting disbursement'],
    [
      'GET',
      `/api/v1/loans/applications/${story.applications.midApproval.id}/`,
      'an application waiting for the credit committee',
    ],
    [
      'GET',
      `/api/v1/loans/applications/${story.applications.submitted.id}/`,
      'an application waiting for the cashier step',
    ],
    [
      'GET',
      `/api/v1/loans/applications/${story.applications.refused.id}/`,
      "an application refused, with the branch head's reason",
    ],
    ['GET', `/api/v1/shares/withdrawals/${story.withdrawal.id}/`, 'a share withdrawal in its notice period'],
    ['GET', `/api/v1/shares/register/?${q}&date=${businessDate}`, 'the capital register'],
    ['GET', `/api/v1/loans/provisions/totals/?${q}&as_of=${cashDay.date}`, 'provisions by class'],
    ['GET', `/api/v1/members/reconciliation/?${q}`, 'accounts against the ledger: empty'],
    ['GET', `/api/v1/members/accounts/${story.termDeposit}/`, 'a 12-month term deposit: its maturity, renewed then'],
    [
      'GET',
      `/api/v1/loans/guarantees/${story.pledge}/`,
      'a pledged deposit, asked by the branch head and confirmed by direction',
    ],
  ];
}

/** The books, the cash day and the go-live import worth opening after a load. */
function booksWorthOpening(report: DemoReport, q: string): string[][] {
  const { story, chartId, cashDay } = report;
  return [
    [
      'GET',
      `/api/v1/accounts/journal-entries/?${q}&journal=CAI&number_from=1&number_to=20`,
      'the cash journal, numbered with no gap',
    ],
    [
      'GET',
      `/api/v1/accounting/manual-entries/${story.books.openingEntry}/`,
      'the opening balance sheet, its difference on 4780 until the go-live import',
    ],
    [
      'GET',
      `/api/v1/accounting/suppliers/${story.books.suppliers.landlord}/open-items/`,
      "a supplier's open item: half the rent still owed",
    ],
    [
      'GET',
      `/api/v1/accounting/fixed-assets/${story.books.fixedAsset}/`,
      'a motorcycle of the register, its depreciation schedule',
    ],
    [
      'GET',
      `/api/v1/accounts/charts/${chartId}/general-ledger/?account_from=5603&account_to=5603`,
      'the general ledger of the bank account',
    ],
    [
      'GET',
      `/api/v1/cash/till-sessions/?${q}&business_date=${cashDay.date}`,
      `the two cashiers' sessions of ${cashDay.date}: counts and the ${cashDay.shortage} XAF shortage`,
    ],
    [
      'GET',
      `/api/v1/enterprise/end-of-days/${cashDay.endOfDay.id}/`,
      "the end of day: branches closed, the day's jobs, the date moved",
    ],
    [
      'GET',
      `/api/v1/imports/${report.goLiveImport.import}/`,
      'a second cooperative moved in from files: its go-live import, applied and reconciled',
    ],
    [
      'GET',
      `/api/v1/imports/${report.goLiveImport.import}/tie-out/`,
      "the import's tie-out: members' deposits and loans against the trial balance",
    ],
    [
      'GET',
      `/api/v1/members/accounts/${report.goLiveImport.opening.accountId}/statement/`,
      "an imported account's statement: its balance at the cut-over first",
    ],
  ];
}

/** What a newcomer needs after the load: where to look, who to sign in as, and ids worth opening. */
export function loadedReport(report: DemoReport, addresses: Addresses, seconds: number): string {
  const { enterprise, story, businessDate, cashDay } = report;
  const run = story.provisioningRun;
  const q = `enterprise=${enterprise.id}`;
  return [
    '',
    `Demo cooperative ${enterprise.code} loaded in ${seconds.toFixed(1)} s: ${enterprise.name}, business date ` +
      `${businessDate}.`,
    '',
    'Where',
    ...table([
      ['API docs', `${addresses.api}/api/v1/docs/`],
      ['API', `${addresses.api}/api/v1/`],
      ['Temporal UI', workflowsOf(addresses, enterprise.code)],
    ]),
    '',
    'Users (passwords shown this once; in the docs page, POST /api/v1/token/ with one, then Authorize with the ' +
      'access token)',
    ...table([
      ['username', 'password', 'role', 'scope', 'does'],
      ...report.staff.map((user) => [user.username, user.password, user.role, user.scope, user.duty]),
      [
        report.goLiveImport.invited.username,
        report.goLiveImport.invited.password,
        'cashier',
        'the imported cooperative',
        'brought in by its import, invited by its administrator',
      ],
    ]),
    '',
    'Worth opening',
    ...table([...membersWorthOpening(report, q), ...booksWorthOpening(report, q)]),
    '',
    'Workflows in the Temporal UI',
    ...table([
      [story.applications.midApproval.workflow_id, 'loan approval, running: decide it as the credit committee'],
      [story.withdrawal.workflow_id, 'share withdrawal, waiting out its notice'],
      [
        run.workflow_id,
        `provisioning run of ${run.as_of}: ${run.loans_processed} loans, ${run.loans_reclassified} reclassified, ` +
          `${run.amount_charged} XAF charged`,
      ],
      [
        cashDay.endOfDay.workflow_id,
        `end of day of ${cashDay.date}: ${cashDay.endOfDay.status}, each step an activity`,
      ],
    ]),
    '',
  ].join('\n');
}

const whyUntouched = {
  loaded_earlier: 'is already loaded: nothing changed. Its users, as the run that loaded it printed them:',
  story_interrupted:
    'was left halfway through its four months of business (a run stopped during the story), which a run cannot ' +
    'take up again: nothing changed. Its users:',
  not_ours:
    "exists, but no demo run of this machine (DATA_DIR) made it: nothing changed, and its users' passwords are " +
    'not known here.',
} as const;

type Untouched = {
  enterprise: EnterpriseSummary;
  why: keyof typeof whyUntouched;
  staff?: { username: string; password: string }[];
};

export function existingReport(outcome: Untouched, addresses: Addresses): string {
  const { enterprise } = outcome;
  return [
    '',
    `The demo cooperative ${enterprise.code} (${enterprise.name}, id ${enterprise.id}) ${whyUntouched[outcome.why]}`,
    ...(outcome.staff === undefined || outcome.staff.length === 0
      ? []
      : table([['username', 'password'], ...outcome.staff.map((user) => [user.username, user.password])])),
    'To load another one: DEMO_CODE=DEMO2 npm run demo',
    '',
    `  API docs      ${addresses.api}/api/v1/docs/`,
    `  Temporal UI   ${workflowsOf(addresses, enterprise.code)}`,
    '',
  ].join('\n');
}
