import { addMonthsClamped, parseIsoDate, type IsoDate } from '../calendar';
import { Money } from '../money';

/**
 * The presentation of the financial statements (docs/domain.md §7): which accounts make each line of the
 * balance sheet and of the income statement, after the PCEMF's classes and two-digit groups. Pure rules over
 * balances (debit minus credit) by account code; the queries that read the balances are in the accounts module.
 */

export interface AccountBalance {
  account: string;
  /** Debit minus credit. */
  balance: Money;
}

export type Side = 'assets' | 'liabilities';

/**
 * A line of the balance sheet: the accounts under `prefixes` with a balance of the line's side (a debit for
 * assets, a credit for liabilities; `bySign`) or whatever their balance (a class whose accounts all sit on one
 * side, and the provisions deducted from an asset line: `contra`).
 */
interface BalanceSheetRule {
  code: string;
  label: string;
  side: Side;
  prefixes: readonly string[];
  bySign?: boolean;
  contra?: readonly string[];
}

const balanceSheetRules: readonly BalanceSheetRule[] = [
  { code: 'A1', label: 'Valeurs immobilisées nettes', side: 'assets', prefixes: ['2'] },
  {
    code: 'A2',
    label: 'Crédits à la clientèle nets de provisions',
    side: 'assets',
    prefixes: ['30', '31', '32', '33', '34'],
    contra: ['39'],
  },
  {
    code: 'A3',
    label: 'Comptes débiteurs de la clientèle',
    side: 'assets',
    prefixes: ['35', '36', '37', '38'],
    bySign: true,
  },
  {
    code: 'A4',
    label: 'Comptes de tiers et de régularisation (actif)',
    side: 'assets',
    prefixes: ['40', '41', '42', '43', '44', '45', '46', '47', '48'],
    bySign: true,
    contra: ['49'],
  },
  {
    code: 'A5',
    label: 'Trésorerie et opérations interbancaires (actif)',
    side: 'assets',
    prefixes: ['51', '52', '53', '54', '55', '56', '57', '58'],
    bySign: true,
    contra: ['59'],
  },
  { code: 'P1', label: 'Capital, parts sociales et dotations', side: 'liabilities', prefixes: ['10'] },
  { code: 'P2', label: 'Réserves', side: 'liabilities', prefixes: ['11'] },
  { code: 'P3', label: 'Report à nouveau', side: 'liabilities', prefixes: ['12'] },
  {
    code: 'P4',
    label: 'Résultat net de l’exercice clos (en instance d’affectation)',
    side: 'liabilities',
    prefixes: ['13'],
  },
  { code: 'P6', label: 'Provisions, subventions et fonds', side: 'liabilities', prefixes: ['14', '15', '16', '19'] },
  { code: 'P7', label: 'Emprunts et autres ressources permanentes', side: 'liabilities', prefixes: ['17', '18'] },
  {
    code: 'P8',
    label: 'Dépôts et comptes créditeurs de la clientèle',
    side: 'liabilities',
    prefixes: ['35', '36', '37', '38'],
    bySign: true,
  },
  {
    code: 'P9',
    label: 'Comptes de tiers et de régularisation (passif)',
    side: 'liabilities',
    prefixes: ['40', '41', '42', '43', '44', '45', '46', '47', '48'],
    bySign: true,
  },
  {
    code: 'P10',
    label: 'Trésorerie et opérations interbancaires (passif)',
    side: 'liabilities',
    prefixes: ['51', '52', '53', '54', '55', '56', '57', '58'],
    bySign: true,
  },
];

/** The line of income minus expenses not yet closed into 13: the year running, or a year not closed yet. */
const periodResult = { code: 'P5', label: 'Résultat de la période (produits − charges)' };

export interface StatementLine {
  code: string;
  label: string;
  amount: Money;
  /** The accounts that make the line, each with its amount as the line counts it. */
  accounts: { account: string; amount: Money }[];
}

const zero = new Money(0);
const under = (account: string, prefixes: readonly string[] = []) =>
  prefixes.some((prefix) => account.startsWith(prefix));

/**
 * Whether the rule takes the account: under its prefixes with a balance of its side (when by sign), or a contra
 * account.
 */
function takes(rule: BalanceSheetRule, row: AccountBalance): boolean {
  if (under(row.account, rule.contra)) return true;
  if (!under(row.account, rule.prefixes)) return false;
  if (rule.bySign !== true) return true;
  return rule.side === 'assets' ? row.balance.isPositive() : row.balance.isNegative();
}

/** On the assets side a debit balance counts positive; on the liabilities side a credit balance does. */
const signed = (side: Side, balance: Money) => (side === 'assets' ? balance : balance.negated());

function lineOf(code: string, label: string, side: Side, rows: readonly AccountBalance[]): StatementLine {
  const accounts = rows.map((row) => ({ account: row.account, amount: signed(side, row.balance) }));
  return { code, label, amount: accounts.reduce((sum, account) => sum.plus(account.amount), zero), accounts };
}

const isIncomeOrExpense = (account: string) => account.startsWith('6') || account.startsWith('7');

/**
 * The line of each account of classes 1 to 5, undefined for none (every account has one: a unit test walks the chart).
 */
export const balanceSheetLineOf = (row: AccountBalance): string | undefined =>
  balanceSheetRules.find((rule) => takes(rule, row))?.code;

export interface BalanceSheet {
  assets: StatementLine[];
  liabilities: StatementLine[];
  totals: { assets: Money; liabilities: Money };
}

/**
 * The balance sheet of balances read at a date from the year's entries: classes 1 to 5 by the rules, and the
 * income and expenses not closed yet as the period's result among the liabilities, so that assets equal
 * liabilities whenever the entries balance. A zero-balance account is left out.
 */
export function balanceSheet(balances: readonly AccountBalance[]): BalanceSheet {
  const rows = balances.filter((row) => !row.balance.isZero());
  const linesOf = (side: Side) =>
    balanceSheetRules
      .filter((rule) => rule.side === side)
      .map((rule) =>
        lineOf(
          rule.code,
          rule.label,
          side,
          rows.filter((row) => balanceSheetLineOf(row) === rule.code),
        ),
      );
  const assets = linesOf('assets');
  const liabilities = linesOf('liabilities');
  const result = lineOf(
    periodResult.code,
    periodResult.label,
    'liabilities',
    rows.filter((row) => isIncomeOrExpense(row.account)),
  );
  liabilities.splice(
    liabilities.findIndex((line) => line.code === 'P6'),
    0,
    result,
  );
  const total = (lines: readonly StatementLine[]) => lines.reduce((sum, line) => sum.plus(line.amount), zero);
  return { assets, liabilities, totals: { assets: total(assets), liabilities: total(liabilities) } };
}

export interface IncomeStatement {
  expenses: StatementLine[];
  income: StatementLine[];
  totals: { expenses: Money; income: Money; result: Money };
}

/**
 * The income statement of a period's movements of classes 6 and 7 (closing entries left out): one line per
 * two-digit group of the chart (60 to 69, 70 to 79) that moved, labelled with the group's label.
 */
export function incomeStatement(
  flows: readonly AccountBalance[],
  groupLabel: (group: string) => string,
): IncomeStatement {
  const groupsOf = (accountClass: '6' | '7') => {
    const rows = flows.filter((row) => row.account.startsWith(accountClass) && !row.balance.isZero());
    const groups = [...new Set(rows.map((row) => row.account.slice(0, 2)))].sort();
    const side: Side = accountClass === '6' ? 'assets' : 'liabilities';
    return groups.map((group) =>
      lineOf(
        group,
        groupLabel(group),
        side,
        rows.filter((row) => row.account.startsWith(group)),
      ),
    );
  };
  const expenses = groupsOf('6');
  const income = groupsOf('7');
  const total = (lines: readonly StatementLine[]) => lines.reduce((sum, line) => sum.plus(line.amount), zero);
  return {
    expenses,
    income,
    totals: { expenses: total(expenses), income: total(income), result: total(income).minus(total(expenses)) },
  };
}

export interface ChartAccount {
  code: string;
  label: string;
  accountClass: number;
  parent: string | null;
}

export interface TrialBalanceRow {
  code: string;
  debit: Money;
  credit: Money;
}

export interface RolledUpRow extends ChartAccount {
  /** 1 for a class, 2 for its two-digit groups, and so on down the chart's parents. */
  level: number;
  debit: Money;
  credit: Money;
  balance: Money;
}

/**
 * The trial balance rolled up: every parent account (up to the class) of the accounts with postings, with the
 * sums of its descendants, in code order. The leaves themselves are the trial balance's own rows.
 */
export function rollUp(rows: readonly TrialBalanceRow[], chart: ReadonlyMap<string, ChartAccount>): RolledUpRow[] {
  const sums = new Map<string, { debit: Money; credit: Money; level: number }>();
  for (const row of rows) {
    const ancestors: string[] = [];
    for (let parent = chart.get(row.code)?.parent ?? null; parent !== null; parent = chart.get(parent)?.parent ?? null)
      ancestors.push(parent);
    ancestors.forEach((code, index) => {
      const sum = sums.get(code) ?? { debit: zero, credit: zero, level: ancestors.length - index };
      sums.set(code, { debit: sum.debit.plus(row.debit), credit: sum.credit.plus(row.credit), level: sum.level });
    });
  }
  return [...sums]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, sum]) => ({
      ...chart.get(code)!,
      level: sum.level,
      debit: sum.debit,
      credit: sum.credit,
      balance: sum.debit.minus(sum.credit),
    }));
}

export interface ComparedLine extends StatementLine {
  prior: Money;
}

/**
 * The lines of a statement with the prior period's amount beside each, in code order (A2 before A10); a line of one
 * period only is zero in the other.
 */
export function besidePrior(current: readonly StatementLine[], prior: readonly StatementLine[]): ComparedLine[] {
  const lines = new Map<string, ComparedLine>(current.map((line) => [line.code, { ...line, prior: zero }]));
  for (const line of prior)
    lines.set(line.code, { ...(lines.get(line.code) ?? { ...line, amount: zero, accounts: [] }), prior: line.amount });
  return [...lines.values()].sort((a, b) => a.code.localeCompare(b.code, 'en', { numeric: true }));
}

/** The prior period of an income statement: the same dates a year earlier (29 February becomes the 28th). */
export function yearEarlier(date: IsoDate): IsoDate {
  const day = parseIsoDate(date);
  return addMonthsClamped({ ...day, year: day.year - 1 }, 0);
}
