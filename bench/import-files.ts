import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import Decimal from 'decimal.js';
import type { Knex } from 'knex';
import { subledgerAccounts } from '../activities/accounting/subledger-accounts';
import { columnNames, type ImportKind } from '../domain/imports/templates';

/**
 * The go-live import's files of a made-up cooperative (issue 31's benchmark, docs/domain.md §15.4): members,
 * their accounts, loans in progress and a trial balance, written as CSV files row by row (never whole in
 * memory), deterministic for a seed. Consistent: every account's and loan's member is in the members file, each
 * branch's trial balance is balanced, and its line on a product's chart account is what that branch's accounts
 * (their balances) or loans (their outstanding principal) add up to, as the tie-out compares them: per branch and
 * chart account, debit − credit.
 */

/** The enterprise's codes the files use, so that they validate clean against it. */
export interface EnterpriseCodes {
  branches: readonly string[];
  savingsProducts: readonly { code: string; kind: string; accountCode: string }[];
  loanProducts: readonly { code: string; accountCode: string; minTerm: number; maxTerm: number }[];
  /** Accounts of the chart that no subledger keeps, that can be posted to: the trial balance's other lines. */
  otherAccounts: readonly string[];
}

export interface CooperativeSize {
  members: number;
  accounts: number;
  loans: number;
  trialBalanceLines: number;
}

/**
 * Issue 31's cooperative: 50 000 members, 80 000 accounts, 10 000 loans in progress, a 400-line trial balance. The
 * 300 000 installments follow from the terms: 30 a loan on average when the enterprise has a short-term product
 * (12 to 24 months) and a medium-term one (36 to 48), as the import bench seeds (`loanTerms`).
 */
export const issueSize: CooperativeSize = { members: 50_000, accounts: 80_000, loans: 10_000, trialBalanceLines: 400 };

export interface GeneratedFiles {
  /** The CSV file of each kind written, in the order to upload them. */
  files: { kind: ImportKind; file: string; rows: number }[];
  /** Per branch and chart account, debit − credit of the detail: what the trial balance carries for it. */
  detail: Map<string, Decimal>;
}

/** The enterprise's branches, products and postable accounts outside the subledgers, read from its tables. */
export async function enterpriseCodes(knex: Knex, enterpriseId: string): Promise<EnterpriseCodes> {
  const kept = await subledgerAccounts(knex, enterpriseId);
  const leaves = (await knex('company_chart_entries as c')
    .where({ 'c.enterprise_id': enterpriseId, 'c.is_active': true })
    .where('c.class', '<=', 5)
    .whereNotExists(knex('company_chart_entries as d').whereRaw('d.chart_id = c.chart_id AND d.parent_code = c.code'))
    .orderBy('c.code')
    .pluck('c.code')) as string[];
  return {
    branches: (await knex('branches').where({ enterprise_id: enterpriseId }).orderBy('code').pluck('code')) as string[],
    savingsProducts: await knex('savings_products')
      .where({ enterprise_id: enterpriseId })
      .orderBy('code')
      .select('code', 'kind', 'deposit_account_code as accountCode'),
    loanProducts: await knex('loan_products')
      .where({ enterprise_id: enterpriseId })
      .orderBy('code')
      .select(
        'code',
        'portfolio_account_code as accountCode',
        'min_term_periods as minTerm',
        'max_term_periods as maxTerm',
      ),
    otherAccounts: leaves.filter((code) => !kept.has(code)),
  };
}

/** A small, fast generator of 32-bit states (mulberry32): the same seed, the same files. */
function randomOf(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return {
    below: (count: number) => Math.floor(next() * count),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}

type Random = ReturnType<typeof randomOf>;

/**
 * A CSV file of a kind: the template's header, `;`, cells quoted when they hold `;`, a quote or a line end; written
 * with backpressure.
 */
class CsvFile {
  readonly columns: string[];
  private readonly stream: fs.WriteStream;
  rows = 0;

  constructor(
    readonly kind: ImportKind,
    readonly file: string,
  ) {
    this.columns = columnNames(kind);
    this.stream = fs.createWriteStream(file);
    this.stream.write(`${this.columns.join(';')}\r\n`);
  }

  async write(row: Readonly<Record<string, string | undefined>>): Promise<void> {
    const cells = this.columns.map((column) => {
      const cell = row[column] ?? '';
      return /[;"\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
    });
    this.rows += 1;
    if (!this.stream.write(`${cells.join(';')}\r\n`))
      await new Promise<void>((resolve) => this.stream.once('drain', () => resolve()));
  }

  async close(): Promise<{ kind: ImportKind; file: string; rows: number }> {
    this.stream.end();
    await finished(this.stream);
    return { kind: this.kind, file: this.file, rows: this.rows };
  }
}

const dayMs = 86_400_000;
/** The day `days` before `date`, written ISO or, one time in three, as DD/MM/YYYY (both are taken). */
function dayBefore(date: string, days: number, random?: Random): string {
  const iso = new Date(Date.parse(`${date}T00:00:00Z`) - days * dayMs).toISOString().slice(0, 10);
  return random !== undefined && random.below(3) === 0
    ? `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`
    : iso;
}

/** An amount as French spreadsheets write it: thousands grouped by spaces. */
const frenchAmount = (amount: number) => String(amount).replace(/\B(?=(\d{3})+$)/g, ' ');

/**
 * What the members file leaves for the other files: each member's branch and how many days before the cut-over it
 * joined.
 */
interface Members {
  branch: Uint16Array;
  joinedDaysBefore: Uint16Array;
}

const firstNames = ['Marie', 'Paul', 'Awa', 'Yves', 'Brigitte', 'Jean', 'Chantal', 'Emmanuel', 'Solange', 'Hervé'];
const lastNames = ['Kamga', 'Fotso', 'Ndi', 'Tchoumi', 'Mbarga', 'Nguema', 'Ekotto', 'Fouda', 'Tagne', 'Njoya'];

async function writeMembers(
  csv: CsvFile,
  count: number,
  codes: EnterpriseCodes,
  cutOverDate: string,
  random: Random,
): Promise<Members> {
  const members: Members = { branch: new Uint16Array(count), joinedDaysBefore: new Uint16Array(count) };
  for (let index = 0; index < count; index += 1) {
    members.branch[index] = random.below(codes.branches.length);
    members.joinedDaysBefore[index] = 30 + random.below(7000);
    const legal = random.below(20) === 0;
    const person = legal
      ? {}
      : {
          first_name: random.pick(firstNames),
          last_name: random.pick(lastNames),
          birth_date: dayBefore(cutOverDate, 7000 + random.below(18000), random),
          gender: random.pick(['female', 'male']),
          id_document_type: 'national_id',
          id_document_number: `CM${index + 1}`,
        };
    await csv.write({
      member_number: memberNumber(index),
      branch_code: codes.branches[members.branch[index]!]!,
      kind: legal ? 'legal_entity' : 'natural_person',
      ...(legal
        ? {
            legal_name: `GIC "Les Semeurs" ${index + 1}`,
            id_document_type: 'business_register',
            id_document_number: `RC/${index + 1}`,
          }
        : person),
      phone: `+237 6${String(random.below(1e8)).padStart(8, '0')}`,
      address: random.below(4) === 0 ? `Marché ${random.below(50)}; porte ${random.below(9)}` : 'Quartier Tamdja',
      membership_date: dayBefore(cutOverDate, members.joinedDaysBefore[index]!, random),
    });
  }
  return members;
}

const memberNumber = (index: number) => `M${String(index + 1).padStart(7, '0')}`;

/** Adds `amount` (debit positive) to the detail of a branch's chart account. */
function addDetail(detail: Map<string, Decimal>, branch: string, accountCode: string, amount: Decimal): void {
  const key = `${branch}|${accountCode}`;
  detail.set(key, (detail.get(key) ?? new Decimal(0)).plus(amount));
}

/**
 * Every member's first account, then accounts of members drawn at random; each balance credited to its branch's product
 * account.
 */
/**
 * What the accounts' and loans' writers share: the enterprise's codes, the members written, the detail totals they add
 * to.
 */
interface Context {
  codes: EnterpriseCodes;
  members: Members;
  cutOverDate: string;
  random: Random;
  detail: Map<string, Decimal>;
}

async function writeAccounts(csv: CsvFile, count: number, context: Context): Promise<void> {
  const { codes, members, cutOverDate, random, detail } = context;
  const memberCount = members.branch.length;
  for (let index = 0; index < count; index += 1) {
    const member = index < memberCount ? index : random.below(memberCount);
    const product = random.pick(codes.savingsProducts);
    const branch = codes.branches[members.branch[member]!]!;
    const openedDaysBefore = random.below(members.joinedDaysBefore[member]! + 1);
    const balance = random.below(2_000_000);
    addDetail(detail, branch, product.accountCode, new Decimal(-balance));
    const term =
      product.kind === 'term_deposit'
        ? { maturity_date: dayBefore(cutOverDate, openedDaysBefore - 365 - random.below(365)), interest_rate: '0.045' }
        : {};
    await csv.write({
      account_number: `${branch}-${product.code}-${String(index + 1).padStart(7, '0')}`,
      member_number: memberNumber(member),
      product_code: product.code,
      opened_on: dayBefore(cutOverDate, openedDaysBefore, random),
      balance: random.below(3) === 0 ? frenchAmount(balance) : String(balance),
      ...term,
    });
  }
}

/** `date` (YYYY-MM-DD, its day at most 28) moved by whole months. */
function monthsAfter(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const moved = new Date(Date.UTC(year, month - 1 + months, day));
  return moved.toISOString().slice(0, 10);
}

/** The terms a loan is drawn from, those its product allows: 18 months on average within 24, 42 beyond. */
const loanTerms = [12, 18, 24, 36, 42, 48];

/**
 * Loans in progress, performing: monthly installments of equal principal (the last takes the rest) and interest at
 * 18 % a year on the principal still owed; every installment due by the cut-over paid, at least one still to come.
 * Each outstanding principal is debited to its branch's portfolio account.
 */
async function writeLoans(loansCsv: CsvFile, installmentsCsv: CsvFile, count: number, context: Context): Promise<void> {
  const { codes, members, cutOverDate, random, detail } = context;
  for (let index = 0; index < count; index += 1) {
    const member = random.below(members.branch.length);
    const product = random.pick(codes.loanProducts);
    const amount = (10 + random.below(4990)) * 1000;
    const term = random.pick(loanTerms.filter((months) => months >= product.minTerm && months <= product.maxTerm));
    const disbursed = monthsAfter(
      `${cutOverDate.slice(0, 8)}${String(1 + random.below(28)).padStart(2, '0')}`,
      -1 - random.below(term - 1),
    );
    const loanNumber = `PR-${String(index + 1).padStart(6, '0')}`;
    const paid = { principal: 0, interest: 0 };
    let owed = amount;
    for (let period = 1; period <= term; period += 1) {
      const principal = period === term ? owed : Math.floor(amount / term);
      const interest = Math.round((owed * 18) / 1200);
      const dueDate = monthsAfter(disbursed, period);
      const settled = dueDate <= cutOverDate;
      if (settled) {
        paid.principal += principal;
        paid.interest += interest;
      }
      owed -= principal;
      await installmentsCsv.write({
        loan_number: loanNumber,
        due_date: dueDate,
        principal: String(principal),
        principal_paid: settled ? String(principal) : '0',
        interest: String(interest),
        interest_paid: settled ? String(interest) : '0',
      });
    }
    addDetail(
      detail,
      codes.branches[members.branch[member]!]!,
      product.accountCode,
      new Decimal(amount - paid.principal),
    );
    await loansCsv.write({
      loan_number: loanNumber,
      member_number: memberNumber(member),
      product_code: product.code,
      original_amount: frenchAmount(amount),
      annual_rate: '0.18',
      term_periods: String(term),
      disbursement_date: disbursed,
      principal_paid: String(paid.principal),
      interest_paid: String(paid.interest),
      classification: 'performing',
      provision: '0',
    });
  }
}

/**
 * The trial balance: each branch's detail lines, then lines of other accounts of random amounts up to `lines` in
 * all, the branch's last line balancing it (debit = credit).
 */
async function writeTrialBalance(
  csv: CsvFile,
  lines: number,
  codes: EnterpriseCodes,
  detail: ReadonlyMap<string, Decimal>,
  random: Random,
): Promise<void> {
  const others = Math.max(codes.branches.length, lines - detail.size);
  for (const [branchIndex, branch] of codes.branches.entries()) {
    const own = [...detail]
      .filter(([key]) => key.startsWith(`${branch}|`))
      .map(([key, balance]) => ({ account: key.slice(branch.length + 1), balance }));
    const count = Math.min(
      codes.otherAccounts.length,
      Math.floor(others / codes.branches.length) + (branchIndex < others % codes.branches.length ? 1 : 0),
    );
    for (let index = 0; index < count - 1; index += 1) {
      own.push({ account: codes.otherAccounts[index]!, balance: new Decimal(random.below(50_000_000) - 25_000_000) });
    }
    const unbalanced = own.reduce((sum, line) => sum.plus(line.balance), new Decimal(0));
    own.push({ account: codes.otherAccounts[count - 1]!, balance: unbalanced.negated() });
    for (const line of own) {
      const [debit, credit] = [line.balance, line.balance.negated()].map((side) => Decimal.max(side, 0).toFixed(0));
      await csv.write({ branch_code: branch, account_code: line.account, debit: debit!, credit: credit! });
    }
  }
}

/** Writes the cooperative's files into `directory`; the same seed gives the same bytes. */
export async function writeCooperative(
  directory: string,
  size: CooperativeSize,
  codes: EnterpriseCodes,
  options: { cutOverDate: string; seed: number },
): Promise<GeneratedFiles> {
  if ([codes.otherAccounts, codes.savingsProducts, codes.loanProducts].some((list) => list.length === 0)) {
    throw new Error(
      'the enterprise needs a savings product, a loan product and a postable account outside the subledgers',
    );
  }
  if (
    codes.loanProducts.some(
      (product) => !loanTerms.some((months) => months >= product.minTerm && months <= product.maxTerm),
    )
  ) {
    throw new Error(`every loan product must allow one of the terms ${loanTerms.join(', ')}`);
  }
  const random = randomOf(options.seed);
  const detail = new Map<string, Decimal>();
  const csv = (kind: ImportKind) => new CsvFile(kind, path.join(directory, `${kind}.csv`));
  const membersCsv = csv('members');
  const members = await writeMembers(membersCsv, size.members, codes, options.cutOverDate, random);
  const context = { codes, members, cutOverDate: options.cutOverDate, random, detail };
  const accountsCsv = csv('member-accounts');
  await writeAccounts(accountsCsv, size.accounts, context);
  const loansCsv = csv('loans');
  const installmentsCsv = csv('loan-installments');
  await writeLoans(loansCsv, installmentsCsv, size.loans, context);
  const trialBalanceCsv = csv('trial-balance');
  await writeTrialBalance(trialBalanceCsv, size.trialBalanceLines, codes, detail, random);
  const files = [];
  for (const file of [membersCsv, accountsCsv, installmentsCsv, loansCsv, trialBalanceCsv])
    files.push(await file.close());
  return { files, detail };
}
