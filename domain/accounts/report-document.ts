import { AppError } from '../errors';

/**
 * A report as a table-shaped document, the one form every statement and prudential report takes before it is
 * written as CSV or as an XLSX workbook: the header an auditor needs (enterprise, date or period, generation
 * time) and one or more sheets of typed columns. Values are strings (money and ratios as decimal strings), so
 * no writer ever rounds through a JS number.
 */
export type ReportColumnKind = 'text' | 'money' | 'ratio' | 'integer' | 'date';

export interface ReportColumn {
  key: string;
  title: string;
  kind: ReportColumnKind;
}

export interface ReportSheet {
  name: string;
  columns: readonly ReportColumn[];
  rows: Iterable<Readonly<Record<string, string | null>>> | AsyncIterable<Readonly<Record<string, string | null>>>;
}

export interface ReportDocument {
  /** e.g. "Bilan", "Ratios prudentiels COBAC". */
  title: string;
  enterprise: { code: string; name: string };
  /** The date the report is at, or the period it covers (ISO dates). */
  asOf?: string;
  period?: { from: string; to: string };
  /** Branch code when the report is for one branch; absent when consolidated. */
  branch?: string;
  generatedAt: string;
  /**
   * The earlier accounting years not yet closed whose balances the figures carry by computation: provisional figures.
   */
  openExercices?: readonly string[];
  sheets: readonly ReportSheet[];
}

/**
 * A report answered as JSON holds a bounded number of lines (the general ledger's movements, the journal book's
 * entries); beyond, 422 naming `format`: the CSV and XLSX downloads stream any number.
 */
export function refuseLargeJson(report: { name: string; lines: string; count: number; max: number }): void {
  if (report.count <= report.max) return;
  throw new AppError(
    'unprocessable',
    'report_too_large',
    `The ${report.name} has ${report.count} ${report.lines}, more than the ${report.max} a JSON answer holds: ` +
      `narrow it, or download it (format=csv or xlsx).`,
    [
      {
        field: 'format',
        message: `more than ${report.max} ${report.lines}: ask for csv or xlsx, or narrow the filters`,
      },
    ],
  );
}
