import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { detectImportFormat, type ImportFileFormat } from '../../domain/imports/files';
import { columnNames, importTemplates, type ImportKind } from '../../domain/imports/templates';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { fileRefused, fileRows, type FileRow } from './file-rows';
import { guardZip } from './zip-guard';

/**
 * The go-live import's first steps (docs/domain.md §15, docs/architecture.md §11): an import is created, its files
 * uploaded into the staging tables. Nothing outside `imports`, `import_files`, `import_rows` and `import_problems`
 * is written (and the audit trail).
 */

/** Creates an import of the enterprise at a cut-over date on or before its business date. */
export async function createImport(
  context: ActivityContext,
  actor: Actor,
  input: { enterpriseId: string; cutOverDate: string },
): Promise<string> {
  return inTransaction(context.knex, async (trx) => {
    const businessDate = await businessDateOf(trx, input.enterpriseId, context.clock());
    if (input.cutOverDate > businessDate) {
      throw new AppError('validation', 'invalid_request', `cut_over_date is after the business date ${businessDate}.`, [
        { field: 'cut_over_date', message: `cut_over_date must be on or before the business date ${businessDate}` },
      ]);
    }
    const [created] = (await trx('imports')
      .insert({ enterprise_id: input.enterpriseId, cut_over_date: input.cutOverDate, uploaded_by: actor.userId })
      .returning('id')) as { id: string }[];
    await recordAudit(trx, actor, {
      action: 'import.create',
      entityType: 'import',
      entityId: created!.id,
      enterpriseId: input.enterpriseId,
      details: { cut_over_date: input.cutOverDate },
    });
    return created!.id;
  });
}

/** Rows inserted per statement: memory holds one batch, whatever the file's size. */
const batchRows = 1000;

/** Bytes read before the type is judged. */
const sniffBytes = 4096;

/**
 * Runs `use` on the body written to a temporary file (readable by this process's user only), removed after, also
 * on error. The body comes in before any transaction opens: a slow client holds no database connection.
 */
async function withSpooledFile<T>(body: Readable, use: (file: string) => Promise<T>): Promise<T> {
  // Named after the process, so that whoever looks for leftovers tells its own from another process's.
  const directory = await mkdtemp(path.join(os.tmpdir(), `coopbank-import-${process.pid}-`));
  try {
    const file = path.join(directory, 'upload');
    await pipeline(body, createWriteStream(file, { mode: 0o600 }));
    return await use(file);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The file's type, judged from its first bytes; an XLSX's zip checked against the caps before anything reads it. */
async function formatOf(file: string, limitBytes: number): Promise<ImportFileFormat> {
  const handle = await open(file);
  const head = Buffer.alloc(sniffBytes);
  const { bytesRead } = await handle.read(head, 0, sniffBytes, 0).finally(() => handle.close());
  if (bytesRead === 0) throw fileRefused('The file is empty: the header row is required.');
  const format = detectImportFormat(head.subarray(0, bytesRead));
  if (format === null) throw fileRefused('The file is neither an XLSX workbook nor a CSV text file (UTF-8).');
  if (format === 'xlsx') await guardZip(file, limitBytes);
  return format;
}

/**
 * The template column of each of the header's cells; the header refused whole when it names an unknown column or lacks
 * a required one.
 */
function headerColumns(kind: ImportKind, header: FileRow | undefined): string[] {
  if (header === undefined) throw fileRefused('The file is empty: the header row is required.');
  const known = columnNames(kind);
  const names = header.cells.map((cell) => cell.toLowerCase());
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw fileRefused(`The header names columns the ${kind} template has not: ${unknown.join(', ')}.`);
  const twice = names.filter((name, index) => names.indexOf(name) !== index);
  if (twice.length > 0) throw fileRefused(`The header names a column twice: ${twice.join(', ')}.`);
  // An optional column may be left out (a file of an earlier template, without a column added since): its cells read
  // empty.
  const missing = importTemplates[kind]
    .filter((column) => column.required && !names.includes(column.name))
    .map((column) => column.name);
  if (missing.length > 0) throw fileRefused(`The header lacks the ${kind} template's columns: ${missing.join(', ')}.`);
  return names;
}

/** The import a file's rows are staged for. */
type StagedImport = { id: string; enterprise_id: string };

/** A data row as stored: every column of the header, as text, and the columns holding a formula. */
function stagedRow(imported: StagedImport, kind: ImportKind, names: readonly string[], row: FileRow) {
  const data = Object.fromEntries(names.map((name, index) => [name, row.cells[index] ?? '']));
  return {
    enterprise_id: imported.enterprise_id,
    import_id: imported.id,
    kind,
    row_number: row.rowNumber,
    data,
    formulas: row.formulas.map((index) => names[index] ?? `column ${index + 1}`),
  };
}

async function stageRows(
  trx: Knex.Transaction,
  imported: StagedImport,
  kind: ImportKind,
  rows: AsyncGenerator<FileRow>,
): Promise<number> {
  const names = headerColumns(kind, (await rows.next()).value as FileRow | undefined);
  let batch: ReturnType<typeof stagedRow>[] = [];
  let count = 0;
  for await (const row of rows) {
    if (row.cells.every((cell) => cell === '')) continue;
    batch.push(stagedRow(imported, kind, names, row));
    count += 1;
    if (batch.length === batchRows) {
      await trx('import_rows').insert(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await trx('import_rows').insert(batch);
  return count;
}

/** Locks an import of the enterprise for a change; 404 when absent. */
export async function lockImport(
  trx: Knex.Transaction,
  importId: string,
): Promise<{ id: string; enterprise_id: string; cut_over_date: string; status: string }> {
  const row = (await trx('imports')
    .where({ id: importId })
    .forUpdate()
    .first('id', 'enterprise_id', trx.raw("to_char(cut_over_date, 'YYYY-MM-DD') AS cut_over_date"), 'status')) as
    { id: string; enterprise_id: string; cut_over_date: string; status: string } | undefined;
  if (row === undefined) throw new NotFoundError('The import');
  return row;
}

/**
 * Stores a file of one kind in the staging table, replacing the kind's earlier upload, in one transaction: a file
 * refused halfway leaves the earlier one in place. The import goes back to `uploaded`: its validation is stale.
 * `input` is the body as it streams in, its size already capped by the caller (`limitBytes`): spooled to a
 * temporary file first, so the transaction opens only once the whole file is here (docs/architecture.md §11).
 */
export async function uploadImportFile(
  context: ActivityContext,
  actor: Actor,
  input: { importId: string; kind: ImportKind; body: Readable; limitBytes: number },
): Promise<{ format: ImportFileFormat; rows: number; bytes: number }> {
  return withSpooledFile(input.body, async (file) => {
    const format = await formatOf(file, input.limitBytes);
    const bytes = (await stat(file)).size;
    return inTransaction(context.knex, async (trx) => stageFile(trx, actor, { ...input, path: file, format, bytes }));
  });
}

/** The transaction of an upload: the kind's earlier rows replaced by the spooled file's. */
async function stageFile(
  trx: Knex.Transaction,
  actor: Actor,
  input: {
    importId: string;
    kind: ImportKind;
    path: string;
    format: ImportFileFormat;
    bytes: number;
    limitBytes: number;
  },
): Promise<{ format: ImportFileFormat; rows: number; bytes: number }> {
  const { format, bytes } = input;
  const imported = await lockImport(trx, input.importId);
  await trx('import_rows').where({ import_id: imported.id, kind: input.kind }).delete();
  const rows = await stageRows(
    trx,
    imported,
    input.kind,
    fileRows(format, createReadStream(input.path), input.limitBytes),
  );
  const file = {
    enterprise_id: imported.enterprise_id,
    import_id: imported.id,
    kind: input.kind,
    format,
    rows,
    bytes,
    uploaded_by: actor.userId,
    uploaded_at: trx.fn.now(),
  };
  await trx('import_files').insert(file).onConflict(['import_id', 'kind', 'enterprise_id']).merge();
  await trx('import_problems').where({ import_id: imported.id }).delete();
  await trx('imports').where({ id: imported.id }).update({ status: 'uploaded', validated_at: null });
  await recordAudit(trx, actor, {
    action: 'import.upload',
    entityType: 'import',
    entityId: imported.id,
    enterpriseId: imported.enterprise_id,
    details: { kind: input.kind, format, rows },
  });
  return { format, rows, bytes };
}
