import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
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

/**
 * The scope's lines as rows of `s` (branch_id, entry_date, exercice_id, entry_id, reverses_entry_id, line_id, debit,
 * credit), joined to their account `c`. The earlier years carried by computation come as the à-nouveaux their
 * closing would post: one line per branch and account with its net balance, on the year's first day, their
 * income and expenses on the pending result (13); such lines have no entry, line nor year.
 */
export function linesInScope(knex: Knex | Knex.Transaction, scope: BalanceScope): Knex.QueryBuilder {
  const ofBranches = (query: Knex.QueryBuilder) => (scope.branches === 'all' ? query : query.whereIn('e.branch_id', [...scope.branches]));
  const current = ofBranches(knex('journal_lines as l').join('journal_entries as e', 'e.id', 'l.entry_id').where('e.exercice_id', scope.exerciceId ?? null))
    .select('e.branch_id', 'e.entry_date', 'e.exercice_id', 'e.id as entry_id', 'e.reverses_entry_id', 'l.id as line_id', 'l.chart_entry_id', 'l.debit', 'l.credit');
  if (scope.upTo !== undefined) current.where('e.entry_date', '<=', scope.upTo);
  const lines = scope.carried === undefined || scope.carried.ids.length === 0 ? current : current.unionAll(carriedOpening(knex, scope.carried, ofBranches), true);
  return knex.from(lines.as('s')).join('company_chart_entries as c', 'c.id', 's.chart_entry_id');
}

/** The à-nouveaux a closing of the carried years would post, computed: per branch and account (13 for income and expenses, class 9 its own), the net balance. */
function carriedOpening(knex: Knex | Knex.Transaction, carried: NonNullable<BalanceScope['carried']>, ofBranches: (query: Knex.QueryBuilder) => Knex.QueryBuilder): Knex.QueryBuilder {
  return ofBranches(knex('journal_lines as l').join('journal_entries as e', 'e.id', 'l.entry_id').whereIn('e.exercice_id', [...carried.ids]))
    .join('company_chart_entries as posted', 'posted.id', 'l.chart_entry_id')
    // Classes 1 to 5 and 9 (off-balance, carried as the closing carries it) keep their account.
    .join('company_chart_entries as a', (join) => join.on('a.chart_id', 'posted.chart_id').andOn(knex.raw('a.code = CASE WHEN posted.class <= 5 OR posted.class = 9 THEN posted.code ELSE ? END', [pendingResultAccount])))
    .groupBy('e.branch_id', 'a.id')
    .havingRaw('sum(l.debit) <> sum(l.credit)')
    .select('e.branch_id', knex.raw('?::date AS entry_date', [carried.on]), knex.raw('NULL::uuid AS exercice_id'), knex.raw('NULL::uuid AS entry_id'), knex.raw('NULL::uuid AS reverses_entry_id'),
      knex.raw('NULL::bigint AS line_id'), 'a.id AS chart_entry_id', knex.raw('greatest(sum(l.debit - l.credit), 0) AS debit'), knex.raw('greatest(sum(l.credit - l.debit), 0) AS credit'));
}

/** Each account's balance (debit minus credit) per branch over the scope; accounts netting to zero left out. */
export async function balancesByBranch(knex: Knex | Knex.Transaction, scope: BalanceScope): Promise<YearBalanceRow[]> {
  return linesInScope(knex, scope)
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
export async function exerciceCovering(knex: Knex | Knex.Transaction, enterpriseId: string, date: IsoDate): Promise<ExerciceDates | undefined> {
  return knex('exercices_comptables').where({ enterprise_id: enterpriseId }).where('start_date', '<=', date).where('end_date', '>=', date).first('id', 'code', 'start_date', 'end_date');
}

/** The enterprise's latest accounting year, if any. */
async function latestExercice(knex: Knex | Knex.Transaction, enterpriseId: string): Promise<ExerciceDates | undefined> {
  return knex('exercices_comptables').where({ enterprise_id: enterpriseId }).orderBy('start_date', 'desc').first('id', 'code', 'start_date', 'end_date');
}

/**
 * The years before `year` whose balances no closing has carried into the years after them: those after the
 * latest year whose closing posted its à-nouveaux, oldest first. Their balances are carried by computation.
 */
async function yearsNotCarriedBefore(knex: Knex | Knex.Transaction, enterpriseId: string, year: ExerciceDates): Promise<ExerciceDates[]> {
  const carried = (query: Knex.QueryBuilder) => query.select(1).from('exercice_closings as x').whereRaw('x.exercice_id = y.id').where('x.status', 'closed');
  const lastCarried = knex('exercices_comptables as y').where('y.enterprise_id', enterpriseId).where('y.end_date', '<', year.start_date).whereExists(carried).max('y.end_date');
  return knex('exercices_comptables as y')
    .where('y.enterprise_id', enterpriseId)
    .where('y.end_date', '<', year.start_date)
    .whereNotExists(carried)
    .where('y.start_date', '>', knex.raw(`coalesce((?), '-infinity'::date)`, [lastCarried]))
    .orderBy('y.start_date')
    .select('y.id', 'y.code', 'y.start_date', 'y.end_date');
}

/** The balances' scope at a date, the year read and the earlier years carried by computation (the figures are then provisional). */
export interface ScopeAt {
  year: ExerciceDates | undefined;
  scope: BalanceScope;
  /** The codes of the earlier years not carried forward by a closing, oldest first: empty unless the figures are provisional. */
  openExercices: string[];
}

/**
 * The scope of the balances at `date` in `branches`: the year covering it (or, without a date, the latest year,
 * all its entries) and the earlier years not yet carried into it.
 */
export async function balanceScopeAt(knex: Knex | Knex.Transaction, enterpriseId: string, date: IsoDate | undefined, branches: 'all' | readonly string[]): Promise<ScopeAt> {
  const year = date === undefined ? await latestExercice(knex, enterpriseId) : await exerciceCovering(knex, enterpriseId, date);
  const earlier = year === undefined ? [] : await yearsNotCarriedBefore(knex, enterpriseId, year);
  return {
    year,
    scope: { exerciceId: year?.id ?? null, carried: year === undefined ? undefined : { ids: earlier.map((previous) => previous.id), on: year.start_date }, upTo: date, branches },
    openExercices: earlier.map((previous) => previous.code),
  };
}

/** As balanceScopeAt, for a statement at a date: 422 naming the date when no accounting year covers it. */
export async function statementScopeAt(knex: Knex, enterpriseId: string, date: IsoDate, branches: 'all' | readonly string[]): Promise<ScopeAt & { year: ExerciceDates }> {
  const at = await balanceScopeAt(knex, enterpriseId, date, branches);
  if (at.year === undefined) {
    throw new AppError('conflict', 'no_exercice_for_date', `No accounting year of the enterprise covers ${date}.`, [{ field: 'date', message: 'no accounting year covers this date' }]);
  }
  return { ...at, year: at.year };
}
