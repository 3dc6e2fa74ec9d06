import type { Knex } from 'knex';
import { accountRoles, eventKinds, type RoleAccounts, type RuleDefinition } from '../../domain/events/rules';
import fixture from '../../fixtures/accounting-rules.json';

/**
 * The default rules (one per event kind) and the default account of each role, from fixtures/accounting-rules.json
 * (accounts of docs/domain.md §2). Checked when loaded: a fixture naming an unknown kind or missing a role fails at
 * start.
 */
function load(): { roleAccounts: RoleAccounts; rules: RuleDefinition[] } {
  const roles = fixture.role_accounts as Record<string, string>;
  for (const role of accountRoles) {
    if (typeof roles[role] !== 'string') throw new Error(`fixtures/accounting-rules.json: no account for role ${role}`);
  }
  const rules = fixture.rules.map((rule) => ({ ...rule, active: true }) as RuleDefinition);
  const kinds = rules.map((rule) => rule.kind).sort();
  if (kinds.join() !== [...eventKinds].sort().join())
    throw new Error('fixtures/accounting-rules.json: one rule per event kind expected');
  return { roleAccounts: roles as RoleAccounts, rules };
}

export const { roleAccounts: defaultRoleAccounts, rules: defaultRules } = load();

/** Version 1 of every rule of a new enterprise, in its creation transaction. */
export async function seedDefaultRules(trx: Knex.Transaction, enterpriseId: string): Promise<void> {
  await trx('accounting_rule_configs').insert(
    defaultRules.map((rule) => ({
      enterprise_id: enterpriseId,
      kind: rule.kind,
      version: 1,
      legs: JSON.stringify(rule.legs),
      is_active: rule.active,
      reason: 'default rule (fixtures/accounting-rules.json)',
    })),
  );
}
