import type { Knex } from 'knex';
import { cursorBatches } from '../../db/cursor';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import {
  generalLedgerAnswer,
  generalLedgerDocument,
  generalLedgerRows,
  type LedgerAccount,
  type LedgerMovement,
} from '../../domain/accounts/general-ledger';
import { refuseLargeJson, type ReportDocument } from '../../domain/accounts/report-document';
import { Money } from '../../domain/money';
import { openingLine, provisionalOf, yearMovement, type StatementScope } from './financial-statements';
import { provisionalHeading, type ReportHeading } from './statement-documents';
import { balanceScopeAt, totalsInScope, yearLines, type ScopeAt } from './year-balances';

/**
 * The general ledger's reads (docs/architecture.md §10): the accounts and their openings in one grouped query,
 * then the movements of them all in account, date and line order, fetched from one cursor a batch at a time, so a
 * download of a year's lines holds one batch at a time.
 */

/**
 * An entry's number as printed: journal, year, number (CAI-2026-000042); `entry` the alias of a row with the entry's
 * journal_code, `y` its year, `n` its number.
 */
export const printedEntryNumber = (entry: string) =>
  `${entry}.journal_code || '-' || y.code || '-' || lpad(n.number::text, 6, '0')`;

/** Which accounts and which days a ledger covers: `accountTo` takes its sub-accounts (401 to 401 is every 401x). */
export interface LedgerRange {
  from: IsoDate;
  to: IsoDate;
  accountFrom?: string;
  accountTo?: string;
}

/** Rows fetched per batch of an account's movements. */
const batchSize = 5000;

function inRange(query: Knex.QueryBuilder, range: LedgerRange): Knex.QueryBuilder {
  // Codes compare as text, digit by digit, whatever the database's locale.
  if (range.accountFrom !== undefined) query.whereRaw('c.code COLLATE "C" >= ?', [range.accountFrom]);
  if (range.accountTo !== undefined)
    query.whereRaw('(c.code COLLATE "C" <= ? OR starts_with(c.code, ?))', [range.accountTo, range.accountTo]);
  return query;
}

/**
 * The accounts of the range with an opening balance (as the trial balance counts it) or movements in the period,
 * summed from the month totals as the trial balance sums them (totalsInScope), not from a year of lines. Lines have
 * one positive side, so an account has movements when their debits and credits add up to more than zero.
 */
async function ledgerAccounts(knex: Knex, at: ScopeAt, range: LedgerRange): Promise<LedgerAccount[]> {
  const opening = openingLine(knex, at.scope, range.from);
  const [balance, movements] = [
    knex.raw('sum(CASE WHEN ? THEN s.debit - s.credit ELSE 0 END)', [opening]),
    knex.raw('sum(CASE WHEN ? THEN 0 ELSE s.debit + s.credit END)', [opening]),
  ];
  const rows: { id: string; code: string; label: string; opening: string }[] = await inRange(
    totalsInScope(knex, at.scope, range.from),
    range,
  )
    .groupBy('c.id', 'c.code', 'c.label')
    .havingRaw('? <> 0 OR ? > 0', [balance, movements])
    .select('c.id', 'c.code', 'c.label', knex.raw('?::text AS opening', [balance]));
  return rows.map((row) => ({ ...row, opening: new Money(row.opening) }));
}

/**
 * The lines of the period the trial balance counts as movements (not openings), with their entry's journal, number and
 * branch. They are the year's own lines: a carried year's are all openings. Each line meets its entry once, in
 * `s` (joining it again for the journal and description cost a year's ledger seconds).
 */
function movementLines(knex: Knex, at: ScopeAt, range: LedgerRange): Knex.QueryBuilder {
  return knex
    .from(yearLines(knex, at.scope, ['e.journal_code', 'e.description']).as('s'))
    .join('company_chart_entries as c', 'c.id', 's.chart_entry_id')
    .whereRaw('?', [yearMovement(knex, range.from)])
    .join('exercices_comptables as y', 'y.id', 's.exercice_id')
    .join('journal_entry_numbers as n', 'n.entry_id', 's.entry_id')
    .leftJoin('branches as b', 'b.id', 's.branch_id');
}

/** A movement with the code of its account: the cursor's row. */
type AccountMovement = LedgerMovement & { account_code: string };

/**
 * The movements of every account of the range through one cursor (db/cursor.ts), in code, date and posting order: the
 * period's lines are sorted once, however many accounts (a cursor per account read the period's entries again for
 * each). `of(account)` hands over an account's movements as the ledger reaches it, the accounts taken in code order;
 * an account the ledger does not list (posted to since its accounts were read) is skipped. `close` ends the cursor
 * when the ledger stops, read whole or not.
 */
function movementsByAccount(knex: Knex, lines: Knex.QueryBuilder, range: LedgerRange) {
  const query = inRange(lines.clone(), range)
    .orderByRaw('c.code COLLATE "C", s.entry_date, s.line_id')
    .select(
      'c.code as account_code',
      's.entry_date',
      's.journal_code as journal',
      knex.raw(`${printedEntryNumber('s')} AS number`),
      'b.code as branch',
      's.description',
      knex.raw('s.debit::text AS debit'),
      knex.raw('s.credit::text AS credit'),
    )
    .toSQL();
  const rows = (async function* () {
    for await (const batch of cursorBatches<AccountMovement>(knex, query, batchSize)) yield* batch.rows;
  })();
  let next: IteratorResult<AccountMovement> | undefined;
  return {
    async *of(account: LedgerAccount): AsyncGenerator<LedgerMovement> {
      next ??= await rows.next();
      // Codes compare as the ledger orders them (domain/accounts/general-ledger.ts): digit by digit.
      while (next.done !== true && next.value.account_code < account.code) next = await rows.next();
      while (next.done !== true && next.value.account_code === account.code) {
        const { account_code: _code, ...movement } = next.value;
        yield movement;
        next = await rows.next();
      }
    },
    close: async () => {
      await rows.return(undefined);
    },
  };
}

/**
 * The ledger of a range in a statement's scope: the year covering `to` and the earlier years it carries. The
 * period stays in that year (422 naming `date_from` otherwise): an earlier year's movements are its own ledger's.
 */
export async function generalLedgerAt(knex: Knex, scope: StatementScope, range: LedgerRange) {
  const at = await balanceScopeAt(knex, scope.enterpriseId, range.to, scope.branches);
  if (at.year === undefined) {
    throw new AppError('conflict', 'no_exercice_for_date', `No accounting year of the enterprise covers ${range.to}.`, [
      { field: 'date_to', message: 'no accounting year covers this date' },
    ]);
  }
  if (range.from < at.year.start_date) {
    throw new AppError(
      'unprocessable',
      'ledger_period_across_years',
      `The period must lie within the accounting year ${at.year.code}, from ${at.year.start_date}.`,
      [
        {
          field: 'date_from',
          message: `must not be before ${at.year.start_date}, the first day of the accounting year of date_to`,
        },
      ],
    );
  }
  return {
    at,
    /** A new pass over the ledger's rows at each call. */
    rows: () => ({
      async *[Symbol.asyncIterator]() {
        const accounts = await ledgerAccounts(knex, at, range);
        const movements = movementsByAccount(knex, movementLines(knex, at, range), range);
        try {
          yield* generalLedgerRows(accounts, (account) => movements.of(account));
        } finally {
          await movements.close();
        }
      },
    }),
    /** How many movements the period holds. */
    movementCount: async () =>
      Number(
        (
          await knex
            .from(
              inRange(movementLines(knex, at, range), range)
                .select('s.line_id')
                .as('m'),
            )
            .count<{ count: string }[]>('* as count')
        )[0]!.count,
      ),
  };
}

type GeneralLedger = Awaited<ReturnType<typeof generalLedgerAt>>;

/** Whose report of which period, as the accountant's reports answer it. */
export const periodScope = (scope: StatementScope, period: { from: IsoDate; to: IsoDate }) => ({
  enterprise: scope.enterpriseId,
  branch: scope.branch,
  date_from: period.from,
  date_to: period.to,
});

/** The most movements a JSON answer holds; a longer ledger is downloaded (CSV, XLSX), which streams. */
const jsonMovementsMax = 5000;

/** The ledger as JSON; 422 when it has more movements than a JSON answer holds. */
export async function generalLedgerJson(ledger: GeneralLedger, scope: StatementScope, range: LedgerRange) {
  refuseLargeJson({ name: 'ledger', lines: 'movements', count: await ledger.movementCount(), max: jsonMovementsMax });
  return {
    ...periodScope(scope, range),
    account_from: range.accountFrom ?? null,
    account_to: range.accountTo ?? null,
    ...provisionalOf(ledger.at.openExercices),
    ...(await generalLedgerAnswer(ledger.rows())),
  };
}

/** The ledger as a file: its heading, the period, its rows streamed. */
export const generalLedgerFile = (ledger: GeneralLedger, heading: ReportHeading, range: LedgerRange): ReportDocument =>
  generalLedgerDocument(
    {
      ...provisionalHeading(heading, { open_exercices: ledger.at.openExercices }),
      period: { from: range.from, to: range.to },
    },
    ledger.rows,
  );
