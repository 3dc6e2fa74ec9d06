import type { IsoDate } from '../calendar';
import { periodDates } from '../enterprise/month-end';
import type { ReportDocument } from './report-document';
import { refusal, type Refusal } from '../refusal';

/**
 * The monthly reporting pack's rules (docs/architecture.md §10): a month is `YYYY-MM` (a month end's period); its pack
 * holds the statements at the month's last day (the income statement from the start of the accounting year), and can be
 * made once the month is over by the business date. One pack per enterprise and month: what was sent is kept as sent,
 * never made again.
 */

/**
 * Why a month's pack cannot be made now, or null: the month must be over, and an accounting year must cover its last
 * day.
 */
export function packRefusal(facts: {
  period: string;
  businessDate: IsoDate;
  yearCoversLastDay: boolean;
}): Refusal | null {
  const { end: last } = periodDates(facts.period);
  if (last > facts.businessDate)
    return refusal(
      'period_not_ended',
      `The month ${facts.period} ends on ${last}, after the business date ${facts.businessDate}: ` +
        `its pack is made once it is over.`,
    );
  if (!facts.yearCoversLastDay)
    return refusal(
      'no_exercice_for_period',
      `No accounting year of the enterprise covers ${last}, the last day of ${facts.period}.`,
    );
  return null;
}

/**
 * Why a stored pack cannot be reissued, or null. A new version is made only when the figures sent may be wrong:
 * the pack was provisional (an earlier year was still open), or an entry has been posted into its month or before
 * since it was made. A pack not the month's latest, or not stored, is not reissued.
 */
export function reissueRefusal(facts: {
  latest: boolean;
  stored: boolean;
  provisional: boolean;
  lateEntries: number;
}): Refusal | null {
  if (!facts.latest)
    return refusal('reporting_pack_superseded', 'A later version of this pack exists: reissue that one.');
  if (!facts.stored)
    return refusal('reporting_pack_not_stored', 'The pack is not stored yet: it can be reissued once it is.');
  if (!facts.provisional && facts.lateEntries === 0) {
    return refusal(
      'reporting_pack_current',
      'The pack was made with every year before it closed and nothing has been posted into its month since: ' +
        'its figures stand.',
    );
  }
  return null;
}

/**
 * The figures of a pack's reports: report → sheet → row (its text cells) → column → value (its money, ratio and count
 * cells).
 */
export type PackFigures = Record<string, Record<string, Record<string, Record<string, string | null>>>>;

/** The figures of one report as its document holds them. */
export async function documentFigures(document: ReportDocument): Promise<PackFigures[string]> {
  const sheets: PackFigures[string] = {};
  for (const sheet of document.sheets) {
    const textColumns = sheet.columns.filter((column) => column.kind === 'text' || column.kind === 'date');
    const figureColumns = sheet.columns.filter((column) => column.kind !== 'text' && column.kind !== 'date');
    const rows: Record<string, Record<string, string | null>> = {};
    for await (const row of sheet.rows) {
      const key = textColumns.map((column) => row[column.key] ?? '').join(' | ');
      rows[key] = Object.fromEntries(figureColumns.map((column) => [column.key, row[column.key] ?? null]));
    }
    sheets[sheet.name] = rows;
  }
  return sheets;
}

export interface FigureDifference {
  report: string;
  sheet: string;
  row: string;
  column: string;
  /** null: the figure was not in that version. */
  before: string | null;
  after: string | null;
}

/** How a version's figures differ from the version it supersedes, cell by cell, in report, sheet and row order. */
export function figureDifferences(before: PackFigures, after: PackFigures): FigureDifference[] {
  const differences: FigureDifference[] = [];
  const keys = (...objects: (object | undefined)[]) => [
    ...new Set(objects.flatMap((object) => Object.keys(object ?? {}))),
  ];
  for (const report of keys(before, after)) {
    for (const sheet of keys(before[report], after[report])) {
      for (const row of keys(before[report]?.[sheet], after[report]?.[sheet])) {
        const [old, now] = [before[report]?.[sheet]?.[row], after[report]?.[sheet]?.[row]];
        for (const column of keys(old, now)) {
          const [was, is] = [old?.[column] ?? null, now?.[column] ?? null];
          if (was !== is) differences.push({ report, sheet, row, column, before: was, after: is });
        }
      }
    }
  }
  return differences;
}
