import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';

/**
 * Balances are read from one accounting year's entries (docs/architecture.md §9): a closed year's balance-sheet
 * accounts reach the next year through its opening entries (à-nouveaux), never by summing across years.
 */

export interface YearBalanceRow {
  branch_id: string | null;
  code: string;
  class: number;
  balance: string;
}

export interface BalanceScope {
  /** The year's entries only (null: no year, no entries). */
  exerciceId: string | null;
  /** Up to and including this date (default: the whole year). */
  upTo?: IsoDate;
  /** The branches whose entries count ('all': every entry, the enterprise's own included). */
  branches: 'all' | readonly string[];
}

/** The lines of the scope's entries, joined to their entry `e` and account `c`. */
export function linesInScope(knex: Knex | Knex.Transaction, scope: BalanceScope): Knex.QueryBuilder {
  const lines = knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('e.exercice_id', scope.exerciceId ?? null);
  if (scope.upTo !== undefined) lines.where('e.entry_date', '<=', scope.upTo);
  if (scope.branches !== 'all') lines.whereIn('e.branch_id', [...scope.branches]);
  return lines;
}

/** Each account's balance (debit minus credit) per branch over the scope; accounts netting to zero left out. */
export async function balancesByBranch(knex: Knex | Knex.Transaction, scope: BalanceScope): Promise<YearBalanceRow[]> {
  return linesInScope(knex, scope)
    .groupBy('e.branch_id', 'c.code', 'c.class')
    .havingRaw('sum(l.debit) <> sum(l.credit)')
    .orderBy(['e.branch_id', 'c.code'])
    .select('e.branch_id', 'c.code', 'c.class', knex.raw('(sum(l.debit) - sum(l.credit))::text AS balance'));
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

/** The accounting year a statement at `date` reads (422 naming the date when none covers it). */
export async function exerciceForDate(knex: Knex, enterpriseId: string, date: IsoDate): Promise<ExerciceDates> {
  const year = await exerciceCovering(knex, enterpriseId, date);
  if (year === undefined) {
    throw new AppError('unprocessable', 'no_exercice_for_date', `No accounting year of the enterprise covers ${date}.`, [{ field: 'date', message: 'no accounting year covers this date' }]);
  }
  return year;
}

/** The enterprise's latest accounting year, if any. */
export async function latestExercice(knex: Knex | Knex.Transaction, enterpriseId: string): Promise<ExerciceDates | undefined> {
  return knex('exercices_comptables').where({ enterprise_id: enterpriseId }).orderBy('start_date', 'desc').first('id', 'code', 'start_date', 'end_date');
}
