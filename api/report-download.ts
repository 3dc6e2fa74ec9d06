import { PassThrough, Readable } from 'node:stream';
import * as yup from 'yup';
import { reportContentTypes, type ReportFileFormat } from '../activities/report-files';
import { writeWorkbook } from '../activities/report-workbook';
import { csvChunks } from '../domain/accounts/report-csv';
import type { ReportDocument } from '../domain/accounts/report-document';
import type { AppContext } from './context';

/**
 * Downloads of a report (docs/architecture.md §10): a report route answers its JSON by default, and with
 * `?format=csv` or `?format=xlsx` the same figures as a file. A query parameter rather than `Accept`
 * negotiation: a link in a browser or a spreadsheet's "from web" can name it but sets no header, the OpenAPI
 * document lists it as an enum (so the fuzzer sends it), and a shared URL says what it downloads.
 */

const reportFormats = ['json', 'csv', 'xlsx'] as const;
export type ReportFormat = (typeof reportFormats)[number];

/** The `format` query parameter of a downloadable route (declare the route `downloadable: true` beside it). */
export const formatParameter = yup
  .string()
  .oneOf(reportFormats)
  .optional()
  .meta({
    description:
      'json (default): the JSON representation; csv (UTF-8 with BOM, ' +
      '`;`-separated) or xlsx: the same figures as a file to download.',
  });

/** Letters, digits, `.`, `_` and `-` only: nothing a file system or a header could misread. */
const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'report';

/** `<report>-<enterprise>-<date>.<format>`, the date the report is at (or the end of its period). */
function attachmentName(report: string, document: ReportDocument, format: ReportFileFormat): string {
  const date = document.asOf ?? document.period?.to ?? document.generatedAt.slice(0, 10);
  return `${safe(report)}-${safe(document.enterprise.code)}-${safe(date)}.${format}`;
}

/** Streams the document as a file: CSV chunk by chunk, XLSX through ExcelJS's streaming writer. */
function sendReport(ctx: AppContext, report: string, document: ReportDocument, format: ReportFileFormat): void {
  ctx.set('Content-Disposition', `attachment; filename="${attachmentName(report, document, format)}"`);
  ctx.type = reportContentTypes[format];
  if (format === 'csv') {
    ctx.body = Readable.from(csvChunks(document));
    return;
  }
  const output = new PassThrough();
  ctx.body = output;
  // The headers are sent by then: a failure can only cut the file short, which the client sees as a broken download.
  writeWorkbook(document, output).catch((error: unknown) => {
    ctx.state.log.error({ err: error, report }, 'the workbook could not be written');
    output.destroy(error as Error);
  });
}

/**
 * The one call a report route makes: returns its JSON `answer` for the router to send when the format is
 * json (or absent), or streams its ReportDocument as CSV or XLSX and returns undefined (the route has answered).
 * `document` is only built when a file is asked for.
 */
export async function answerReport<T>(
  ctx: AppContext,
  format: ReportFormat | undefined,
  answer: T,
  file: { report: string; document: () => Promise<ReportDocument> | ReportDocument },
): Promise<T | undefined> {
  if (format === undefined || format === 'json') return answer;
  sendReport(ctx, file.report, await file.document(), format);
  return undefined;
}
