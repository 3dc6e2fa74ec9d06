import type { Knex } from 'knex';
import { recordLoanDecision } from '../../activities/loans/loan-approval.activity';
import type { TestApp } from './app';
import { approveRequest } from './approvals';
import { insertClient } from './mothers';
import { createShareType, subscribeShares } from './shares';
import { bearer, createUser } from './users';
import { testClock } from './clock';

/**
 * A cooperative ready to lend, built through the API: head office and a second branch, one user per role of
 * the approval circuit, a CTA loan product, a savings product, and paid-up share capital of 1 000 000 000 XAF
 * subscribed and paid through the shares API (so the 10 % cap is 100 000 000 XAF).
 */
export interface LoanWorld {
  app: TestApp;
  knex: Knex;
  enterpriseId: string;
  headOffice: string;
  otherBranch: string;
  productId: string;
  savingsProductId: string;
  rootId: string;
  users: Record<string, { id: string; headers: Record<string, string> }>;
  /** The ordinary shares (002) of the enterprise, of 1 000 000 XAF. */
  shareTypeId: string;
}

let addressCount = 0;

export async function createLoanWorld(
  app: TestApp,
  knex: Knex,
  code: string,
  options: { capital?: boolean } = {},
): Promise<LoanWorld> {
  const rootName = `root_${code.toLowerCase()}`;
  const rootId = await createUser(knex, rootName, [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const root = await bearer(app, rootName, nextAddress());
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: { code, name: `Coop ${code}`, legal_form: 'C', country: 'CM' },
  });
  if (created.status !== 201) throw new Error(created.text);
  const enterpriseId = created.body.id as string;
  const headOffice = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')).id as string;
  const otherBranch = (
    await app.request('POST', '/api/v1/enterprise/branches/', {
      headers: root,
      json: { enterprise: enterpriseId, code: 'B2', name: 'Branch two' },
    })
  ).body.id as string;
  const users = await createCircuitUsers(app, knex, code, { enterpriseId, headOffice, otherBranch });
  users.root = { id: rootId, headers: root };
  const { productId, savingsProductId } = await createProducts(app, users.direction!.headers, enterpriseId);
  const world: LoanWorld = {
    app,
    knex,
    enterpriseId,
    headOffice,
    otherBranch,
    productId,
    savingsProductId,
    rootId,
    users,
    shareTypeId: '',
  };
  // The paid-up capital the 10 % credit cap reads: one member subscribes and pays 1 000 shares of 1 000 000 XAF.
  world.shareTypeId = await createShareType(world, { code: '002', nominal_value: '1000000', max_shares: 10000 });
  if (options.capital ?? true)
    await subscribeShares(world, await memberOf(world), { share_type: world.shareTypeId, shares: 1000 });
  return world;
}

/** One user per role of the approval circuit, and the cashiers and heads of both branches, signed in. */
async function createCircuitUsers(
  app: TestApp,
  knex: Knex,
  code: string,
  { enterpriseId, headOffice, otherBranch }: Pick<LoanWorld, 'enterpriseId' | 'headOffice' | 'otherBranch'>,
): Promise<LoanWorld['users']> {
  const users: LoanWorld['users'] = {};
  const grantsOf = {
    cashier: [{ role: 'cashier', branchId: headOffice }],
    // A second cashier of the head office: submits applications, which their submitter may not decide.
    teller: [{ role: 'cashier', branchId: headOffice }],
    branch_head: [{ role: 'branch_head', branchId: headOffice }],
    committee: [{ role: 'credit_committee', branchId: null }],
    direction: [{ role: 'direction', branchId: null }],
    other_cashier: [{ role: 'cashier', branchId: otherBranch }],
    other_head: [{ role: 'branch_head', branchId: otherBranch }],
    cashier_and_head: [
      { role: 'cashier', branchId: headOffice },
      { role: 'branch_head', branchId: headOffice },
    ],
  } as const;
  for (const [name, grants] of Object.entries(grantsOf)) {
    const username = `${name}_${code.toLowerCase()}`;
    const id = await createUser(
      knex,
      username,
      grants.map((grant) => ({ role: grant.role, enterpriseId, branchId: grant.branchId })),
    );
    users[name] = { id, headers: await bearer(app, username, nextAddress()) };
  }
  return users;
}

/** The world's CTA loan product and its demand deposit savings product, made by the direction. */
async function createProducts(
  app: TestApp,
  direction: Record<string, string>,
  enterpriseId: string,
): Promise<Pick<LoanWorld, 'productId' | 'savingsProductId'>> {
  const product = await app.request('POST', '/api/v1/loans/products/', {
    headers: direction,
    json: {
      enterprise: enterpriseId,
      code: 'CRT',
      name: 'Crédit de trésorerie',
      term_category: 'cta',
      method: 'constant_annuity',
      annual_rate: '0.18',
      min_amount: '50000',
      max_amount: '200000000',
      min_term_periods: 1,
      max_term_periods: 24,
      max_grace_periods: 3,
      fee_rate: '0.01',
      penalty_rate: '0.12',
    },
  });
  if (product.status !== 201) throw new Error(product.text);
  const savings = await app.request('POST', '/api/v1/members/products/', {
    headers: direction,
    json: {
      enterprise: enterpriseId,
      code: 'EPA',
      name: 'Épargne à vue',
      kind: 'demand_deposit',
      deposit_account_code: '3711',
    },
  });
  if (savings.status !== 201) throw new Error(savings.text);
  return { productId: product.body.id as string, savingsProductId: savings.body.id as string };
}

function nextAddress(): string {
  addressCount += 1;
  return `10.60.${Math.floor(addressCount / 250)}.${addressCount % 250}`;
}

/**
 * Worlds made one after another by a test file, each its own enterprise coded `{prefix}{n}`, its business date put
 * straight in its configuration (no request, no four eyes): what each file of guarantees, insurance and prepayments
 * made alike.
 */
export function numberedWorlds(prefix: string, businessDate: string): (app: TestApp, knex: Knex) => Promise<LoanWorld> {
  let count = 0;
  return async (app, knex) => {
    count += 1;
    const created = await createLoanWorld(app, knex, `${prefix}${count}`);
    await knex('enterprise_configurations')
      .where({ enterprise_id: created.enterpriseId })
      .update({ business_date: businessDate });
    return created;
  };
}

export const memberOf = (world: LoanWorld, branchId = world.headOffice) =>
  insertClient(world.knex, world.enterpriseId, branchId, world.rootId);

export async function submitApplication(
  world: LoanWorld,
  clientId: string,
  terms: { amount?: string; term_periods?: number; grace_periods?: number } = {},
  as = 'teller',
) {
  return world.app.request('POST', '/api/v1/loans/applications/', {
    headers: world.users[as]!.headers,
    json: {
      client: clientId,
      product: world.productId,
      amount: terms.amount ?? '1200000',
      term_periods: terms.term_periods ?? 12,
      grace_periods: terms.grace_periods ?? 0,
      purpose: 'stock',
    },
  });
}

/**
 * An approved loan awaiting disbursement, for tests of what follows approval: the application is submitted
 * through the API (no worker polls its queue), then the final approval is persisted by the workflow's own
 * activity, as the workflow would after the four decisions.
 */
export async function approvedLoan(
  world: LoanWorld,
  clientId: string,
  terms: { amount?: string; term_periods?: number; grace_periods?: number } = {},
  submitter = 'teller',
): Promise<string> {
  const submitted = await submitApplication(world, clientId, terms, submitter);
  if (submitted.status !== 201) throw new Error(submitted.text);
  const recorded = await recordLoanDecision(world.knex, testClock(), {
    applicationId: submitted.body.id,
    idempotencyKey: `test:${submitted.body.id}`,
    step: 'direction',
    decision: 'approve',
    deciderId: world.users.direction!.id,
    comment: '',
    requestId: null,
    statusAfter: 'approved',
    stepAfter: null,
  });
  if (recorded.outcome !== 'recorded') throw new Error(`approval refused: ${recorded.code}`);
  return recorded.loanId!;
}

export async function openSavingsAccount(
  world: LoanWorld,
  clientId: string,
  initialDeposit = '100000',
): Promise<string> {
  const response = await world.app.request('POST', '/api/v1/members/accounts/', {
    headers: world.users.cashier!.headers,
    json: { client: clientId, product: world.savingsProductId, initial_deposit: initialDeposit },
  });
  if (response.status !== 201) throw new Error(response.text);
  return response.body.id as string;
}

/**
 * A covering guarantee in force, through the four-eyes flow: asked by the head office's branch head (a request,
 * `guarantee.change`), approved by the direction (docs/domain.md §4). Its representation once in force.
 */
export async function confirmedGuarantee(
  world: LoanWorld,
  json: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const added = await world.app.request('POST', '/api/v1/loans/guarantees/', {
    headers: world.users.branch_head!.headers,
    json,
  });
  if (added.status !== 202) throw new Error(`guarantee not asked under four eyes: ${added.text}`);
  await approveRequest(world.knex, added, { id: world.users.direction!.id, roles: ['direction'] });
  const guarantee = await world.app.request(
    'GET',
    `/api/v1/loans/guarantees/${added.body.payload.guaranteeId as string}/`,
    { headers: world.users.direction!.headers },
  );
  return guarantee.body as Record<string, unknown>;
}

/**
 * Moves the business date forward through the API. A new world follows the calendar (no date set): its first
 * placement may be earlier than today, which the API refuses, so that one is put as a test setting. Tests written
 * with literal dates then pass on any day of their year, not only before those dates.
 */
export async function setBusinessDate(world: LoanWorld, date: string): Promise<void> {
  const configuration = await world
    .knex('enterprise_configurations')
    .where({ enterprise_id: world.enterpriseId })
    .first('business_date');
  if (configuration?.business_date === null && date < testClock().toISOString().slice(0, 10))
    return putBusinessDate(world, date);
  const response = await world.app.request(
    'PATCH',
    `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
    { headers: world.users.direction!.headers, json: { business_date: date } },
  );
  // Moved by direction, approved by the platform's administrator: the default policy's four eyes.
  if ((await approveRequest(world.knex, response, asApprover(world))).status !== 200) throw new Error(response.text);
}

/** The second pair of eyes of a world's sensitive changes: its platform administrator. */
export const asApprover = (world: LoanWorld) => ({ id: world.rootId, roles: ['admin'] as const });

/**
 * Puts the business date anywhere, back in time too (a test setting, not the API's forward-only move), and
 * opens the accounting year holding it when the enterprise has none.
 */
export async function putBusinessDate(world: LoanWorld, date: string): Promise<void> {
  const year = date.slice(0, 4);
  await world
    .knex('exercices_comptables')
    .insert({ enterprise_id: world.enterpriseId, code: year, start_date: `${year}-01-01`, end_date: `${year}-12-31` })
    .onConflict(['enterprise_id', 'code'])
    .ignore();
  await world
    .knex('enterprise_configurations')
    .where({ enterprise_id: world.enterpriseId })
    .update({ business_date: date });
}

/** Debits equal credits over the enterprise's whole ledger. */
export async function ledgerBalanced(knex: Knex, enterpriseId: string): Promise<boolean> {
  const totals = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where('e.enterprise_id', enterpriseId)
    .first(knex.raw('sum(l.debit)::text AS debit'), knex.raw('sum(l.credit)::text AS credit'));
  return totals.debit === totals.credit;
}

/** Balance (debit − credit) of an account code over the enterprise's ledger. */
export async function accountBalance(knex: Knex, enterpriseId: string, code: string): Promise<string> {
  const row = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({ 'e.enterprise_id': enterpriseId, 'c.code': code })
    .first(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  return row.balance as string;
}
