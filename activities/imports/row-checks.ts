import type { Knex } from 'knex';
import { rowProblems, type CellProblem } from '../../domain/imports/cells';
import type { ImportKind } from '../../domain/imports/templates';
import type { ImportScope } from './import-steps';

/**
 * The two shapes every kind's validation takes (docs/architecture.md §11): each row alone, read in batches so
 * memory holds one batch whatever the file's size; and the checks across rows or against the enterprise's data,
 * each one `INSERT … SELECT` of its problems.
 */

const batchRows = 1000;

/** A kind's rules of one row beyond its cells' formats, given what the kind looked up. */
export type RowRules = (data: Readonly<Record<string, string>>) => CellProblem[];

/** The problems of a row: its cells' formats and formulas, then the kind's rules on the cells that read well. */
function problemsOf(
  kind: ImportKind,
  data: Record<string, string>,
  formulas: string[],
  rules: RowRules,
): CellProblem[] {
  const problems = rowProblems(kind, data, formulas);
  const judged = new Set(problems.map((problem) => problem.column));
  return [...problems, ...rules(data).filter((problem) => !judged.has(problem.column))];
}

/** Judges every row of the kind alone, in batches by row number, and records the problems. */
export async function checkEachRow(
  trx: Knex.Transaction,
  scope: ImportScope,
  kind: ImportKind,
  rules: RowRules,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = (await trx('import_rows')
      .where({ import_id: scope.importId, kind })
      .where('row_number', '>', after)
      .orderBy('row_number')
      .limit(batchRows)
      .select('row_number', 'data', 'formulas')) as {
      row_number: number;
      data: Record<string, string>;
      formulas: string[];
    }[];
    if (rows.length === 0) return;
    const problems = rows.flatMap((row) =>
      problemsOf(kind, row.data, row.formulas, rules).map((problem) => ({
        enterprise_id: scope.enterpriseId,
        import_id: scope.importId,
        kind,
        row_number: row.row_number,
        ...problem,
      })),
    );
    if (problems.length > 0) await trx('import_problems').insert(problems);
    after = rows.at(-1)!.row_number;
  }
}

/**
 * A check across rows: the rows of the kind (`r`, joined to their import `i`) whose `column` is not empty and
 * which `where` holds for get `problem` on that column.
 */
export interface CrossCheck {
  column: string;
  problem: string;
  where: string;
}

/** Records the problems of each check, set-based. */
export async function checkAcrossRows(
  trx: Knex.Transaction,
  scope: ImportScope,
  kind: ImportKind,
  checks: readonly CrossCheck[],
): Promise<void> {
  for (const check of checks) {
    await trx.raw(
      `INSERT INTO import_problems (enterprise_id, import_id, kind, row_number, "column", value, problem)
      SELECT r.enterprise_id, r.import_id, r.kind, r.row_number, ?, coalesce(r.data->>?, ''), ? FROM import_rows r
        JOIN imports i ON i.id = r.import_id
      WHERE r.import_id = ? AND r.kind = ? AND coalesce(r.data->>?, '') <> '' AND ${check.where}`,
      [check.column, check.column, check.problem, scope.importId, kind, check.column],
    );
  }
}

/**
 * Another row `o` of the same import and kind for which `same` holds. An `EXISTS` of equalities, which PostgreSQL
 * plans as one hash semi-join over the kind's rows; a count per row (`(SELECT count(*) …) > 1`) is not pulled up
 * and reads the kind's rows once per row: 10 000 loans took minutes.
 */
export const anotherRow = (same: string): string =>
  `EXISTS (SELECT 1 FROM import_rows o WHERE o.import_id = r.import_id AND o.kind = r.kind
    AND o.row_number <> r.row_number AND ${same})`;

/** A value found in another row of the same kind of the import: `column`'s value twice in the file. */
export const twiceInFile = (column: string): CrossCheck => ({
  column,
  problem: 'twice in the file',
  where: anotherRow(`o.data->>'${column}' = r.data->>'${column}'`),
});
