import type { Knex } from 'knex';
import { printedEntryNumber } from './general-ledger';

/** The reads of the ledger: journal entries with their lines, and movements with a running balance. */

export interface EntryWithLines {
  id: string;
  enterprise: string;
  branch: string | null;
  entry_date: string;
  exercice: string;
  journal: string;
  number: number;
  reference: string;
  description: string;
  event: string | null;
  rule_config: string | null;
  reverses_entry: string | null;
  created_at: Date;
  lines: { account: string; label: string; debit: string; credit: string }[];
}
/** Entries with their lines, in two queries whatever their number (no query per entry). */
export async function ledgerLines(knex: Knex, entryIds: readonly string[]): Promise<EntryWithLines[]> {
  if (entryIds.length === 0) return [];
  const entries = await knex('journal_entries as e')
    .join('exercices_comptables as y', 'y.id', 'e.exercice_id')
    .join('journal_entry_numbers as n', 'n.entry_id', 'e.id')
    .whereIn('e.id', entryIds)
    .select(
      'e.id',
      'e.enterprise_id as enterprise',
      'e.branch_id as branch',
      'e.entry_date',
      'y.code as exercice',
      'e.journal_code as journal',
      'n.number',
      // The entry's number as printed: journal, year, number (CAI-2026-000042).
      knex.raw(`${printedEntryNumber('e')} AS reference`),
      'e.description',
      'e.event_id as event',
      'e.rule_config_id as rule_config',
      'e.reverses_entry_id as reverses_entry',
      'e.created_at',
    )
    .orderBy([{ column: 'e.entry_date' }, { column: 'e.created_at' }, { column: 'e.id' }]);
  const lines = await knex('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .whereIn('l.entry_id', entryIds)
    .select('l.entry_id', 'c.code as account', 'c.label', 'l.debit', 'l.credit')
    .orderBy('l.id');
  return entries.map((entry) => ({
    ...entry,
    lines: lines.filter((line) => line.entry_id === entry.id).map(({ entry_id: _entryId, ...line }) => line),
  }));
}

/** Where a movement's date, creation time and line are read: a ledger's lines (`e`, `l`) unless said. */
interface MovementKeys {
  date: string;
  createdAt: string;
  line: string;
}
const ledgerKeys: MovementKeys = { date: 'e.entry_date', createdAt: 'e.created_at', line: 'l.id' };

/**
 * Ledger movements with a running balance over a date range. `movements` joins the lines (`l`) to their
 * entries (`e`) and filters them, or gives its own `keys`; `signed` is the SQL of a line's signed amount. The balance
 * runs over every movement up to `date_to`, or `perYear` over those of the movement's accounting year (a ledger
 * account's year starts from its opening entries, docs/architecture.md §9; a member's account has none and runs
 * on), and the rows are then cut at `date_from`, so the first row shown carries the balance brought forward; rows
 * come in posting order, ready for paginateRows.
 */
export function runningMovements(
  knex: Knex,
  movements: Knex.QueryBuilder,
  signed: string,
  columns: readonly (string | Knex.Raw)[],
  range: { date_from?: string; date_to?: string },
  options: { perYear?: boolean; keys?: MovementKeys } = {},
): Knex.QueryBuilder {
  const partition = options.perYear === true ? 'PARTITION BY e.exercice_id ' : '';
  const keys = options.keys ?? ledgerKeys;
  const all = movements.select(
    ...columns,
    `${keys.date} as entry_date`,
    `${keys.line} as line`,
    knex.raw(`(${signed})::text AS amount`),
    knex.raw(
      `(sum(${signed}) OVER (${partition}ORDER BY ${keys.date}, ${keys.createdAt}, ${keys.line}))::text
        AS running_balance`,
    ),
  );
  if (range.date_to !== undefined) all.where(keys.date, '<=', range.date_to);
  const rows = knex
    .from(all.as('m'))
    .select('*')
    .orderBy([{ column: 'entry_date' }, { column: 'line' }]);
  if (range.date_from !== undefined) rows.where('entry_date', '>=', range.date_from);
  return rows;
}

/** The journal entries' ids (`e`), with their year (`y`) and number (`n`) to filter on. */
export const journalEntryIdsQuery = (knex: Knex): Knex.QueryBuilder =>
  knex('journal_entries as e')
    .join('exercices_comptables as y', 'y.id', 'e.exercice_id')
    .join('journal_entry_numbers as n', 'n.entry_id', 'e.id')
    .select('e.id');

/** Only the entries with a line on the chart account `code`. */
export const whereEntryHasAccount = (rows: Knex.QueryBuilder, code: string): Knex.QueryBuilder =>
  rows.whereExists((sub) =>
    sub
      .select(1)
      .from('journal_lines as l')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .whereRaw('l.entry_id = e.id')
      .where('c.code', code),
  );

export const journalsQuery = (knex: Knex): Knex.QueryBuilder =>
  knex('journals').orderBy('code').select('code', 'name', 'event_kinds');

/** An enterprise's chart: its id and the enterprise's. */
export interface ChartRow {
  id: string;
  enterprise_id: string;
}

/** A chart with its enterprise. */
export const chartById = (knex: Knex, chartId: string) =>
  knex('company_charts').where({ id: chartId }).first('id', 'enterprise_id') as Promise<ChartRow | undefined>;

/** The enterprise's chart. */
export const chartOfEnterprise = (knex: Knex, enterpriseId: string) =>
  knex('company_charts').where({ enterprise_id: enterpriseId }).first('id', 'enterprise_id') as Promise<
    ChartRow | undefined
  >;

/** Whether the branch is one of the enterprise's. */
export const isBranchOf = async (knex: Knex, branchId: string, enterpriseId: string) =>
  (await knex('branches').where({ id: branchId, enterprise_id: enterpriseId }).first('id')) !== undefined;

/** An account of a chart: its code and label. */
export const chartAccountById = (knex: Knex, chartId: string, accountId: string) =>
  knex('company_chart_entries').where({ id: accountId, chart_id: chartId }).first('id', 'code', 'label') as Promise<
    { id: string; code: string; label: string } | undefined
  >;

/**
 * An account's movements with the running balance per accounting year, of the branches given (the entries of no
 * branch are for enterprise-wide roles), ready for paginateRows.
 */
export function chartAccountMovements(
  knex: Knex,
  accountId: string,
  branches: 'all' | readonly string[],
  range: { date_from?: string; date_to?: string },
): Knex.QueryBuilder {
  const movements = knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where('l.chart_entry_id', accountId);
  if (branches !== 'all') movements.whereIn('e.branch_id', [...branches]);
  return runningMovements(
    knex,
    movements,
    'l.debit - l.credit',
    [
      'e.id as entry',
      'e.description',
      'e.event_id as event',
      knex.raw('l.debit::text AS debit'),
      knex.raw('l.credit::text AS credit'),
    ],
    range,
    { perYear: true },
  );
}
