import type { Knex } from 'knex';
import {
  prudentialSettingsOf,
  prudentialSettingsProblems,
  type PrudentialOverrides,
  type PrudentialSettings,
} from '../../domain/accounts/prudential-settings';
import { NotFoundError, ValidationError } from '../../domain/errors';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { Actor, DataContext } from '../context';

export interface PrudentialSettingsState {
  enterpriseId: string;
  settings: PrudentialSettings;
  /** What the enterprise changed from the defaults. */
  overrides: PrudentialOverrides;
  updatedAt: Date | null;
}

/** The settings in force for an enterprise (the defaults until it changes one); 404 for an unknown enterprise. */
export async function prudentialSettingsFor(
  knex: Knex | Knex.Transaction,
  enterpriseId: string,
): Promise<PrudentialSettingsState> {
  const enterprise = await knex('enterprises').where({ id: enterpriseId }).first('id');
  if (enterprise === undefined) throw new NotFoundError('The enterprise');
  const row = await knex('prudential_settings').where({ enterprise_id: enterpriseId }).first('overrides', 'updated_at');
  const overrides = (row?.overrides ?? {}) as PrudentialOverrides;
  return { enterpriseId, settings: prudentialSettingsOf(overrides), overrides, updatedAt: row?.updated_at ?? null };
}

/**
 * Changes thresholds or weights (docs/domain.md §10): validated, merged into the enterprise's overrides
 * (a weight changed keeps the others), in the audit trail with the values before and after.
 */
export async function updatePrudentialSettings(
  context: DataContext,
  actor: Actor,
  enterpriseId: string,
  changes: PrudentialOverrides,
): Promise<PrudentialSettingsState> {
  const problems = prudentialSettingsProblems(changes);
  if (problems.length > 0) throw new ValidationError(problems);
  if (hasNoChanges(changes)) return prudentialSettingsFor(context.knex, enterpriseId);
  return inTransaction(context.knex, async (trx) => {
    await trx('prudential_settings').insert({ enterprise_id: enterpriseId }).onConflict('enterprise_id').ignore();
    const current = await trx('prudential_settings')
      .where({ enterprise_id: enterpriseId })
      .forUpdate()
      .first('id', 'overrides');
    const before = current.overrides as PrudentialOverrides;
    const overrides: PrudentialOverrides = {
      ...before,
      ...changes,
      risk_weights: { ...before.risk_weights, ...changes.risk_weights },
    };
    await trx('prudential_settings')
      .where({ id: current.id })
      .update({ overrides: JSON.stringify(overrides), updated_by: actor.userId });
    await recordAudit(trx, actor, {
      action: 'prudential_settings.update',
      entityType: 'prudential_settings',
      entityId: current.id,
      enterpriseId,
      details: { before, changes },
      before,
      after: overrides,
    });
    return prudentialSettingsFor(trx, enterpriseId);
  });
}
