import { accountsOfRule, type EventKind, type RuleLeg } from '../../domain/events/rules';
import { AppError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { postableAccounts } from './accounts';
import { defaultRoleAccounts } from './default-rules';
import { currentRule, type RuleRow } from './record-business-event';

export interface RuleChange {
  kind: EventKind;
  legs: RuleLeg[];
  active: boolean;
  reason: string;
}

/**
 * Configures a rule as a new version: every account it touches must be postable in the enterprise's chart.
 * Entries already posted keep the version that made them; the event replay re-runs them under this one.
 */
export async function configureRule(
  context: DataContext,
  actor: Actor,
  enterpriseId: string,
  change: RuleChange,
): Promise<RuleRow> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      await postableAccounts(trx, enterpriseId, accountsOfRule(change.legs, defaultRoleAccounts));
      const current = await currentRule(trx, enterpriseId, change.kind);
      const [created] = await trx('accounting_rule_configs')
        .insert({
          enterprise_id: enterpriseId,
          kind: change.kind,
          version: (current?.version ?? 0) + 1,
          legs: JSON.stringify(change.legs),
          is_active: change.active,
          created_by: actor.userId,
          reason: change.reason,
        })
        .returning(['id', 'kind', 'version', 'legs', 'is_active']);
      await recordAudit(trx, actor, {
        action: 'rule.configure',
        entityType: 'accounting_rule',
        entityId: created.id,
        enterpriseId,
        details: { kind: change.kind, version: created.version, active: change.active, reason: change.reason },
        // The version replaced and the one written: what postings of this kind did before, and do now.
        before:
          current === undefined
            ? undefined
            : { version: current.version, legs: current.legs, active: current.is_active },
        after: { version: created.version, legs: change.legs, active: change.active },
      });
      return created as RuleRow;
    });
  } catch (error) {
    // Two administrators saving the same rule at once: the second must look at the new version first.
    if (isUniqueViolation(error, 'accounting_rule_configs_version_unique')) {
      throw new AppError(
        'conflict',
        'rule_changed_concurrently',
        'The rule was changed at the same time: reload it and try again.',
      );
    }
    throw error;
  }
}
