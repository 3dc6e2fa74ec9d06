import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { lockImport } from './imports.activity';
import { importKindSteps, validatedKinds } from './kinds';

/**
 * Validation of an import's staged rows (docs/domain.md §15): every kind's `validate` step (activities/imports/kinds.ts)
 * in one transaction. Writes only `import_problems` and the import's status.
 */
export async function validateImport(context: DataContext, actor: Actor, importId: string): Promise<{ status: 'validated' | 'rejected'; problems: number }> {
  // The staged rows' statistics brought up to date first, outside the transaction (its lock is then held an instant):
  // planned on the statistics of before the upload, a check across 50 000 rows compared each row with every other.
  await context.knex.raw('ANALYZE import_rows');
  return inTransaction(context.knex, async (trx) => {
    const imported = await lockImport(trx, importId);
    await trx('import_problems').where({ import_id: importId }).delete();
    const scope = { importId, enterpriseId: imported.enterprise_id, cutOverDate: imported.cut_over_date };
    for (const kind of validatedKinds) await importKindSteps[kind]!.validate(trx, scope);
    const [{ count }] = await trx('import_problems').where({ import_id: importId }).count({ count: '*' }) as [{ count: string }];
    const problems = Number(count);
    const status = problems === 0 ? 'validated' : 'rejected';
    await trx('imports').where({ id: importId }).update({ status, validated_at: trx.fn.now() });
    await recordAudit(trx, actor, { action: 'import.validate', entityType: 'import', entityId: importId, enterpriseId: imported.enterprise_id, details: { status, problems } });
    return { status, problems };
  });
}
