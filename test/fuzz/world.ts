import type { Knex } from 'knex';
import { reportingPackReports } from '../../activities/accounts/reporting-pack-reports';
import { businessDateOf } from '../../activities/enterprise/configuration.activity';
import type { TestApp } from '../helpers/app';
import { approveRequest } from '../helpers/approvals';
import {
  approvedLoan,
  asApprover,
  confirmedGuarantee,
  createLoanWorld,
  memberOf,
  openSavingsAccount,
  submitApplication,
  type LoanWorld,
} from '../helpers/loans';
import { runMonthEnd } from '../helpers/month-ends';
import { until } from '../helpers/until';
import { subscribeShares } from '../helpers/shares';
import { bearer, createUser } from '../helpers/users';
import { testClock } from '../helpers/clock';
import { importKinds } from '../../domain/imports/templates';
import { send } from './http';
import type { Operation } from './schema';
import { idsForPathParam, type IdPools } from './values';

/** Who sends the malformed requests; the session is renewed when a request of the fuzz ends it (logout). */
export interface Caller {
  name: 'admin' | 'cashier';
  username: string;
  authorization: string;
}

export interface FuzzWorld {
  enterpriseId: string;
  callers: Caller[];
  pools: IdPools;
  /**
   * Bodies the schema alone cannot make valid, by operation: the base its attacks change (a sub-account's code extends
   * its parent's).
   */
  bodies: Map<string, Record<string, unknown>>;
  /** Operations whose resource the bounded world does not build, and why: their real-id check is waived. */
  notBuilt: Map<string, string>;
}

const closedYearOnly =
  'a result allocation needs a closed year: every month end to December, the business date in the next year ' +
  'and the closing';

/** What the world leaves out: building a closed year would take longer than the whole run. */
const notBuilt = new Map(
  [
    'getResultAllocation',
    'getResultAllocationOfEnterprise',
    'cancelResultAllocation',
    'cancelResultAllocationOfEnterprise',
  ].map((id) => [id, closedYearOnly]),
);

let signIns = 0;

/** A fresh session of `caller`, from an address of its own (sign-in throttling counts by address). */
export async function signIn(app: TestApp, caller: Caller): Promise<void> {
  signIns += 1;
  caller.authorization = (
    await bearer(app, caller.username, `10.77.${Math.floor(signIns / 250)}.${signIns % 250}`)
  ).authorization!;
}

/**
 * A small world for the path parameters to point at: a cooperative ready to lend (test/helpers/loans.ts) with a
 * member's account and a withdrawal from it, an application at its first step and another of the fuzzing cashier's, a
 * loan approved through the circuit's four steps (by four users, none its submitter, none a caller), disbursed and
 * partly repaid, its guarantees (one in force, one awaiting confirmation), a share subscription with a withdrawal in
 * notice, a litigious loan made doubtful by a provisioning run, written off and recovered in part, a month end and its
 * reporting pack, an event replay, a governance organ, a four-eyes request awaiting its decision, a manual entry's
 * draft and a recurring model, a supplier with an invoice partly paid, a fixed asset, a bank account with a transfer
 * and a statement, a transfer and a standing order between members of the two branches, a deposit at the other branch's
 * counter, a till of the other branch with a closed session, a till transfer, a settled difference and a vault count, a
 * branch's day closed and an end of day waiting for the other, a usury rate, and a user with a grant; then the ids of
 * everything the lists of the document answer. The administrator also directs the cooperative, so that the direction's
 * routes reach their handlers.
 */
export async function buildWorld(app: TestApp, knex: Knex, operations: readonly Operation[]): Promise<FuzzWorld> {
  const world = await createLoanWorld(app, knex, 'FZZ');
  const { callers, callerIds } = await signInCallers(world);
  const litigious = await lend(world, callers[1]!);
  await runPeriod(world);
  await recoverWrittenOff(world, litigious);
  const direction = world.users.direction!.headers;
  await post(app, '/api/v1/events/replays/', world.users.root!.headers, {
    enterprise: world.enterpriseId,
    date_from: '2026-01-01',
    date_to: '2026-12-31',
    mode: 'dry_run',
  });
  await createOrgan(app, direction, world.enterpriseId);
  await draftManualEntries(world);
  await keepBooks(world);
  await registerFixedAsset(world);
  const statement = await keepBank(world);
  // Before the till: once the other branch has one, its cashier's cash operations need an open session.
  const transferred = await transferBetweenMembers(world);
  await serveAcrossBranches(world, transferred.from);
  await keepTill(world);
  await keepTillTransfer(world);
  // Last of the other branch's cash: its day closes once its sessions are settled and its vault counted.
  await startClosing(world);
  await setUsuryRate(world);
  await startImport(world);
  // Moving the business date waits for a second person (docs/domain.md §11): a request for the callers to decide.
  await post(
    app,
    `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
    direction,
    { business_date: '2026-11-27' },
    'PATCH',
  );
  const victim = await createUser(knex, 'fuzz_victim', [
    { role: 'cashier', enterpriseId: world.enterpriseId, branchId: world.otherBranch },
  ]);
  const grant = await knex('role_grants').where({ user_id: victim }).first('id');
  const pools = await collectIds(app, operations, callers[0]!.authorization, new Set(callerIds));
  pools.byPath.set('/api/v1/auth/users/{id}/roles/', [grant.id as string]);
  pools.known.add(grant.id as string);
  poolNamedParameters(pools, statement);
  return {
    enterpriseId: world.enterpriseId,
    callers,
    pools,
    bodies: bodiesOf(world, statement, transferred),
    notBuilt,
  };
}

/** The fuzzing callers, an administrator who also directs the cooperative and a head office cashier, signed in. */
async function signInCallers(world: LoanWorld): Promise<{ callers: Caller[]; callerIds: string[] }> {
  const callers: Caller[] = [
    { name: 'admin', username: 'fuzz_admin', authorization: '' },
    { name: 'cashier', username: 'fuzz_cashier', authorization: '' },
  ];
  const callerIds = [
    await createUser(world.knex, 'fuzz_admin', [
      { role: 'admin', enterpriseId: null, branchId: null },
      { role: 'direction', enterpriseId: world.enterpriseId, branchId: null },
    ]),
    await createUser(world.knex, 'fuzz_cashier', [
      { role: 'cashier', enterpriseId: world.enterpriseId, branchId: world.headOffice },
    ]),
  ];
  for (const caller of callers) await signIn(world.app, caller);
  return { callers, callerIds };
}

/** Issue 28: a manual entry's draft and a recurring model of it, for the routes on one entry or model. */
async function draftManualEntries(world: LoanWorld): Promise<void> {
  const direction = world.users.direction!.headers;
  const rentLines = [
    { account: '65234', branch: world.headOffice, debit: '1000' },
    { account: '5603', branch: world.headOffice, credit: '1000' },
  ];
  await post(world.app, '/api/v1/accounting/manual-entries/', direction, {
    enterprise: world.enterpriseId,
    entry_date: '2026-01-15',
    reference: 'FUZZ-1',
    label: 'Rent',
    lines: rentLines,
  });
  await post(world.app, '/api/v1/accounting/recurring-entries/', direction, {
    enterprise: world.enterpriseId,
    label: 'Monthly rent',
    reference_pattern: 'RENT-{period}',
    day_of_period: 5,
    first_period: '2026-01',
    lines: rentLines,
  });
}

/** Bodies the schema alone cannot make valid, by operation, of the world's own ids: the base its attacks change. */
function bodiesOf(
  world: LoanWorld,
  statement: { content: string },
  transferred: { from: string; to: string },
): Map<string, Record<string, unknown>> {
  return new Map<string, Record<string, unknown>>([
    ['addSubAccount', { parent_code: '3711', code: '371101', label: 'Fuzz sub-account' }],
    ['importBankStatement', { file_name: 'again.csv', content: statement.content }],
    // Issue 29: a transfer between the two members' accounts of the world, of either branch.
    ['recordMemberTransfer', { from_account: transferred.from, to_account: transferred.to, amount: '1000' }],
    // A reversal of the supplier's payment (or invoice, refused while paid) dated on the payment's day.
    ['reverseSupplierPayment', { date: '2026-10-20', reason: 'Fuzz reversal' }],
    ['reverseSupplierInvoice', { date: '2026-10-20', reason: 'Fuzz reversal' }],
    [
      'createStandingOrder',
      {
        from_account: transferred.from,
        to_account: transferred.to,
        amount: '1000',
        frequency: 'weekly',
        day: 2,
        start_date: '2026-12-01',
      },
    ],
    // Issue 29, serving members across branches: the fuzzing cashier (head office) serves the other branch's member.
    ['depositAtAnotherBranch', { account: transferred.to, branch: world.headOffice, amount: '1000' }],
    ['withdrawAtAnotherBranch', { account: transferred.to, branch: world.headOffice, amount: '10' }],
    // Issue 30: a recovery in cash at the head office's counter (on the written-off loan, or refused on a running one).
    ['recordLoanRecovery', { amount: '1000', channel: 'cash' }],
    // Issue 30, guarantors and collateral: a revaluation dated after the guarantees' valuation (their start,
    // 2026-01-01).
    ['revalueLoanGuarantee', { value: '650000', valuation_date: '2026-11-27' }],
    // Issue 30, loan officers: the loan's officer is its submitter (the teller); the branch head of its branch takes it
    // over.
    ['reassignLoanOfficer', { officer: world.users.branch_head!.id, reason: 'Fuzz reassignment' }],
    // Issue 30, early repayment: a prepayment small enough to leave the loan running.
    ['recordLoanPrepayment', { amount: '20000' }],
    // Issue 30: a usury rate from a later date than the world's own.
    [
      'setUsuryRate',
      { enterprise: world.enterpriseId, rate: '80', effective_from: '2026-12-01', source_reference: 'Fuzz rate' },
    ],
    // Issue 31: a members file (a raw CSV body: test/fuzz/attacks.ts sends `file` as it is).
    ['uploadImportFile', { file: importFile }],
  ]);
}

/** Issue 30: a usury rate, set under four eyes, high enough to refuse none of the world's loans, for its own routes. */
async function setUsuryRate(world: LoanWorld): Promise<void> {
  const usury = {
    enterprise: world.enterpriseId,
    rate: '99.00',
    effective_from: '2026-01-01',
    source_reference: 'Fuzz rate',
  };
  await approveRequest(
    world.knex,
    await world.app.request('POST', '/api/v1/loans/usury-rates/', {
      headers: world.users.direction!.headers,
      json: usury,
    }),
    asApprover(world),
  );
}

/**
 * The path parameters that are not ids of a list: a pack's report by file name, a statement and its lines, the import
 * kinds.
 */
function poolNamedParameters(pools: FuzzWorld['pools'], statement: { id: string; lineIds: string[] }): void {
  // A report of the month's pack, by its file name: the only path parameter that is not an id.
  pools.byPath.set('/api/v1/accounts/reporting-packs/{id}/files/', [`${reportingPackReports[0]!.name}.csv`]);
  pools.known.add(`${reportingPackReports[0]!.name}.csv`);
  // A statement and its lines have no list of their own: their ids come from the statement imported above.
  pools.byPath.set('/api/v1/accounting/bank-statements/', [statement.id]);
  pools.byPath.set('/api/v1/accounting/statement-lines/', statement.lineIds);
  for (const id of [statement.id, ...statement.lineIds]) pools.known.add(id);
  // Issue 31: the import kinds name a template and an import's file, like ids of the paths before `{kind}`.
  pools.byPath.set('/api/v1/imports/templates/', [...importKinds]);
  pools.byPath.set('/api/v1/imports/{id}/files/', [...importKinds]);
  for (const kind of importKinds) pools.known.add(kind);
}

/**
 * The lending side of the world. The loan goes through the real circuit, as the worker of the fuzz runs its
 * workflow: a submitter decides no step of their application, so the teller submits and the callers decide none.
 */
async function lend(world: LoanWorld, cashierCaller: Caller): Promise<string> {
  const { app } = world;
  const { cashier, direction, branchHead } = {
    cashier: world.users.cashier!.headers,
    direction: world.users.direction!.headers,
    branchHead: world.users.branch_head!.headers,
  };
  const client = await memberOf(world);
  const account = await openSavingsAccount(world, client);
  await post(app, `/api/v1/members/accounts/${account}/withdrawals/`, cashier, { amount: '5000' });
  const applied = await submitApplication(world, await memberOf(world));
  if (applied.status !== 201) throw new Error(applied.text);
  // One application of the fuzzing cashier: its submitter alone withdraws it.
  await post(
    app,
    '/api/v1/loans/applications/',
    { authorization: cashierCaller.authorization },
    {
      client: await memberOf(world),
      product: world.productId,
      amount: '300000',
      term_periods: 6,
      grace_periods: 0,
      purpose: 'stock',
    },
  );
  const loan = await approvedThroughCircuit(world, await memberOf(world));
  await post(app, `/api/v1/loans/loans/${loan}/disbursement/`, cashier, { channel: 'cash' });
  await post(app, '/api/v1/loans/repayments/', cashier, { loan, amount: '10000' });
  // Issue 30: a partial prepayment, so that the prepayments' routes on one id reach their handlers.
  await post(app, `/api/v1/loans/loans/${loan}/prepayments/`, cashier, { amount: '50000' });
  // Started before the plausible end date the fuzzer sends (2026-01-15), so that ending one reaches its rules.
  await confirmedGuarantee(world, { loan, kind: 'mortgage', value: '600000', start_date: '2026-01-01' });
  await post(app, '/api/v1/loans/guarantees/', branchHead, {
    loan,
    kind: 'mortgage',
    value: '300000',
    start_date: '2026-01-01',
  });
  // Issue 30: a guarantor member whose savings are held for the loan (docs/domain.md §14.4).
  const guarantor = await memberOf(world);
  await post(app, '/api/v1/loans/guarantees/', cashier, {
    loan,
    kind: 'personal_guarantor',
    value: '20000',
    guarantor,
    account: await openSavingsAccount(world, guarantor),
    start_date: '2026-01-01',
  });
  const subscription = await subscribeShares(world, client, { share_type: world.shareTypeId, shares: 2 });
  await post(app, '/api/v1/shares/withdrawals/', cashier, { subscription: subscription.id, shares: 1 });
  // Issue 30: a loan of its own borrower flagged litigious, doubtful at the run below, then written off
  // (recoverWrittenOff).
  const litigious = await approvedLoan(world, await memberOf(world), { amount: '100000', term_periods: 6 });
  await post(app, `/api/v1/loans/loans/${litigious}/disbursement/`, cashier, { channel: 'cash' });
  await post(app, `/api/v1/loans/loans/${litigious}/litigation/`, branchHead, {
    litigious: true,
    reason: 'fuzz world: in court',
  });
  await post(app, '/api/v1/loans/provisions/runs/', direction, { enterprise: world.enterpriseId });
  // Issue 30: a restructuring waiting for its decision, so that its detail and decision routes have an id.
  await post(app, `/api/v1/loans/loans/${loan}/restructurings/`, branchHead, {
    term_periods: 6,
    annual_rate: '0.18',
    reason: 'fuzz world: a pending restructuring',
  });
  return litigious;
}

/**
 * Issue 30: the litigious loan, once the run has made it doubtful, written off (the branch head proposes, the
 * direction approves) and a recovery on it: the recoveries' list gives a real id.
 */
async function recoverWrittenOff(world: LoanWorld, loanId: string): Promise<void> {
  await until(
    'the litigious loan doubtful',
    async () => (await world.knex('loans').where({ id: loanId }).first('classification')).classification === 'doubtful',
  );
  const proposed = await world.app.request('POST', `/api/v1/loans/loans/${loanId}/write-off/`, {
    headers: world.users.branch_head!.headers,
    json: {},
  });
  const written = await approveRequest(world.knex, proposed, { id: world.users.direction!.id, roles: ['direction'] });
  if (written.status !== 200) throw new Error(`the write-off: ${written.text}`);
  await post(world.app, `/api/v1/loans/loans/${loanId}/recoveries/`, world.users.cashier!.headers, {
    amount: '5000',
    reference: 'FZ-RC',
  });
}

/** A loan approved step by step through the API by the world's cashier, branch head, committee and direction. */
async function approvedThroughCircuit(world: LoanWorld, clientId: string): Promise<string> {
  const submitted = await submitApplication(world, clientId);
  if (submitted.status !== 201) throw new Error(submitted.text);
  const path = `/api/v1/loans/applications/${submitted.body.id as string}/`;
  for (const decider of ['cashier', 'branch_head', 'committee', 'direction']) {
    await post(world.app, `${path}decisions/`, world.users[decider]!.headers, {
      decision: 'approve',
      comment: `fuzz world: ${decider}`,
    });
  }
  const approved = await world.app.request('GET', path, { headers: world.users.direction!.headers });
  if (approved.body.status !== 'approved') throw new Error(`the circuit did not approve: ${approved.text}`);
  return (approved.body.loan as { id: string }).id;
}

/** Last month's month end, waited for with the reporting pack it starts (the worker of the fuzz runs both). */
async function runPeriod(world: LoanWorld): Promise<void> {
  const monthEnd = await runMonthEnd(world, '2026-10');
  if (monthEnd.body.status !== 'done') throw new Error(`month end: ${monthEnd.text}`);
  const packs = `/api/v1/accounts/reporting-packs/?enterprise=${world.enterpriseId}`;
  await until("the month's reporting pack", async () =>
    (
      (await world.app.request('GET', packs, { headers: world.users.direction!.headers })).body.results as {
        status: string;
      }[]
    ).some((pack) => pack.status !== 'running'),
  );
}

/** A setting made through the API: refused is a broken world, not a finding. */
async function post(
  app: TestApp,
  path: string,
  headers: Record<string, string>,
  json: unknown,
  method = 'POST',
): Promise<{ id: string }> {
  const response = await app.request(method, path, { headers, json });
  if (response.status < 200 || response.status > 299)
    throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
  return response.body;
}

/** A supplier with an invoice booked and partly paid, each approved by the platform's administrator (four eyes). */
async function keepBooks(world: LoanWorld): Promise<void> {
  const { app, knex } = world;
  const direction = world.users.direction!.headers;
  const supplier = await post(app, '/api/v1/accounting/suppliers/', direction, {
    enterprise: world.enterpriseId,
    branch: world.headOffice,
    name: 'Fuzz supplier',
  });
  const approved = async (path: string, json: unknown) => {
    const answer = await approveRequest(
      knex,
      await app.request('POST', path, { headers: direction, json }),
      asApprover(world),
    );
    if (answer.status !== 200) throw new Error(`${path}: ${answer.text}`);
  };
  await approved('/api/v1/accounting/supplier-invoices/', {
    supplier: supplier.id,
    number: 'FZZ-1',
    invoice_date: '2026-10-15',
    due_date: '2026-10-31',
    label: 'Rent',
    amount: '50000',
    lines: [{ account: '65234', amount: '50000', label: 'Rent' }],
  });
  const invoice = await knex('supplier_invoices').where({ supplier_id: supplier.id }).first('id');
  await approved('/api/v1/accounting/supplier-payments/', {
    supplier: supplier.id,
    payment_date: '2026-10-20',
    amount: '20000',
    paying_account: '5710',
    allocations: [{ invoice: invoice.id, amount: '20000' }],
  });
}

/** A fixed asset of the register (issue 28, part 4): its category, and its acquisition approved by a second person. */
async function registerFixedAsset(world: LoanWorld): Promise<void> {
  const direction = world.users.direction!.headers;
  const category = await post(world.app, '/api/v1/accounting/fixed-asset-categories/', direction, {
    enterprise: world.enterpriseId,
    name: 'Matériel de transport',
    depreciation_months: 36,
    asset_account: '225',
    depreciation_account: '2825',
    charge_account: '6824',
  });
  // Bought before the plausible date the fuzzer sends (2026-01-15), so that a disposal on it reaches its rules.
  const json = {
    category: category.id,
    branch: world.headOffice,
    label: 'Moto',
    acquisition_date: '2026-01-02',
    cost: '1500000',
    funding_account: '5710',
  };
  const approved = await approveRequest(
    world.knex,
    await world.app.request('POST', '/api/v1/accounting/fixed-assets/', { headers: direction, json }),
    asApprover(world),
  );
  if (approved.status !== 200) throw new Error(`the fixed asset: ${approved.text}`);
}

/**
 * A bank account (issue 28, part 6) with a transfer from the till approved by a second person and a statement of it
 * imported.
 */
async function keepBank(world: LoanWorld): Promise<{ id: string; lineIds: string[]; content: string }> {
  const direction = world.users.direction!.headers;
  const bank = await post(world.app, '/api/v1/accounting/bank-accounts/', direction, {
    enterprise: world.enterpriseId,
    bank_name: 'Fuzz Bank',
    account_number: 'FZ-001',
    parent_account: '5602',
  });
  const transfer = {
    enterprise: world.enterpriseId,
    branch: world.headOffice,
    transfer_date: '2026-01-10',
    to_bank_account: bank.id,
    amount: '10000',
    reference: 'FZ-DEP',
  };
  const approved = await approveRequest(
    world.knex,
    await world.app.request('POST', '/api/v1/accounting/treasury-transfers/', { headers: direction, json: transfer }),
    asApprover(world),
  );
  if (approved.status !== 200) throw new Error(`the transfer: ${approved.text}`);
  const csv = [
    'date;label;reference;debit;credit;balance',
    '11/01/2026;VERSEMENT;FZ-DEP;;10000;10000',
    '12/01/2026;FRAIS;;500;;9500',
  ].join('\r\n');
  const content = Buffer.from(csv).toString('base64');
  const statement = await post(
    world.app,
    `/api/v1/accounting/bank-accounts/${bank.id as string}/statements/`,
    direction,
    { file_name: 'fuzz.csv', content },
  );
  const lineIds = (await world
    .knex('bank_statement_lines')
    .where({ statement_id: statement.id })
    .pluck('id')) as string[];
  return { id: statement.id as string, lineIds, content };
}

/**
 * A till of the other branch (issue 29), assigned to its cashier, with a session opened and closed: the lists of
 * tills and sessions give real ids. The other branch, not the head office, so the fuzzing cashier needs no session.
 */
async function keepTill(world: LoanWorld): Promise<void> {
  const cashier = world.users.other_cashier!;
  await post(world.app, '/api/v1/cash/tills/', world.users.other_head!.headers, {
    enterprise: world.enterpriseId,
    branch: world.otherBranch,
    code: 'FZ1',
    label: 'Fuzz till',
    cashier: cashier.id,
  });
  const session = await post(world.app, '/api/v1/cash/till-sessions/', cashier.headers, { count: { note_1000: 2 } });
  await post(world.app, `/api/v1/cash/till-sessions/${session.id as string}/close/`, cashier.headers, {
    count: { note_1000: 2 },
  });
}

/**
 * Inter-branch service allowed, and a deposit of a head office member at the other branch's counter (issue 29): the
 * operations' list gives its id.
 */
async function serveAcrossBranches(world: LoanWorld, headOfficeAccount: string): Promise<void> {
  await post(
    world.app,
    `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
    world.users.direction!.headers,
    { inter_branch_service: true },
    'PATCH',
  );
  await post(world.app, '/api/v1/cash/inter-branch/deposits/', world.users.other_cashier!.headers, {
    account: headOfficeAccount,
    branch: world.otherBranch,
    amount: '2000',
    reference: 'FZ-IB',
  });
}

/**
 * Two members' accounts, of the two branches, a transfer and a standing order between them (issue 29): their lists give
 * their ids.
 */
async function transferBetweenMembers(world: LoanWorld): Promise<{ from: string; to: string }> {
  const from = await openSavingsAccount(world, await memberOf(world), '200000');
  const client = await memberOf(world, world.otherBranch);
  const to = await post(world.app, '/api/v1/members/accounts/', world.users.other_cashier!.headers, {
    client,
    product: world.savingsProductId,
    initial_deposit: '1000',
  });
  await post(world.app, '/api/v1/cash/transfers/', world.users.cashier!.headers, {
    from_account: from,
    to_account: to.id,
    amount: '5000',
    reference: 'FZ-TR',
  });
  await post(world.app, '/api/v1/cash/standing-orders/', world.users.cashier!.headers, {
    from_account: from,
    to_account: to.id,
    amount: '1000',
    frequency: 'monthly',
    day: 5,
    start_date: '2026-12-01',
  });
  return { from, to: to.id as string };
}

/**
 * Issue 29: the second branch's day closed and the end of day of the business date started, waiting for the head
 * office's close, which never comes: an id for the routes of each, and no day closed under the fuzzer's dates.
 */
async function startClosing(world: LoanWorld): Promise<void> {
  const date = await businessDateOf(world.knex, world.enterpriseId, testClock());
  await post(world.app, '/api/v1/cash/branch-days/', world.users.other_head!.headers, {
    enterprise: world.enterpriseId,
    branch: world.otherBranch,
    date,
  });
  await post(world.app, '/api/v1/enterprise/end-of-days/', world.users.direction!.headers, {
    enterprise: world.enterpriseId,
  });
}

/**
 * Issue 29, §13.2: a dégagement of that till left pending, its session closed after the request; the excess of the
 * till's first opening settled (four eyes); the other branch's vault counted. Their lists give real ids, and a
 * confirmation or cancellation reaches its handler.
 */
async function keepTillTransfer(world: LoanWorld): Promise<void> {
  const cashier = world.users.other_cashier!;
  const head = world.users.other_head!.headers;
  const session = await post(world.app, '/api/v1/cash/till-sessions/', cashier.headers, { count: { note_1000: 2 } });
  const till = (session as { till?: string }).till!;
  await post(world.app, '/api/v1/cash/till-transfers/', cashier.headers, {
    till,
    kind: 'to_vault',
    amount: '1000',
    count: { note_1000: 1 },
  });
  await post(world.app, `/api/v1/cash/till-sessions/${session.id as string}/close/`, cashier.headers, {
    count: { note_1000: 1 },
  });
  const first = await world
    .knex('till_sessions')
    .where({ till_id: till })
    .whereNotNull('opening_entry_id')
    .first('opening_entry_id');
  const settlement = { enterprise: world.enterpriseId, difference_entry: first.opening_entry_id, mode: 'written_off' };
  const approved = await approveRequest(
    world.knex,
    await world.app.request('POST', '/api/v1/cash/difference-settlements/', { headers: head, json: settlement }),
    asApprover(world),
  );
  if (approved.status !== 200) throw new Error(`the settlement: ${approved.text}`);
  await post(world.app, '/api/v1/cash/vault-counts/', head, {
    enterprise: world.enterpriseId,
    branch: world.otherBranch,
    count: {},
  });
}

/**
 * Issue 31: a go-live import with a members file uploaded, for the routes on one import (its id comes from the list).
 */
const importFile =
  'member_number;branch_code;kind;first_name;last_name;legal_name;' +
  'id_document_type;id_document_number;birth_date;gender;phone;address;membership_date\n' +
  'F001;HQ;natural_person;Awa;Fuzz;;national_id;FZ001;1990-01-01;female;;;2020-01-01\n';

async function startImport(world: LoanWorld): Promise<void> {
  const headers = world.users.direction!.headers;
  const created = await post(world.app, '/api/v1/imports/', headers, {
    enterprise: world.enterpriseId,
    cut_over_date: '2026-10-31',
  });
  const uploaded = await world.app.request('PUT', `/api/v1/imports/${created.id}/files/members/`, {
    headers: { ...headers, 'content-type': 'text/csv' },
    body: importFile,
  });
  if (uploaded.status !== 200) throw new Error(`the import's upload: ${uploaded.text}`);
}

async function createOrgan(app: TestApp, headers: Record<string, string>, enterpriseId: string): Promise<void> {
  const organ = await post(app, '/api/v1/enterprise/governance/', headers, {
    enterprise: enterpriseId,
    kind: 'board_of_directors',
    name: 'Conseil',
  });
  await post(app, `/api/v1/enterprise/governance/${organ.id}/members/`, headers, {
    full_name: 'Awa Member',
    office: 'chair',
    term_start: '2026-01-15',
  });
}

/**
 * Reads every list of the document as the administrator, first those without path parameters, then the
 * nested ones with ids found by the first: the ids of real resources, by list. The callers' own accounts are
 * left out, so that no fuzzed request deactivates the very user sending the requests.
 */
async function collectIds(
  app: TestApp,
  operations: readonly Operation[],
  authorization: string,
  protectedIds: Set<string>,
): Promise<IdPools> {
  const pools: IdPools = { byPath: new Map(), bySegment: new Map(), known: new Set() };
  const lists = operations.filter((op) => op.method === 'GET' && op.isList);
  for (const op of [
    ...lists.filter((list) => list.pathParams.length === 0),
    ...lists.filter((list) => list.pathParams.length > 0),
  ]) {
    const values = op.pathParams.map((parameter) => idsForPathParam(pools, op.path, parameter.name)[0]);
    if (values.some((value) => value === undefined)) continue;
    const path = op.pathParams.reduce(
      (filled, parameter, index) => filled.replace(`{${parameter.name}}`, values[index]!),
      op.path,
    );
    const answer = await send(app.baseUrl, {
      method: 'GET',
      target: `${path}?page_size=100`,
      headers: { authorization },
    });
    if (answer.status !== 200) continue;
    const ids = (JSON.parse(answer.text) as { results: { id?: unknown }[] }).results
      .map((row) => row.id)
      .filter((id): id is string => typeof id === 'string' && !protectedIds.has(id));
    if (ids.length === 0) continue;
    const segment = op.path
      .split('/')
      .filter((part) => part !== '')
      .at(-1)!;
    pools.byPath.set(op.path, ids);
    pools.bySegment.set(segment, [...(pools.bySegment.get(segment) ?? []), ...ids]);
    for (const id of ids) pools.known.add(id);
  }
  return pools;
}
