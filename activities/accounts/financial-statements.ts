import type { Knex } from 'knex';
import {
  balanceSheet,
  besidePrior,
  incomeStatement,
  rollUp,
  yearEarlier,
  type AccountBalance,
  type ChartAccount,
  type ComparedLine,
} from '../../domain/accounts/statements';
import { addDaysTo, addMonthsClamped, parseIsoDate, type IsoDate } from '../../domain/calendar';
import { intermediateBalances } from '../../domain/accounts/intermediate-balances';
import { balanceSides } from '../../domain/accounts/general-ledger';
import { formatAmount, Money } from '../../domain/money';
import {
  balanceScopeAt,
  datedIn,
  entriesWithLines,
  markedEntries,
  pendingResultAccount,
  statementScopeAt,
  totalsInScope,
  type BalanceScope,
  type DayRange,
  type ScopeAt,
} from './year-balances';

/**
 * The financial statements (docs/architecture.md §9) as they are answered, read once here for the API's
 * statement routes (JSON, CSV, XLSX) and for the reporting pack's activity: the presentation rules are
 * domain/accounts/statements.ts, the queries below.
 */

/** The off-balance class, out of the balance sheet's statements and the trial balance. */
const offBalanceClass = 9;

/** The chart of an enterprise by code: labels, classes and parents, for roll-ups and statement labels. */
async function chartByCode(knex: Knex, chartId: string): Promise<Map<string, ChartAccount>> {
  const rows = await knex('company_chart_entries')
    .where({ chart_id: chartId })
    .select('code', 'label', 'class', 'parent_code');
  return new Map(
    rows.map((row) => [
      row.code as string,
      { code: row.code, label: row.label, accountClass: row.class, parent: row.parent_code },
    ]),
  );
}

/** Each account's balance over a scope, the branches' summed (consolidated, or the one branch asked for). */
export async function accountBalances(knex: Knex, scope: BalanceScope): Promise<AccountBalance[]> {
  const rows: { code: string; balance: string }[] = await totalsInScope(knex, scope)
    .groupBy('c.code')
    .select('c.code', knex.raw('(sum(s.debit) - sum(s.credit))::text AS balance'));
  return rows.map((row) => ({ account: row.code, balance: new Money(row.balance) }));
}

/**
 * The movements of the income and expense accounts between two dates, whatever their years, without the
 * closing entries that zeroed them at a year end nor the reversals of those (a reopened year): the whole months'
 * totals less the closing entries' lines in them, and the lines of the partial months at either end.
 */
async function incomeAndExpenseFlows(
  knex: Knex,
  period: { enterpriseId: string; from: string; to: string; branches: 'all' | readonly string[] },
): Promise<AccountBalance[]> {
  const ofBranches = (query: Knex.QueryBuilder, column: string) =>
    period.branches === 'all' ? query : query.whereIn(column, [...period.branches]);
  const { whole: months, partial } = monthsBetween(period.from, period.to);
  const closings = markedEntries(knex, ['closing']);
  const lines = () => ofBranches(entriesWithLines(knex).where('e.enterprise_id', period.enterpriseId), 'e.branch_id');
  const parts =
    partial.length === 0
      ? []
      : [
          datedIn(lines(), 'e.entry_date', partial)
            .whereNotIn('e.id', closings)
            .select('l.chart_entry_id', 'l.debit', 'l.credit'),
        ];
  if (months !== undefined) {
    parts.push(
      ofBranches(knex('ledger_month_totals as t'), 't.branch_id')
        .where('t.enterprise_id', period.enterpriseId)
        .where('t.month', '>=', months.from)
        .where('t.month', '<', months.next)
        .select('t.chart_entry_id', 't.debit', 't.credit'),
    );
    parts.push(
      lines()
        .whereIn('e.id', closings)
        .where('e.entry_date', '>=', months.from)
        .where('e.entry_date', '<', months.next)
        .select('l.chart_entry_id', knex.raw('-l.debit AS debit'), knex.raw('-l.credit AS credit')),
    );
  }
  if (parts.length === 0) return [];
  const [first, ...rest] = parts as [Knex.QueryBuilder, ...Knex.QueryBuilder[]];
  const rows = await knex
    .from(first.unionAll(rest, true).as('s'))
    .join('company_chart_entries as c', 'c.id', 's.chart_entry_id')
    .whereIn('c.class', [6, 7])
    .groupBy('c.code')
    .select('c.code', knex.raw('(sum(s.debit) - sum(s.credit))::text AS balance'));
  return rows.map((row) => ({ account: row.code, balance: new Money(row.balance) }));
}

/**
 * The whole months between two dates (the first one's first day and the day after the last one; none when no
 * month fits), and the days around them.
 */
function monthsBetween(from: IsoDate, to: IsoDate): { whole?: { from: IsoDate; next: IsoDate }; partial: DayRange[] } {
  const first = from.endsWith('-01') ? from : `${addMonthsClamped(parseIsoDate(from), 1).slice(0, 7)}-01`;
  const next = `${addDaysTo(parseIsoDate(to), 1).slice(0, 7)}-01`;
  if (first >= next) return { partial: from <= to ? [{ from, to }] : [] };
  const partial = [
    { from, to: addDaysTo(parseIsoDate(first), -1) },
    { from: next, to },
  ];
  return { whole: { from: first, next }, partial: partial.filter((range) => range.from <= range.to) };
}

/** Whose statement: an enterprise, consolidated over `branches` or for the one `branch` asked for. */
export interface StatementScope {
  enterpriseId: string;
  chartId: string;
  branch: string | null;
  branches: 'all' | readonly string[];
}

const serializeLines = (lines: readonly ComparedLine[]) =>
  lines.map((line) => ({
    code: line.code,
    label: line.label,
    amount: formatAmount(line.amount),
    prior_amount: formatAmount(line.prior),
    accounts: line.accounts.map((account) => ({ account: account.account, amount: formatAmount(account.amount) })),
  }));

export type SerializedStatementLine = ReturnType<typeof serializeLines>[number];

/** A statement's totals as answered: each as it is, and the prior period's beside it under `prior_`. */
function totalsBeside<K extends string>(current: Record<K, Money>, prior: Record<K, Money>): Record<string, string> {
  const keys = Object.keys(current) as K[];
  return Object.fromEntries([
    ...keys.map((key) => [key, formatAmount(current[key])]),
    ...keys.map((key) => [`prior_${key}`, formatAmount(prior[key])]),
  ]);
}

/**
 * Whether figures read at a date are provisional, and why: the earlier years whose balances were carried
 * forward by computation because no closing has carried them yet (docs/architecture.md §9).
 */
export const provisionalOf = (openExercices: readonly string[]) => ({
  provisional: openExercices.length > 0,
  open_exercices: [...openExercices],
});

/**
 * The balance sheet at `date` beside the end of the year before; 422 naming `date` when no accounting year covers it.
 */
export async function balanceSheetAt(knex: Knex, scope: StatementScope, date: IsoDate) {
  const at = await statementScopeAt(knex, scope.enterpriseId, date, scope.branches);
  const priorDate = addDaysTo(parseIsoDate(at.year.start_date), -1);
  const prior = await balanceScopeAt(knex, scope.enterpriseId, priorDate, scope.branches);
  const current = balanceSheet(await accountBalances(knex, at.scope));
  const before = balanceSheet(
    await accountBalances(
      knex,
      prior.year === undefined ? { exerciceId: null, branches: scope.branches } : prior.scope,
    ),
  );
  return {
    enterprise: scope.enterpriseId,
    branch: scope.branch,
    date,
    prior_date: priorDate,
    ...provisionalOf(at.openExercices),
    assets: serializeLines(besidePrior(current.assets, before.assets)),
    liabilities: serializeLines(besidePrior(current.liabilities, before.liabilities)),
    totals: {
      ...(totalsBeside(current.totals, before.totals) as Record<
        'assets' | 'liabilities' | 'prior_assets' | 'prior_liabilities',
        string
      >),
      balanced:
        current.totals.assets.eq(current.totals.liabilities) && before.totals.assets.eq(before.totals.liabilities),
    },
  };
}

export type BalanceSheetAnswer = Awaited<ReturnType<typeof balanceSheetAt>>;

/**
 * The movements of classes 6 and 7 of a period and of the same dates a year earlier, in the statement's scope,
 * and the heading of a statement of that period (the income statement and the SIG).
 */
async function periodFlows(knex: Knex, scope: StatementScope, period: { from: IsoDate; to: IsoDate }) {
  const priorPeriod = { from: yearEarlier(period.from), to: yearEarlier(period.to) };
  const flowsOf = (dates: typeof period) =>
    incomeAndExpenseFlows(knex, { enterpriseId: scope.enterpriseId, ...dates, branches: scope.branches });
  const heading = {
    enterprise: scope.enterpriseId,
    branch: scope.branch,
    date_from: period.from,
    date_to: period.to,
    prior_date_from: priorPeriod.from,
    prior_date_to: priorPeriod.to,
  };
  return { heading, current: await flowsOf(period), prior: await flowsOf(priorPeriod) };
}

/** The income statement between two dates beside the same dates a year earlier. */
export async function incomeStatementOf(knex: Knex, scope: StatementScope, period: { from: IsoDate; to: IsoDate }) {
  const chart = await chartByCode(knex, scope.chartId);
  const label = (group: string) => chart.get(group)?.label ?? group;
  const flows = await periodFlows(knex, scope, period);
  const current = incomeStatement(flows.current, label);
  const before = incomeStatement(flows.prior, label);
  return {
    ...flows.heading,
    expenses: serializeLines(besidePrior(current.expenses, before.expenses)),
    income: serializeLines(besidePrior(current.income, before.income)),
    totals: totalsBeside(current.totals, before.totals) as Record<
      'expenses' | 'income' | 'result' | 'prior_expenses' | 'prior_income' | 'prior_result',
      string
    >,
  };
}

/**
 * The soldes intermédiaires de gestion (SIG, class 8) of a period beside the same dates a year earlier: the answer and
 * its lines.
 */
export async function intermediateBalancesOf(
  knex: Knex,
  scope: StatementScope,
  period: { from: IsoDate; to: IsoDate },
) {
  const flows = await periodFlows(knex, scope, period);
  const balances = besidePrior(intermediateBalances(flows.current), intermediateBalances(flows.prior));
  return { answer: { ...flows.heading, balances: serializeLines(balances) }, balances };
}

export type IncomeStatementAnswer = Awaited<ReturnType<typeof incomeStatementOf>>;

/**
 * Sum of debits and credits of the accounts of a chart over a scope, one row per account with postings: a year's
 * balances are read from its own entries, the opening balances its predecessor's closing carried into it included,
 * and from the earlier years not carried yet (docs/architecture.md §9).
 */
export function accountTotals(knex: Knex, scope: BalanceScope) {
  return totalsInScope(knex, scope)
    .groupBy('c.id', 'c.code', 'c.label', 'c.class')
    .select(
      'c.id',
      'c.code',
      'c.label',
      'c.class',
      knex.raw('sum(s.debit)::text AS debit'),
      knex.raw('sum(s.credit)::text AS credit'),
      knex.raw('(sum(s.debit) - sum(s.credit))::text AS balance'),
    );
}

/**
 * What a line counts as in the six columns: the opening balance when it is of an earlier year carried by
 * computation, dated before the period, or of an opening entry (à-nouveau) of the year or its reversal: a closing's,
 * or the opening balance sheet a cooperative starts Coopbank with (a manual entry of kind `opening`, §12.1).
 */
export function openingLine(knex: Knex, scope: BalanceScope, from: IsoDate) {
  return knex.raw(`(s.exercice_id IS DISTINCT FROM ? OR s.entry_date < ? OR ${openingEntry})`, [
    scope.exerciceId,
    from,
  ]);
}

/** Whether the line `s` is of an opening entry: a closing's à-nouveau, an opening balance sheet, or their reversal. */
const openingEntry = `EXISTS (
      SELECT 1 FROM exercice_closing_entries x
       WHERE x.step = 'opening' AND x.entry_id IN (s.entry_id, s.reverses_entry_id)) OR EXISTS (
      SELECT 1 FROM manual_entry_lines ml JOIN manual_entries m ON m.id = ml.manual_entry_id
       WHERE m.kind = 'opening' AND ml.journal_entry_id IN (s.entry_id, s.reverses_entry_id))`;

/**
 * A line of the scope's own year counted as a movement from `from` on: `NOT openingLine` less its test of the year,
 * which such a line passes; PostgreSQL would count that test's selectivity twice and plan for a hundredth of the rows.
 */
export function yearMovement(knex: Knex, from: IsoDate) {
  return knex.raw(`(s.entry_date >= ? AND NOT (${openingEntry}))`, [from]);
}

/** Per account: the opening balance (debit minus credit), then the period's debits and credits. */
function sixColumnTotals(knex: Knex, scope: BalanceScope, from: IsoDate) {
  const opening = openingLine(knex, scope, from);
  return totalsInScope(knex, scope, from)
    .groupBy('c.code')
    .select(
      'c.code',
      knex.raw('sum(CASE WHEN ? THEN s.debit - s.credit ELSE 0 END)::text AS opening', [opening]),
      knex.raw('sum(CASE WHEN ? THEN 0 ELSE s.debit END)::text AS movement_debit', [opening]),
      knex.raw('sum(CASE WHEN ? THEN 0 ELSE s.credit END)::text AS movement_credit', [opening]),
    );
}

/** The six columns of an account: opening debit and credit, the period's movements, closing debit and credit. */
function sixColumns(row: { opening: string; movement_debit: string; movement_credit: string } | undefined) {
  const opening = new Money(row?.opening ?? 0);
  const [movementDebit, movementCredit] = [new Money(row?.movement_debit ?? 0), new Money(row?.movement_credit ?? 0)];
  const closing = opening.plus(movementDebit).minus(movementCredit);
  const [openingSides, closingSides] = [balanceSides(opening), balanceSides(closing)];
  return {
    opening_debit: openingSides.debit,
    opening_credit: openingSides.credit,
    movement_debit: formatAmount(movementDebit),
    movement_credit: formatAmount(movementCredit),
    closing_debit: closingSides.debit,
    closing_credit: closingSides.credit,
  };
}

type SixColumns = ReturnType<typeof sixColumns>;

/** The sum of each of the six columns over the accounts. */
function sixColumnSums(rows: readonly SixColumns[]): SixColumns {
  const keys = Object.keys(sixColumns(undefined)) as (keyof SixColumns)[];
  return Object.fromEntries(
    keys.map((key) => [key, formatAmount(rows.reduce((sum, row) => sum.plus(row[key]), new Money(0)))]),
  ) as SixColumns;
}

/**
 * The trial balance over a scope (optionally one class), in six columns from `from` (default: the year's first day),
 * its accounts rolled up by parent account and class; provisional when it carries open years. Classes 1 to 8.
 */
export async function trialBalanceOf(
  knex: Knex,
  chartId: string,
  at: Pick<ScopeAt, 'scope' | 'openExercices' | 'year'>,
  filter: { date: IsoDate | null; from?: IsoDate; accountClass?: number },
) {
  const { scope } = at;
  // Class 9 (off-balance) is left out: it balances on its own and has its statement (docs/domain.md §12.2).
  const rows = accountTotals(knex, scope).whereNot('c.class', offBalanceClass).orderBy('c.code');
  if (filter.accountClass !== undefined) rows.where('c.class', filter.accountClass);
  const accounts: {
    id: string;
    code: string;
    label: string;
    class: number;
    debit: string;
    credit: string;
    balance: string;
  }[] = await rows;
  const columns = new Map(
    (await sixColumnTotals(knex, scope, filter.from ?? at.year?.start_date ?? '0001-01-01')).map(
      (row: { code: string }) => [row.code, row],
    ),
  );
  const lines = accounts.map(({ id: _id, ...account }) => ({
    ...account,
    ...(isPendingResult(account.code, at.openExercices) ? { label: pendingResultLabel(at.openExercices) } : {}),
    ...sixColumns(columns.get(account.code) as Parameters<typeof sixColumns>[0]),
  }));
  const groups = rollUp(
    accounts.map((row) => ({ code: row.code, debit: new Money(row.debit), credit: new Money(row.credit) })),
    await chartByCode(knex, chartId),
  );
  const totals = await knex
    .from(accountTotals(knex, scope).whereNot('c.class', offBalanceClass).as('t'))
    .first(
      knex.raw('coalesce(sum(debit::numeric), 0)::text AS debit'),
      knex.raw('coalesce(sum(credit::numeric), 0)::text AS credit'),
    );
  return {
    date: filter.date,
    date_from: filter.from ?? at.year?.start_date ?? null,
    ...provisionalOf(at.openExercices),
    accounts: lines,
    totals: {
      debit: totals.debit as string,
      credit: totals.credit as string,
      balanced: totals.debit === totals.credit,
      ...sixColumnSums(lines),
    },
    groups: groups.map((group) => ({
      code: group.code,
      label: group.label,
      class: group.accountClass,
      level: group.level,
      debit: formatAmount(group.debit),
      credit: formatAmount(group.credit),
      balance: formatAmount(group.balance),
    })),
  };
}

const isPendingResult = (code: string, openExercices: readonly string[]) =>
  code === pendingResultAccount && openExercices.length > 0;
const pendingResultLabel = (openExercices: readonly string[]) =>
  `Résultat en instance d’affectation (exercice ${openExercices.join(', ')} non clôturé)`;

export type TrialBalanceAnswer = Awaited<ReturnType<typeof trialBalanceOf>>;
