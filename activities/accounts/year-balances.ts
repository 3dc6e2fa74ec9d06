import type { Knex } from 'knex';
import { addDaysTo, daysInMonth, parseIsoDate, type IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';

/**
 * Balances at a date (docs/architecture.md §9) are read from the entries of the accounting year covering it, its
 * opening entries (à-nouveaux) included, and from the entries of every earlier year not yet carried into it by a
 * closing: their balance-sheet accounts as they stand, their income and expenses as the pending result (13,
 * résultat en instance d'affectation). Such figures are provisional: computed, never posted, until the closing.
 */

export interface YearBalanceRow {
  branch_id: string | null;
  code: string;
  class: number;
  balance: string;
}

export interface BalanceScope {
  /** The year's entries (null: no year, no entries). */
  exerciceId: string | null;
  /** Earlier years whose closing has not carried their balances into this one, and the day they open it on. */
  carried?: { ids: readonly string[]; on: IsoDate };
  /** Up to and including this date (default: the whole year). */
  upTo?: IsoDate;
  /** The branches whose entries count ('all': every entry, the enterprise's own included). */
  branches: 'all' | readonly string[];
}

/** Where an earlier year's income and expenses count until its closing: the result awaiting allocation. */
export const pendingResultAccount = '13';

/** The columns of a scope's line, read from an entry `e` and its line `l`. */
const lineColumns = [
  'e.branch_id',
  'e.entry_date',
  'e.exercice_id',
  'e.id as entry_id',
  'e.reverses_entry_id',
  'l.id as line_id',
  'l.chart_entry_id',
  'l.debit',
  'l.credit',
];

/**
 * The scope's lines as rows of `s` (branch_id, entry_date, exercice_id, entry_id, reverses_entry_id, line_id, debit,
 * credit), joined to their account `c`. The earlier years carried by computation come as the à-nouveaux their
 * closing would post: one line per branch and account with its net balance, on the year's first day, their
 * income and expenses on the pending result (13); such lines have no entry, line nor year.
 */
export function linesInScope(knex: Knex | Knex.Transaction, scope: BalanceScope): Knex.QueryBuilder {
  const current = yearLines(knex, scope);
  const lines =
    scope.carried === undefined || scope.carried.ids.length === 0
      ? current
      : current.unionAll(carriedOpening(knex, scope.carried, branchesOf(scope)), true);
  return knex.from(lines.as('s')).join('company_chart_entries as c', 'c.id', 's.chart_entry_id');
}

/** The scope's branch filter on entries `e`. */
const branchesOf = (scope: BalanceScope) => (query: Knex.QueryBuilder) =>
  scope.branches === 'all' ? query : query.whereIn('e.branch_id', [...scope.branches]);

/**
 * The lines of the scope's own year (not the carried years'), with the columns of `s` and any other of their entry
 * `e` named in `entryColumns`.
 */
export function yearLines(
  knex: Knex | Knex.Transaction,
  scope: BalanceScope,
  entryColumns: readonly string[] = [],
): Knex.QueryBuilder {
  const lines = branchesOf(scope)(
    knex('journal_lines as l')
      .join('journal_entries as e', 'e.id', 'l.entry_id')
      .where('e.exercice_id', scope.exerciceId ?? null),
  ).select([...lineColumns, ...entryColumns]);
  if (scope.upTo !== undefined) lines.where('e.entry_date', '<=', scope.upTo);
  return lines;
}

/**
 * The à-nouveaux a closing of the carried years would post, computed from their month totals: per branch and
 * account (13 for income and expenses, class 9 its own), the net balance.
 */
function carriedOpening(
  knex: Knex | Knex.Transaction,
  carried: NonNullable<BalanceScope['carried']>,
  ofBranches: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
): Knex.QueryBuilder {
  return (
    ofBranches(
      knex('ledger_month_totals as e')
        .where('e.enterprise_id', enterpriseOf(knex, carried.ids[0]!))
        .whereIn('e.exercice_id', [...carried.ids]),
    )
      .join('company_chart_entries as posted', 'posted.id', 'e.chart_entry_id')
      // Classes 1 to 5 and 9 (off-balance, carried as the closing carries it) keep their account.
      .join('company_chart_entries as a', (join) =>
        join
          .on('a.chart_id', 'posted.chart_id')
          .andOn(
            knex.raw('a.code = CASE WHEN posted.class <= 5 OR posted.class = 9 THEN posted.code ELSE ? END', [
              pendingResultAccount,
            ]),
          ),
      )
      .groupBy('e.branch_id', 'a.id')
      .havingRaw('sum(e.debit) <> sum(e.credit)')
      .select(
        'e.branch_id',
        knex.raw('?::date AS entry_date', [carried.on]),
        knex.raw('NULL::uuid AS exercice_id'),
        knex.raw('NULL::uuid AS entry_id'),
        knex.raw('NULL::uuid AS reverses_entry_id'),
        knex.raw('NULL::bigint AS line_id'),
        'a.id AS chart_entry_id',
        knex.raw('greatest(sum(e.debit - e.credit), 0) AS debit'),
        knex.raw('greatest(sum(e.credit - e.debit), 0) AS credit'),
      )
  );
}

/**
 * The enterprise of an accounting year, as a subquery: the month totals and the entries' dates are indexed under their
 * enterprise.
 */
function enterpriseOf(knex: Knex | Knex.Transaction, exerciceId: string | null): Knex.QueryBuilder {
  return knex('exercices_comptables').where('id', exerciceId).select('enterprise_id');
}

const monthStart = (date: IsoDate): IsoDate => `${date.slice(0, 7)}-01`;

function monthEnd(date: IsoDate): IsoDate {
  const { year, month } = parseIsoDate(date);
  return `${date.slice(0, 7)}-${daysInMonth(year, month)}`;
}

/** Days read line by line, first and last included. */
export interface DayRange {
  from: IsoDate;
  to: IsoDate;
}

/**
 * The months of a scope read from its lines rather than its month totals: the month it ends in, unless it ends on
 * the month's last day, and the month of `split` (where the trial balance's movements start), unless it starts it.
 */
function partialMonths(upTo: IsoDate | undefined, split: IsoDate | undefined): DayRange[] {
  const starts = new Set<IsoDate>();
  if (upTo !== undefined && upTo !== monthEnd(upTo)) starts.add(monthStart(upTo));
  if (split !== undefined && split !== monthStart(split)) starts.add(monthStart(split));
  return [...starts]
    .map((from) => ({ from, to: upTo !== undefined && upTo < monthEnd(from) ? upTo : monthEnd(from) }))
    .filter((range) => range.from <= range.to);
}

/** Entry dates in one of `ranges` (each its own index range: an OR of BETWEENs, not one range with holes). */
export function datedIn(query: Knex.QueryBuilder, column: string, ranges: readonly DayRange[]): Knex.QueryBuilder {
  return query.where((any) => {
    for (const range of ranges) any.orWhereBetween(column, [range.from, range.to]);
  });
}

/**
 * The entries a report tells apart from the others (the trial balance's openings, the income statement's closings):
 * those a year's closing posted (its closing and its à-nouveaux), the opening balance sheets drafted by hand, and the
 * reversals of these. Few: the month totals count them with the rest, and the reports read them line by line.
 */
export function markedEntries(
  knex: Knex | Knex.Transaction,
  steps: readonly ('closing' | 'opening')[] = ['closing', 'opening'],
): Knex.QueryBuilder {
  const marked = knex('exercice_closing_entries as x')
    .whereIn('x.step', [...steps])
    .select('x.entry_id');
  if (steps.includes('opening')) {
    marked.unionAll((manual) =>
      manual
        .from('manual_entry_lines as ml')
        .join('manual_entries as m', 'm.id', 'ml.manual_entry_id')
        .where('m.kind', 'opening')
        .whereNotNull('ml.journal_entry_id')
        .select('ml.journal_entry_id'),
    );
  }
  const reversals = knex('journal_entries as r').whereIn('r.reverses_entry_id', marked.clone()).select('r.id');
  return knex.from(marked.unionAll(reversals, true).as('k')).select('k.entry_id');
}

/**
 * Entries `e` with their lines `l`, read entry by entry through the lines' index on their entry. The reports read few
 * entries this way (a partial month, the marked ones), but the planner, counting one page a line, would rather read
 * every line of the ledger and hash them: OFFSET 0 keeps the lateral read from being flattened into that join.
 */
export function entriesWithLines(knex: Knex | Knex.Transaction): Knex.QueryBuilder {
  return knex('journal_entries as e').joinRaw(
    'CROSS JOIN LATERAL (SELECT l.id, l.chart_entry_id, l.debit, l.credit FROM journal_lines l ' +
      'WHERE l.entry_id = e.id OFFSET 0) AS l',
  );
}

/**
 * The scope's lines as linesInScope gives them (`s`, joined to their account `c`), for reports that sum them: its
 * whole months come as their month totals (dated the month's first day, with no entry nor line), the rest as
 * lines: the partial months (partialMonths, `split` where the trial balance's movements start) and the entries
 * reports tell apart (markedEntries), taken out of their month's totals and read as lines. Every sum of `s` per
 * account and branch, whatever it asks of a line's year, date against `split`, or entry, equals linesInScope's.
 */
export function totalsInScope(knex: Knex | Knex.Transaction, scope: BalanceScope, split?: IsoDate): Knex.QueryBuilder {
  const ofBranches = (query: Knex.QueryBuilder, column: string) =>
    scope.branches === 'all' ? query : query.whereIn(column, [...scope.branches]);
  const partial = partialMonths(scope.upTo, split);
  const enterprise = enterpriseOf(knex, scope.exerciceId);
  const whole = ofBranches(
    knex('ledger_month_totals as t').where('t.enterprise_id', enterprise).where('t.exercice_id', scope.exerciceId),
    't.branch_id',
  )
    .whereNotIn(
      't.month',
      partial.map((range) => range.from),
    )
    .select(
      't.branch_id',
      't.month AS entry_date',
      't.exercice_id',
      knex.raw('NULL::uuid AS entry_id'),
      knex.raw('NULL::uuid AS reverses_entry_id'),
      knex.raw('NULL::bigint AS line_id'),
      't.chart_entry_id',
      't.debit',
      't.credit',
    );
  if (scope.upTo !== undefined) whole.where('t.month', '<', monthStart(addDaysTo(parseIsoDate(scope.upTo), 1)));
  const lines = () => ofBranches(entriesWithLines(knex).where('e.exercice_id', scope.exerciceId), 'e.branch_id');
  const marked = lines()
    .whereIn('e.id', markedEntries(knex))
    .whereNot((outside) => datedIn(outside, 'e.entry_date', partial));
  if (scope.upTo !== undefined) marked.where('e.entry_date', '<=', scope.upTo);
  const parts = [
    marked.clone().select(lineColumns),
    marked.select(
      'e.branch_id',
      knex.raw(`date_trunc('month', e.entry_date)::date AS entry_date`),
      'e.exercice_id',
      knex.raw('NULL::uuid AS entry_id'),
      knex.raw('NULL::uuid AS reverses_entry_id'),
      knex.raw('NULL::bigint AS line_id'),
      'l.chart_entry_id',
      knex.raw('-l.debit AS debit'),
      knex.raw('-l.credit AS credit'),
    ),
    ...(partial.length === 0
      ? []
      : [datedIn(lines().where('e.enterprise_id', enterprise), 'e.entry_date', partial).select(lineColumns)]),
    ...(scope.carried === undefined || scope.carried.ids.length === 0
      ? []
      : [carriedOpening(knex, scope.carried, (query) => ofBranches(query, 'e.branch_id'))]),
  ];
  return knex.from(whole.unionAll(parts, true).as('s')).join('company_chart_entries as c', 'c.id', 's.chart_entry_id');
}

/** Each account's balance (debit minus credit) per branch over the scope; accounts netting to zero left out. */
export async function balancesByBranch(knex: Knex | Knex.Transaction, scope: BalanceScope): Promise<YearBalanceRow[]> {
  return totalsInScope(knex, scope)
    .groupBy('s.branch_id', 'c.code', 'c.class')
    .havingRaw('sum(s.debit) <> sum(s.credit)')
    .orderBy(['s.branch_id', 'c.code'])
    .select('s.branch_id', 'c.code', 'c.class', knex.raw('(sum(s.debit) - sum(s.credit))::text AS balance'));
}

export interface ExerciceDates {
  id: string;
  code: string;
  start_date: IsoDate;
  end_date: IsoDate;
}

/** The enterprise's accounting year covering `date`, if any. */
export async function exerciceCovering(
  knex: Knex | Knex.Transaction,
  enterpriseId: string,
  date: IsoDate,
): Promise<ExerciceDates | undefined> {
  return knex('exercices_comptables')
    .where({ enterprise_id: enterpriseId })
    .where('start_date', '<=', date)
    .where('end_date', '>=', date)
    .first('id', 'code', 'start_date', 'end_date');
}

/** The enterprise's latest accounting year, if any. */
async function latestExercice(knex: Knex | Knex.Transaction, enterpriseId: string): Promise<ExerciceDates | undefined> {
  return knex('exercices_comptables')
    .where({ enterprise_id: enterpriseId })
    .orderBy('start_date', 'desc')
    .first('id', 'code', 'start_date', 'end_date');
}

/**
 * The years before `year` whose balances no closing has carried into the years after them: those after the
 * latest year whose closing posted its à-nouveaux, oldest first. Their balances are carried by computation.
 */
async function yearsNotCarriedBefore(
  knex: Knex | Knex.Transaction,
  enterpriseId: string,
  year: ExerciceDates,
): Promise<ExerciceDates[]> {
  const carried = (query: Knex.QueryBuilder) =>
    query.select(1).from('exercice_closings as x').whereRaw('x.exercice_id = y.id').where('x.status', 'closed');
  const lastCarried = knex('exercices_comptables as y')
    .where('y.enterprise_id', enterpriseId)
    .where('y.end_date', '<', year.start_date)
    .whereExists(carried)
    .max('y.end_date');
  return knex('exercices_comptables as y')
    .where('y.enterprise_id', enterpriseId)
    .where('y.end_date', '<', year.start_date)
    .whereNotExists(carried)
    .where('y.start_date', '>', knex.raw(`coalesce((?), '-infinity'::date)`, [lastCarried]))
    .orderBy('y.start_date')
    .select('y.id', 'y.code', 'y.start_date', 'y.end_date');
}

/**
 * The balances' scope at a date, the year read and the earlier years carried by computation (the figures are then
 * provisional).
 */
export interface ScopeAt {
  year: ExerciceDates | undefined;
  scope: BalanceScope;
  /**
   * The codes of the earlier years not carried forward by a closing, oldest first: empty unless the figures are
   * provisional.
   */
  openExercices: string[];
}

/**
 * The scope of the balances at `date` in `branches`: the year covering it (or, without a date, the latest year,
 * all its entries) and the earlier years not yet carried into it.
 */
export async function balanceScopeAt(
  knex: Knex | Knex.Transaction,
  enterpriseId: string,
  date: IsoDate | undefined,
  branches: 'all' | readonly string[],
): Promise<ScopeAt> {
  const year =
    date === undefined ? await latestExercice(knex, enterpriseId) : await exerciceCovering(knex, enterpriseId, date);
  const earlier = year === undefined ? [] : await yearsNotCarriedBefore(knex, enterpriseId, year);
  return {
    year,
    scope: {
      exerciceId: year?.id ?? null,
      carried: year === undefined ? undefined : { ids: earlier.map((previous) => previous.id), on: year.start_date },
      upTo: date,
      branches,
    },
    openExercices: earlier.map((previous) => previous.code),
  };
}

/** As balanceScopeAt, for a statement at a date: 422 naming the date when no accounting year covers it. */
export async function statementScopeAt(
  knex: Knex,
  enterpriseId: string,
  date: IsoDate,
  branches: 'all' | readonly string[],
): Promise<ScopeAt & { year: ExerciceDates }> {
  const at = await balanceScopeAt(knex, enterpriseId, date, branches);
  if (at.year === undefined) {
    throw new AppError('conflict', 'no_exercice_for_date', `No accounting year of the enterprise covers ${date}.`, [
      { field: 'date', message: 'no accounting year covers this date' },
    ]);
  }
  return { ...at, year: at.year };
}
