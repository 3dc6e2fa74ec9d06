import type { Knex } from 'knex';
import { rowProblems, type CellProblem } from '../../domain/imports/cells';
import { memberAccountProblems, memberProblems } from '../../domain/imports/member-rules';
import { validatedKinds, type ImportKind } from '../../domain/imports/templates';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { lockImport } from './imports.activity';

/**
 * Validation of an import's staged rows (docs/domain.md §15): each row alone (formats, formulas, the kind's
 * rules: domain/imports/), then across rows and against the enterprise's data, set-based in SQL so memory does
 * not grow with the file. Writes only `import_problems` and the import's status. The kinds validated so far are
 * `validatedKinds`; the others' rows wait for the next slices.
 */

interface Lookups {
  cutOverDate: string;
  branchCodes: ReadonlySet<string>;
  productKinds: ReadonlyMap<string, string>;
}

const batchRows = 1000;

/** The problems of a row taken alone, with what the enterprise holds (branches, products). */
function problemsOf(kind: ImportKind, data: Record<string, string>, formulas: string[], lookups: Lookups): CellProblem[] {
  const problems = rowProblems(kind, data, formulas);
  const judged = new Set(problems.map((problem) => problem.column));
  const more: CellProblem[] = [];
  if (kind === 'members') {
    if (!judged.has('branch_code') && !lookups.branchCodes.has(data.branch_code!)) more.push({ column: 'branch_code', value: data.branch_code!, problem: 'not a branch of the enterprise' });
    more.push(...memberProblems(data, lookups.cutOverDate));
  } else {
    const productKind = lookups.productKinds.get(data.product_code ?? '');
    if (!judged.has('product_code') && productKind === undefined) more.push({ column: 'product_code', value: data.product_code!, problem: 'not a savings product of the enterprise' });
    more.push(...memberAccountProblems(data, lookups.cutOverDate, productKind));
  }
  return [...problems, ...more.filter((problem) => !judged.has(problem.column))];
}

/** Row by row, in batches by row number. */
async function checkRows(trx: Knex.Transaction, importId: string, kind: ImportKind, lookups: Lookups): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await trx('import_rows').where({ import_id: importId, kind }).where('row_number', '>', after).orderBy('row_number').limit(batchRows)
      .select('row_number', 'data', 'formulas') as { row_number: number; data: Record<string, string>; formulas: string[] }[];
    if (rows.length === 0) return;
    const problems = rows.flatMap((row) => problemsOf(kind, row.data, row.formulas, lookups)
      .map((problem) => ({ import_id: importId, kind, row_number: row.row_number, ...problem })));
    if (problems.length > 0) await trx('import_problems').insert(problems);
    after = rows.at(-1)!.row_number;
  }
}

/**
 * The checks across rows, each an INSERT … SELECT of its problems: a value twice in the file (every row holding
 * it is named), a value the enterprise already has, an account whose member is neither in the file nor the
 * enterprise's.
 */
const crossChecks: readonly { kind: ImportKind; column: string; problem: string; where: string }[] = [
  { kind: 'members', column: 'member_number', problem: 'twice in the file', where: `(SELECT count(*) FROM import_rows o WHERE o.import_id = r.import_id AND o.kind = r.kind AND o.data->>'member_number' = r.data->>'member_number') > 1` },
  { kind: 'members', column: 'id_document_number', problem: 'the same identity document as another row of the file', where: `(SELECT count(*) FROM import_rows o WHERE o.import_id = r.import_id AND o.kind = r.kind
      AND o.data->>'id_document_type' = r.data->>'id_document_type' AND upper(replace(o.data->>'id_document_number', ' ', '')) = upper(replace(r.data->>'id_document_number', ' ', ''))) > 1` },
  { kind: 'members', column: 'member_number', problem: 'already a member of the enterprise', where: `EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id AND c.member_number = r.data->>'member_number')` },
  { kind: 'members', column: 'id_document_number', problem: 'the identity document of a member of the enterprise', where: `EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id
      AND c.id_document_type = r.data->>'id_document_type' AND c.id_document_number = upper(replace(r.data->>'id_document_number', ' ', '')))` },
  { kind: 'member-accounts', column: 'account_number', problem: 'twice in the file', where: `(SELECT count(*) FROM import_rows o WHERE o.import_id = r.import_id AND o.kind = r.kind AND o.data->>'account_number' = r.data->>'account_number') > 1` },
  { kind: 'member-accounts', column: 'account_number', problem: 'already an account of the enterprise', where: `EXISTS (SELECT 1 FROM comptes_clients a WHERE a.enterprise_id = i.enterprise_id AND a.number = r.data->>'account_number')` },
  { kind: 'member-accounts', column: 'member_number', problem: 'neither in the members file nor a member of the enterprise', where: `r.data->>'member_number' <> ''
      AND NOT EXISTS (SELECT 1 FROM import_rows m WHERE m.import_id = r.import_id AND m.kind = 'members' AND m.data->>'member_number' = r.data->>'member_number')
      AND NOT EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id AND c.member_number = r.data->>'member_number')` },
];

async function checkAcrossRows(trx: Knex.Transaction, importId: string): Promise<void> {
  for (const check of crossChecks) {
    await trx.raw(`INSERT INTO import_problems (import_id, kind, row_number, "column", value, problem)
      SELECT r.import_id, r.kind, r.row_number, ?, coalesce(r.data->>?, ''), ? FROM import_rows r JOIN imports i ON i.id = r.import_id
      WHERE r.import_id = ? AND r.kind = ? AND coalesce(r.data->>?, '') <> '' AND ${check.where}`, [check.column, check.column, check.problem, importId, check.kind, check.column]);
  }
}

/** Validates the import's members and member accounts: `validated` without a problem, else `rejected` with its report. */
export async function validateImport(context: ActivityContext, actor: Actor, importId: string): Promise<{ status: 'validated' | 'rejected'; problems: number }> {
  return inTransaction(context.knex, async (trx) => {
    const imported = await lockImport(trx, importId);
    await trx('import_problems').where({ import_id: importId }).delete();
    const lookups: Lookups = {
      cutOverDate: imported.cut_over_date,
      branchCodes: new Set(await trx('branches').where({ enterprise_id: imported.enterprise_id }).pluck('code')),
      productKinds: new Map((await trx('savings_products').where({ enterprise_id: imported.enterprise_id }).select('code', 'kind') as { code: string; kind: string }[]).map((row) => [row.code, row.kind])),
    };
    for (const kind of validatedKinds) await checkRows(trx, importId, kind, lookups);
    await checkAcrossRows(trx, importId);
    const [{ count }] = await trx('import_problems').where({ import_id: importId }).count({ count: '*' }) as [{ count: string }];
    const problems = Number(count);
    const status = problems === 0 ? 'validated' : 'rejected';
    await trx('imports').where({ id: importId }).update({ status, validated_at: trx.fn.now() });
    await recordAudit(trx, actor, { action: 'import.validate', entityType: 'import', entityId: importId, enterpriseId: imported.enterprise_id, details: { status, problems } });
    return { status, problems };
  });
}
