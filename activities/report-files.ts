import { PassThrough } from 'node:stream';
import { csvChunks } from '../domain/accounts/report-csv';
import type { ReportDocument } from '../domain/accounts/report-document';
import { writeWorkbook, xlsxContentType } from './report-workbook';

/** The formats a report is written in (docs/architecture.md §10): CSV for software and quick looks, XLSX for people. */
export const reportFileFormats = ['csv', 'xlsx'] as const;
export type ReportFileFormat = (typeof reportFileFormats)[number];

export const reportContentTypes: Record<ReportFileFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: xlsxContentType,
};

/**
 * The whole file in memory, for what is stored (the reporting pack); downloads stream instead (api/report-download.ts).
 */
export async function reportFileBytes(document: ReportDocument, format: ReportFileFormat): Promise<Buffer> {
  if (format === 'csv') {
    const chunks: string[] = [];
    for await (const chunk of csvChunks(document)) chunks.push(chunk);
    return Buffer.from(chunks.join(''), 'utf8');
  }
  const output = new PassThrough();
  const parts: Buffer[] = [];
  output.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise((resolve, reject) => output.on('end', resolve).on('error', reject));
  await writeWorkbook(document, output);
  await ended;
  return Buffer.concat(parts);
}
