import fc from 'fast-check';
import { Money } from '../../domain/money';
import type { TestResponse } from '../helpers/app';
import { approveRequest } from '../helpers/approvals';
import { accountBalance, approvedLoan, asApprover, memberOf, type LoanWorld } from '../helpers/loans';
import { untilWorkflow } from '../helpers/until';
import { booksBreaches, footprint } from './books';

/**
 * The model of a random sequence: what the operations so far predict. Ids are the real ones, learnt when an
 * operation creates something; the amounts are predicted, never read back to be believed.
 */
export interface Model {
  accounts: { id: string; client: string }[];
  balances: Map<string, Money>;
  applications: { id: string; client: string; amount: Money; step: number }[];
  loans: { id: string; client: string; principal: Money; disbursed: boolean; closed: boolean }[];
  businessDate: string;
  lastKeyed: { account: string; amount: string; key: string } | null;
  keys: number;
  /** What the manual entries so far put on each of their accounts (debit − credit): nothing else moves them. */
  manual: Map<string, Money>;
  /**
   * Issue 29: the other branch's till, when the sequence has one: its account, its predicted book balance, its open
   * session.
   */
  till?: { account: string; book: Money; session: string | null };
}

export interface Real {
  world: LoanWorld;
  /** Every journal line seen so far: id → account, debit, credit (no posted row may change). */
  posted: Map<string, string>;
  /** The accountant who drafts manual entries, when the sequence draws them. */
  accountant?: Record<string, string>;
}

/** The user deciding each approval step, in the circuit's order. */
const approvers = ['cashier', 'branch_head', 'committee', 'direction'] as const;
/** The demo product's fee: 1 % of the principal, half-up to the franc. */
const feeRate = new Money('0.01');
/** Time may pass into 2027, opened beside 2026, which stays open: statements then carry 2026 by computation. */
const lastBusinessDate = '2027-06-30';

type Command = fc.AsyncCommand<Model, Real>;

/** How many operations of each kind ran (those whose `check` held), for the test to show what it exercised. */
export const executed = new Map<string, number>();

/** Runs an operation, then checks the books: an operation leaving them wrong fails the sequence at once. */
abstract class Operation implements Command {
  abstract check(model: Readonly<Model>): boolean;
  abstract apply(model: Model, real: Real): Promise<void>;
  abstract toString(): string;
  async run(model: Model, real: Real): Promise<void> {
    const kind = this.toString().replace(/\(.*$/, '');
    executed.set(kind, (executed.get(kind) ?? 0) + 1);
    await this.apply(model, real);
    const breaches = [
      ...(await booksBreaches(real.world, real.posted)),
      ...(await balanceBreaches(model, real)),
      ...(await tillBreaches(model, real)),
    ];
    if (breaches.length > 0) throw new Error(`after ${this.toString()}: ${breaches.join('; ')}`);
  }
}

function expectStatus(response: TestResponse, status: number, what: string): void {
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status} ${response.text}`);
}

/** A refusal: the expected status and code, and not one row more than before. */
async function expectRefusal(
  real: Real,
  send: () => Promise<TestResponse>,
  status: number,
  code: string,
  what: string,
): Promise<void> {
  const before = await footprint(real.world);
  const response = await send();
  if (response.status !== status || response.body?.code !== code)
    throw new Error(`${what}: expected ${status} ${code}, got ${response.status} ${response.text}`);
  const after = await footprint(real.world);
  if (after !== before) throw new Error(`${what} was refused but left rows: ${before} → ${after}`);
}

const post = (real: Real, as: string, path: string, json: unknown, headers: Record<string, string> = {}) =>
  real.world.app.request('POST', path, { headers: { ...real.world.users[as]!.headers, ...headers }, json });

class OpenAccount extends Operation {
  constructor(readonly initial: number) {
    super();
  }

  check = (model: Readonly<Model>) => model.accounts.length < 8;
  toString = () => `OpenAccount(${this.initial})`;
  apply = (model: Model, real: Real) => openAccount(model, real, this.initial);
}

/** A new member (inserted: registering one is not what is tested) opens an account through the API. */
export async function openAccount(model: Model, real: Real, initial: number): Promise<void> {
  const client = await memberOf(real.world);
  const response = await post(real, 'cashier', '/api/v1/members/accounts/', {
    client,
    product: real.world.savingsProductId,
    initial_deposit: String(initial),
  });
  expectStatus(response, 201, `OpenAccount(${initial})`);
  model.accounts.push({ id: response.body.id, client });
  model.balances.set(response.body.id, new Money(initial));
}

class Deposit extends Operation {
  constructor(
    readonly index: number,
    readonly amount: number,
    readonly keyed: boolean,
  ) {
    super();
  }

  check = (model: Readonly<Model>) => model.accounts.length > 0;
  toString = () => `Deposit(#${this.index}, ${this.amount}${this.keyed ? ', keyed' : ''})`;
  async apply(model: Model, real: Real) {
    const account = model.accounts[this.index % model.accounts.length]!.id;
    const key = this.keyed ? `model-${(model.keys += 1)}` : null;
    const response = await post(
      real,
      'cashier',
      `/api/v1/members/accounts/${account}/deposits/`,
      { amount: String(this.amount) },
      key === null ? {} : { 'Idempotency-Key': key },
    );
    expectStatus(response, 201, this.toString());
    model.balances.set(account, model.balances.get(account)!.plus(this.amount));
    if (key !== null) model.lastKeyed = { account, amount: String(this.amount), key };
  }
}

/** The last keyed deposit sent again: the same body answers the first result; another body is refused. */
class ReplayDeposit extends Operation {
  constructor(readonly sameBody: boolean) {
    super();
  }

  check = (model: Readonly<Model>) => model.lastKeyed !== null;
  toString = () => `ReplayDeposit(${this.sameBody ? 'same body' : 'other body'})`;
  async apply(model: Model, real: Real) {
    const { account, amount, key } = model.lastKeyed!;
    const path = `/api/v1/members/accounts/${account}/deposits/`;
    if (!this.sameBody) {
      await expectRefusal(
        real,
        () => post(real, 'cashier', path, { amount: new Money(amount).plus(1).toFixed(0) }, { 'Idempotency-Key': key }),
        409,
        'idempotency_key_reused',
        this.toString(),
      );
      return;
    }
    const before = await footprint(real.world);
    const response = await post(real, 'cashier', path, { amount }, { 'Idempotency-Key': key });
    expectStatus(response, 201, this.toString());
    if (response.headers.get('idempotent-replayed') !== 'true')
      throw new Error('a replay is not marked Idempotent-Replayed');
    if ((await footprint(real.world)) !== before) throw new Error('a replayed deposit moved money again');
  }
}

class Withdrawal extends Operation {
  constructor(
    readonly index: number,
    readonly amount: number,
  ) {
    super();
  }

  check = (model: Readonly<Model>) => model.accounts.length > 0;
  toString = () => `Withdrawal(#${this.index}, ${this.amount})`;
  async apply(model: Model, real: Real) {
    const account = model.accounts[this.index % model.accounts.length]!.id;
    const balance = model.balances.get(account)!;
    const send = () =>
      post(real, 'cashier', `/api/v1/members/accounts/${account}/withdrawals/`, { amount: String(this.amount) });
    if (balance.lt(this.amount)) return expectRefusal(real, send, 409, 'insufficient_funds', this.toString());
    expectStatus(await send(), 201, this.toString());
    model.balances.set(account, balance.minus(this.amount));
  }
}

class SubscribeShares extends Operation {
  constructor(
    readonly index: number,
    readonly shares: number,
  ) {
    super();
  }

  check = (model: Readonly<Model>) => model.accounts.length > 0;
  toString = () => `SubscribeShares(#${this.index}, ${this.shares})`;
  async apply(model: Model, real: Real) {
    const client = model.accounts[this.index % model.accounts.length]!.client;
    const response = await post(real, 'cashier', '/api/v1/shares/subscriptions/', {
      client,
      share_type: real.world.shareTypeId,
      shares: this.shares,
      channel: 'cash',
    });
    expectStatus(response, 201, this.toString());
  }
}

class SubmitApplication extends Operation {
  constructor(
    readonly index: number,
    readonly amount: number,
    readonly termPeriods: number,
  ) {
    super();
  }

  check = (model: Readonly<Model>) => model.accounts.length > 0 && model.applications.length < 2;
  toString = () => `SubmitApplication(#${this.index}, ${this.amount}, ${this.termPeriods} months)`;
  async apply(model: Model, real: Real) {
    const client = model.accounts[this.index % model.accounts.length]!.client;
    const response = await post(real, 'teller', '/api/v1/loans/applications/', {
      client,
      product: real.world.productId,
      amount: String(this.amount),
      term_periods: this.termPeriods,
      purpose: 'model',
    });
    expectStatus(response, 201, this.toString());
    model.applications.push({ id: response.body.id, client, amount: new Money(this.amount), step: 0 });
  }
}

class Decide extends Operation {
  constructor(
    readonly index: number,
    readonly decision: 'approve' | 'reject' | 'send_back',
  ) {
    super();
  }

  check = (model: Readonly<Model>) => model.applications.length > 0;
  toString = () => `Decide(#${this.index}, ${this.decision})`;
  async apply(model: Model, real: Real) {
    const application = model.applications[this.index % model.applications.length]!;
    const path = `/api/v1/loans/applications/${application.id}/decisions/`;
    const send = () => post(real, approvers[application.step]!, path, { decision: this.decision, comment: 'model' });
    if (this.decision === 'send_back' && application.step === 0)
      return expectRefusal(real, send, 409, 'nothing_to_send_back', this.toString());
    const response = await send();
    expectStatus(response, 200, this.toString());
    if (this.decision === 'send_back') application.step -= 1;
    else if (this.decision === 'approve' && application.step < approvers.length - 1) application.step += 1;
    else {
      model.applications = model.applications.filter((open) => open !== application);
      if (this.decision === 'approve') {
        const loan = response.body.loan as { id: string } | null;
        if (loan === null) throw new Error('the final approval granted no loan');
        model.loans.push({
          id: loan.id,
          client: application.client,
          principal: application.amount,
          disbursed: false,
          closed: false,
        });
      }
    }
  }
}

/** A loan approved at once (the circuit is Decide's business) and paid out to the member's account. */
export async function grantLoan(model: Model, real: Real, client: string, principal: Money): Promise<void> {
  const id = await approvedLoan(real.world, client, { amount: principal.toFixed(0), term_periods: 12 });
  model.loans.push({ id, client, principal, disbursed: false, closed: false });
  await new Disburse(model.loans.length - 1).apply(model, real);
}

class Disburse extends Operation {
  constructor(readonly index: number) {
    super();
  }

  check = (model: Readonly<Model>) => model.loans.some((loan) => !loan.disbursed);
  toString = () => `Disburse(#${this.index})`;
  async apply(model: Model, real: Real) {
    const waiting = model.loans.filter((loan) => !loan.disbursed);
    const loan = waiting[this.index % waiting.length]!;
    const account = model.accounts.find((open) => open.client === loan.client)!.id;
    const response = await post(real, 'cashier', `/api/v1/loans/loans/${loan.id}/disbursement/`, {
      channel: 'account',
      account,
    });
    expectStatus(response, 200, this.toString());
    loan.disbursed = true;
    const fees = loan.principal.times(feeRate).toDecimalPlaces(0, Money.ROUND_HALF_UP);
    model.balances.set(account, model.balances.get(account)!.plus(loan.principal).minus(fees));
  }
}

/** A repayment of a share of what is payable now, from the till or the member's account; or one franc too many. */
class Repay extends Operation {
  constructor(
    readonly index: number,
    readonly percent: number,
    readonly fromAccount: boolean,
    readonly excess: boolean,
  ) {
    super();
  }

  check = (model: Readonly<Model>) => model.loans.some((loan) => loan.disbursed && !loan.closed);
  toString = () => {
    const amount = this.excess ? 'payable + 1' : `${this.percent} %`;
    return `Repay(#${this.index}, ${amount}${this.fromAccount ? ', from the account' : ''})`;
  };
  async apply(model: Model, real: Real) {
    const open = model.loans.filter((loan) => loan.disbursed && !loan.closed);
    const loan = open[this.index % open.length]!;
    const detail = await real.world.app.request('GET', `/api/v1/loans/loans/${loan.id}/`, {
      headers: real.world.users.cashier!.headers,
    });
    const payable = new Money(detail.body.position.payable);
    const account = model.accounts.find((candidate) => candidate.client === loan.client)!.id;
    const amount = this.excess ? payable.plus(1) : Money.max(1, payable.times(this.percent).div(100).floor());
    const funding = this.fromAccount ? { channel: 'account', account } : { channel: 'cash' };
    const send = () =>
      post(real, 'cashier', '/api/v1/loans/repayments/', {
        loan: loan.id,
        amount: amount.toFixed(0),
        reference: 'model',
        ...funding,
      });
    if (this.excess) return expectRefusal(real, send, 409, 'exceeds_total_due', this.toString());
    if (this.fromAccount && model.balances.get(account)!.lt(amount))
      return expectRefusal(real, send, 409, 'insufficient_funds', this.toString());
    const response = await send();
    expectStatus(response, 201, this.toString());
    if (this.fromAccount) model.balances.set(account, model.balances.get(account)!.minus(amount));
    const after = await real.world.app.request('GET', `/api/v1/loans/loans/${loan.id}/`, {
      headers: real.world.users.cashier!.headers,
    });
    loan.closed = after.body.status === 'closed';
  }
}

class MoveBusinessDate extends Operation {
  constructor(readonly days: number) {
    super();
  }

  // The business date does not move while a till session is open (docs/domain.md §13.1).
  check = (model: Readonly<Model>) =>
    dateAfter(model.businessDate, this.days) <= lastBusinessDate && (model.till?.session ?? null) === null;
  toString = () => `MoveBusinessDate(+${this.days} days)`;
  async apply(model: Model, real: Real) {
    const date = dateAfter(model.businessDate, this.days);
    const requested = await real.world.app.request(
      'PATCH',
      `/api/v1/enterprise/enterprises/${real.world.enterpriseId}/configuration/`,
      { headers: real.world.users.direction!.headers, json: { business_date: date } },
    );
    // Under four eyes: direction asks, the administrator approves (the default policy).
    expectStatus(await approveRequest(real.world.knex, requested, asApprover(real.world)), 200, this.toString());
    model.businessDate = date;
  }
}

/** A provisioning run at the business date, through the API and its workflow, awaited to its end. */
class RunProvisioning extends Operation {
  check = (model: Readonly<Model>) => model.loans.some((loan) => loan.disbursed);
  toString = () => 'RunProvisioning()';
  async apply(_model: Model, real: Real) {
    const started = await post(real, 'direction', '/api/v1/loans/provisions/runs/', {
      enterprise: real.world.enterpriseId,
    });
    expectStatus(started, 202, this.toString());
    const run = await untilWorkflow({
      workflowId: started.body.workflow_id,
      what: `the provisioning run ${started.body.id as string}`,
      read: async () => {
        const response = await real.world.app.request('GET', `/api/v1/loans/provisions/runs/${started.body.id}/`, {
          headers: real.world.users.direction!.headers,
        });
        return response.body.status === 'running' ? undefined : response;
      },
    });
    if (run.body.status !== 'completed') throw new Error(`provisioning run ended ${run.body.status}: ${run.text}`);
  }
}

/**
 * Accounts no subledger keeps and no other operation of the model moves (docs/domain.md §12.1): a bank, expenses,
 * salaries payable, reserves, a fund, other debtors. The model predicts each one's balance from the entries alone.
 */
const manualAccounts = ['5602', '5603', '65211', '65234', '6511', '422', '111', '16300', '46800'] as const;

/**
 * A balanced manual entry at the business date, drafted by the accountant, validated by the branch head through the
 * API.
 */
class PostManualEntry extends Operation {
  constructor(
    readonly debit: number,
    readonly credit: number,
    readonly amount: number,
  ) {
    super();
  }

  check = () => true;
  toString = () => `PostManualEntry(${this.accounts().join(' / ')}, ${this.amount})`;
  /** The debited and credited accounts: the credit drawn among the other eight. */
  accounts = () =>
    [manualAccounts[this.debit % 9]!, manualAccounts[(this.debit + 1 + (this.credit % 8)) % 9]!] as const;
  async apply(model: Model, real: Real) {
    const [debit, credit] = this.accounts();
    const amount = String(this.amount);
    const lines = [
      { account: debit, branch: real.world.headOffice, debit: amount },
      { account: credit, branch: real.world.headOffice, credit: amount },
    ];
    const request = (path: string, json: unknown, headers = real.accountant!) =>
      real.world.app.request('POST', path, { headers, json });
    const drafted = await request('/api/v1/accounting/manual-entries/', {
      enterprise: real.world.enterpriseId,
      entry_date: model.businessDate,
      reference: 'OD-MODEL',
      label: this.toString(),
      lines,
    });
    expectStatus(drafted, 201, this.toString());
    const submitted = await request(`/api/v1/accounting/manual-entries/${drafted.body.id as string}/submission/`, {});
    expectStatus(submitted, 202, this.toString());
    const decided = await request(
      `/api/v1/approvals/requests/${submitted.body.id as string}/approve/`,
      { reason: 'model' },
      real.world.users.branch_head!.headers,
    );
    if (decided.body.status !== 'approved') throw new Error(`${this.toString()} not approved: ${decided.text}`);
    for (const [account, signed] of [
      [debit, this.amount],
      [credit, -this.amount],
    ] as const)
      model.manual.set(account, (model.manual.get(account) ?? new Money(0)).plus(signed));
    const ledger = await Promise.all(
      manualAccounts.map((account) => accountBalance(real.world.knex, real.world.enterpriseId, account)),
    );
    const gaps = manualAccounts.filter(
      (account, index) => ledger[index] !== (model.manual.get(account) ?? new Money(0)).toFixed(0),
    );
    if (gaps.length > 0) throw new Error(`${this.toString()}: the ledger of ${gaps.join(', ')} is not the model's`);
  }
}

function dateAfter(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

const accountOpening = fc.integer({ min: 1000, max: 300_000 }).map((initial) => new OpenAccount(initial));
const deposit = fc
  .tuple(fc.nat(), fc.integer({ min: 1, max: 2_000_000 }), fc.boolean())
  .map(([index, amount, keyed]) => new Deposit(index, amount, keyed));
const replay = fc.boolean().map((sameBody) => new ReplayDeposit(sameBody));
const withdrawal = fc
  .tuple(fc.nat(), fc.integer({ min: 1, max: 3_000_000 }))
  .map(([index, amount]) => new Withdrawal(index, amount));
const subscription = fc
  .tuple(fc.nat(), fc.integer({ min: 1, max: 3 }))
  .map(([index, shares]) => new SubscribeShares(index, shares));
const application = fc
  .tuple(fc.nat(), fc.integer({ min: 100, max: 3000 }), fc.integer({ min: 3, max: 12 }))
  .map(([index, thousands, term]) => new SubmitApplication(index, thousands * 1000, term));
const decision = fc
  .tuple(
    fc.nat(),
    fc.constantFrom('approve', 'approve', 'approve', 'approve', 'reject', 'send_back') as fc.Arbitrary<
      'approve' | 'reject' | 'send_back'
    >,
  )
  .map(([index, chosen]) => new Decide(index, chosen));
const disbursement = fc.nat().map((index) => new Disburse(index));
const repayment = fc
  .tuple(fc.nat(), fc.integer({ min: 1, max: 100 }), fc.boolean(), fc.boolean())
  .map(([index, percent, fromAccount, excess]) => new Repay(index, percent, fromAccount, excess));
const time = fc.integer({ min: 1, max: 45 }).map((days) => new MoveBusinessDate(days));

/**
 * Every operation with its arguments drawn at random. fast-check draws among them evenly: an operation listed
 * twice is drawn twice as often, so the four decisions a loan needs and the repayments come up as at a counter.
 */
export const operations = [
  accountOpening,
  deposit,
  deposit,
  replay,
  withdrawal,
  subscription,
  application,
  decision,
  decision,
  decision,
  decision,
  disbursement,
  disbursement,
  repayment,
  repayment,
  repayment,
  time,
  fc.constant(new RunProvisioning()),
];

const manualEntry = fc
  .tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 5_000_000 }))
  .map(([debit, credit, amount]) => new PostManualEntry(debit, credit, amount));

/**
 * The operations with manual entries among them. A list of its own, not an entry of `operations`: one more
 * entry there would change what its fixed seed draws.
 */
export const withManualEntries = [...operations, manualEntry, manualEntry];

/** Balances the API answers that the model does not predict. */
async function balanceBreaches(model: Model, real: Real): Promise<string[]> {
  const response = await real.world.app.request(
    'GET',
    `/api/v1/members/accounts/?enterprise=${real.world.enterpriseId}&page_size=100`,
    { headers: real.world.users.direction!.headers },
  );
  const answered = new Map(
    (response.body.results as { id: string; balance: string }[]).map((account) => [account.id, account.balance]),
  );
  return [...model.balances]
    .filter(([id, balance]) => answered.get(id) !== balance.toFixed(0))
    .map(([id, balance]) => `account ${id}: the model says ${balance.toFixed(0)}, the API ${answered.get(id)}`);
}

/*
 * Issue 29: the other branch under till control, its cashier's sessions (opened and closed with a count, the
 * difference posted), and the head office's members served at that till (serving members across branches).
 */

/** A count of `total` francs in the drawer: 10 000 notes and the rest in 1 franc coins. */
const countOf = (total: Money) => ({
  note_10000: total.divToInt(10_000).toNumber(),
  coin_1: total.mod(10_000).toNumber(),
});

class OpenTillSession extends Operation {
  constructor(readonly counted: number) {
    super();
  }

  check = (model: Readonly<Model>) => model.till !== undefined && model.till.session === null;
  toString = () => `OpenTillSession(${this.counted})`;
  async apply(model: Model, real: Real) {
    const till = model.till!;
    const response = await post(real, 'other_cashier', '/api/v1/cash/till-sessions/', {
      count: countOf(new Money(this.counted)),
    });
    expectStatus(response, 201, this.toString());
    const expected = new Money(this.counted).minus(till.book).toFixed(0);
    if (response.body.opening_difference !== expected)
      throw new Error(
        `${this.toString()}: opening difference ${response.body.opening_difference as string}, the model's ${expected}`,
      );
    model.till = { ...till, book: new Money(this.counted), session: response.body.id as string };
  }
}

class CloseTillSession extends Operation {
  constructor(readonly difference: number) {
    super();
  }

  check = (model: Readonly<Model>) =>
    (model.till?.session ?? null) !== null && model.till!.book.plus(this.difference).gte(0);
  toString = () => `CloseTillSession(${this.difference >= 0 ? '+' : ''}${this.difference})`;
  async apply(model: Model, real: Real) {
    const till = model.till!;
    const counted = till.book.plus(this.difference);
    const response = await post(real, 'other_cashier', `/api/v1/cash/till-sessions/${till.session!}/close/`, {
      count: countOf(counted),
    });
    expectStatus(response, 200, this.toString());
    if (response.body.closing_difference !== String(this.difference))
      throw new Error(`${this.toString()}: closing difference ${response.body.closing_difference as string}`);
    model.till = { ...till, book: counted, session: null };
  }
}

/** A head office member served at the other branch's till: refused without the cashier's open session. */
class ServeAcrossBranches extends Operation {
  constructor(
    readonly direction: 'deposit' | 'withdrawal',
    readonly index: number,
    readonly amount: number,
  ) {
    super();
  }

  check = (model: Readonly<Model>) => model.till !== undefined && model.accounts.length > 0;
  toString = () => `ServeAcrossBranches(${this.direction}, #${this.index}, ${this.amount})`;
  async apply(model: Model, real: Real) {
    const till = model.till!;
    const account = model.accounts[this.index % model.accounts.length]!.id;
    const balance = model.balances.get(account)!;
    const send = () =>
      post(real, 'other_cashier', `/api/v1/cash/inter-branch/${this.direction}s/`, {
        account,
        branch: real.world.otherBranch,
        amount: String(this.amount),
      });
    // The account's rules come before the till's: short funds are refused first.
    if (this.direction === 'withdrawal' && balance.lt(this.amount))
      return expectRefusal(real, send, 409, 'insufficient_funds', this.toString());
    if (till.session === null) return expectRefusal(real, send, 409, 'till_session_required', this.toString());
    expectStatus(await send(), 201, this.toString());
    const signed = this.direction === 'deposit' ? this.amount : -this.amount;
    model.balances.set(account, balance.plus(signed));
    till.book = till.book.plus(signed);
  }
}

/** The till's book balance in its branch's entries is the model's. */
async function tillBreaches(model: Model, real: Real): Promise<string[]> {
  if (model.till === undefined) return [];
  const row = await real.world
    .knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({
      'e.enterprise_id': real.world.enterpriseId,
      'e.branch_id': real.world.otherBranch,
      'c.code': model.till.account,
    })
    .first(real.world.knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  return row.balance === model.till.book.toFixed(0)
    ? []
    : [
        `till ${model.till.account}: the ledger holds ${row.balance as string}, ` +
          `the model ${model.till.book.toFixed(0)}`,
      ];
}

const tillOpening = fc.integer({ min: 0, max: 500_000 }).map((counted) => new OpenTillSession(counted));
const tillClosing = fc.integer({ min: -2000, max: 2000 }).map((difference) => new CloseTillSession(difference));
const served = fc
  .tuple(
    fc.constantFrom('deposit', 'deposit', 'withdrawal') as fc.Arbitrary<'deposit' | 'withdrawal'>,
    fc.nat(),
    fc.integer({ min: 1, max: 2_000_000 }),
  )
  .map(([direction, index, amount]) => new ServeAcrossBranches(direction, index, amount));

/**
 * The operations with the other branch's till sessions and the head office's members served there: a list of its own,
 * as the manual entries'.
 */
export const withTillsAcrossBranches = [
  ...operations,
  tillOpening,
  tillOpening,
  tillClosing,
  tillClosing,
  served,
  served,
  served,
  served,
  served,
];

/*
 * Issue 30, early repayment. The model predicts from the quote's parts, read before: a prepayment of the dues and
 * `percent` % of the principal not yet due lowers the outstanding by exactly that share (the world's product charges
 * no early-repayment fee), a payoff of the quote's total closes the loan; the member's account pays either when it
 * is the channel. 0 % is below the dues, 100 % (or anything once every installment is due) settles the loan: both
 * refused, nothing written.
 */

interface Standing {
  outstanding: Money;
  overduePrincipal: Money;
  quote: { principal: Money; interest: Money; penalties: Money; fee: Money; total: Money };
  version: number;
}

async function standingOf(real: Real, loanId: string): Promise<Standing> {
  const headers = { headers: real.world.users.cashier!.headers };
  const detail = (await real.world.app.request('GET', `/api/v1/loans/loans/${loanId}/`, headers)).body;
  const quote = (await real.world.app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/`, headers)).body;
  const parts = {
    principal: new Money(quote.principal),
    interest: new Money(quote.interest),
    penalties: new Money(quote.penalties),
    fee: new Money(quote.fee),
    total: new Money(quote.total),
  };
  const sum = parts.principal.plus(parts.interest).plus(parts.penalties).plus(parts.fee);
  if (!sum.eq(parts.total))
    throw new Error(`payoff quote of ${loanId}: its parts do not add up to ${quote.total as string}`);
  if (!parts.principal.eq(detail.outstanding_principal))
    throw new Error(
      `payoff quote of ${loanId}: principal ${quote.principal as string}, ` +
        `the loan ${detail.outstanding_principal as string}`,
    );
  const outstanding = new Money(detail.outstanding_principal);
  return {
    outstanding,
    overduePrincipal: new Money(detail.position.overdue_principal),
    quote: parts,
    version: detail.schedule_version as number,
  };
}

/** What the installments in force still owe of their principal. */
async function scheduledPrincipal(real: Real, loanId: string): Promise<Money> {
  const schedule = await real.world.app.request('GET', `/api/v1/loans/loans/${loanId}/schedule/`, {
    headers: real.world.users.cashier!.headers,
  });
  const installments = schedule.body.installments as { principal_due: string; principal_paid: string }[];
  return installments.reduce((owed, row) => owed.plus(row.principal_due).minus(row.principal_paid), new Money(0));
}

abstract class EarlyRepayment extends Operation {
  constructor(
    readonly index: number,
    readonly fromAccount: boolean,
  ) {
    super();
  }

  check = (model: Readonly<Model>) => model.loans.some((loan) => loan.disbursed && !loan.closed);
  protected openLoan(model: Model) {
    const open = model.loans.filter((loan) => loan.disbursed && !loan.closed);
    const loan = open[this.index % open.length]!;
    return { loan, account: model.accounts.find((candidate) => candidate.client === loan.client)!.id };
  }

  protected funding(account: string) {
    return this.fromAccount ? { channel: 'account', account } : { channel: 'cash' };
  }
}

class Prepay extends EarlyRepayment {
  constructor(
    index: number,
    readonly percent: number,
    fromAccount: boolean,
    readonly strategy: 'reduce_term' | 'reduce_installment',
  ) {
    super(index, fromAccount);
  }

  toString = () =>
    `Prepay(#${this.index}, ${this.percent} %, ${this.strategy}${this.fromAccount ? ', from the account' : ''})`;
  async apply(model: Model, real: Real) {
    const { loan, account } = this.openLoan(model);
    const before = await standingOf(real, loan.id);
    const ahead = before.quote.principal.minus(before.overduePrincipal);
    const share = ahead.times(this.percent).div(100).floor();
    const amount = before.quote.interest.plus(before.quote.penalties).plus(before.overduePrincipal).plus(share);
    const body = { amount: amount.toFixed(0), strategy: this.strategy, reference: 'model', ...this.funding(account) };
    const send = () => post(real, 'cashier', `/api/v1/loans/loans/${loan.id}/prepayments/`, body);
    // Nothing ahead (every installment due): any amount of the dues settles the loan.
    if (share.gte(ahead)) return expectRefusal(real, send, 409, 'prepayment_settles_loan', this.toString());
    if (share.isZero()) return expectRefusal(real, send, 422, 'prepayment_below_dues', this.toString());
    if (this.fromAccount && model.balances.get(account)!.lt(amount))
      return expectRefusal(real, send, 409, 'insufficient_funds', this.toString());
    expectStatus(await send(), 201, this.toString());
    if (this.fromAccount) model.balances.set(account, model.balances.get(account)!.minus(amount));
    const after = await standingOf(real, loan.id);
    const expected = before.outstanding.minus(before.overduePrincipal).minus(share);
    if (!after.outstanding.eq(expected))
      throw new Error(
        `${this.toString()}: outstanding ${after.outstanding.toFixed(0)}, the model's ${expected.toFixed(0)}`,
      );
    if (!(await scheduledPrincipal(real, loan.id)).eq(expected))
      throw new Error(`${this.toString()}: the new schedule does not repay ${expected.toFixed(0)}`);
    if (after.version !== before.version + 1)
      throw new Error(`${this.toString()}: schedule version ${after.version}, the model's ${before.version + 1}`);
  }
}

class PayOff extends EarlyRepayment {
  toString = () => `PayOff(#${this.index}${this.fromAccount ? ', from the account' : ''})`;
  async apply(model: Model, real: Real) {
    const { loan, account } = this.openLoan(model);
    const { quote } = await standingOf(real, loan.id);
    const send = () =>
      post(real, 'cashier', `/api/v1/loans/loans/${loan.id}/payoff/`, {
        amount: quote.total.toFixed(0),
        reference: 'model',
        ...this.funding(account),
      });
    if (this.fromAccount && model.balances.get(account)!.lt(quote.total))
      return expectRefusal(real, send, 409, 'insufficient_funds', this.toString());
    expectStatus(await send(), 201, this.toString());
    if (this.fromAccount) model.balances.set(account, model.balances.get(account)!.minus(quote.total));
    loan.closed = true;
    const after = (
      await real.world.app.request('GET', `/api/v1/loans/loans/${loan.id}/`, {
        headers: real.world.users.cashier!.headers,
      })
    ).body;
    if (after.status !== 'closed' || after.outstanding_principal !== '0')
      throw new Error(
        `${this.toString()}: the loan is ${after.status as string}, owing ${after.outstanding_principal as string}`,
      );
    if (!(await scheduledPrincipal(real, loan.id)).isZero())
      throw new Error(`${this.toString()}: installments still owe principal`);
  }
}

const prepayment = fc
  .tuple(
    fc.nat(),
    fc.integer({ min: 0, max: 100 }),
    fc.boolean(),
    fc.constantFrom('reduce_term', 'reduce_installment') as fc.Arbitrary<'reduce_term' | 'reduce_installment'>,
  )
  .map(([index, percent, fromAccount, strategy]) => new Prepay(index, percent, fromAccount, strategy));
const payoff = fc.tuple(fc.nat(), fc.boolean()).map(([index, fromAccount]) => new PayOff(index, fromAccount));

/** The operations with prepayments and payoffs among them: a list of its own, as the manual entries'. */
export const withEarlyRepayments = [...operations, prepayment, prepayment, payoff];
