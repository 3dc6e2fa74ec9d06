import type { Knex } from 'knex';
import { accountsOfRule, type RuleLeg } from '../../domain/events/rules';
import { AppError } from '../../domain/errors';
import { defaultRoleAccounts } from './default-rules';

/** The account codes the enterprise's rules in force post to (their fixed accounts and the default role accounts). */
async function accountsInUseByRules(trx: Knex.Transaction, enterpriseId: string): Promise<Set<string>> {
  const rules: { kind: string; legs: RuleLeg[]; is_active: boolean }[] = await trx('accounting_rule_configs')
    .where({ enterprise_id: enterpriseId })
    .distinctOn('kind')
    .orderBy([{ column: 'kind' }, { column: 'version', order: 'desc' }])
    .select('kind', 'legs', 'is_active');
  return new Set(
    rules.filter((rule) => rule.is_active).flatMap((rule) => accountsOfRule(rule.legs, defaultRoleAccounts)),
  );
}

/**
 * An account a rule in force posts to must stay a postable leaf: giving it a sub-account, deactivating or
 * deleting it would make every event of that kind fail. The rule is reconfigured first.
 */
export async function assertNotUsedByRules(
  trx: Knex.Transaction,
  enterpriseId: string,
  code: string,
  change: string,
): Promise<void> {
  if ((await accountsInUseByRules(trx, enterpriseId)).has(code)) {
    throw new AppError(
      'conflict',
      'account_used_by_rule',
      `Account ${code} is posted to by an accounting rule in force: reconfigure the rule before you ${change}.`,
    );
  }
}
