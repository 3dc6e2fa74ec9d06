import type { Knex } from 'knex';

/**
 * Capital to refund to members leaving (PCEMF 4417 "Sociétaires et actionnaires, capital à rembourser") kept
 * apart from what members owe on their subscriptions (4411, docs/domain.md §5): a withdrawal taking effect credits
 * 4417, its refund debits it. Enterprises whose rules are still the defaults get the new versions; a withdrawal
 * cancelled under the old rule is refunded from the account its cancellation credited (4411).
 */
const changes = [
  { kind: 'share_cancellation', before: { debit: { role: 'shares_paid' }, credit: { role: 'members_capital' } }, after: { debit: { role: 'shares_paid' }, credit: { role: 'capital_to_refund' } } },
  { kind: 'share_refund', before: { debit: { role: 'members_capital' }, credit: { role: 'cash' } }, after: { debit: { role: 'capital_to_refund' }, credit: { role: 'cash' } } },
];

export async function up(knex: Knex): Promise<void> {
  for (const change of changes) {
    await knex.raw(
      `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason)
       SELECT r.enterprise_id, r.kind, r.version + 1, ?::jsonb, r.is_active, 'capital to refund kept apart in 4417 (docs/domain.md §5)'
       FROM accounting_rule_configs r
       WHERE r.kind = ? AND r.legs = ?::jsonb
         AND r.version = (SELECT max(v.version) FROM accounting_rule_configs v WHERE v.enterprise_id = r.enterprise_id AND v.kind = r.kind)`,
      [JSON.stringify([change.after]), change.kind, JSON.stringify([change.before])],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  // Rules are append-only; undoing this migration is the one legitimate removal.
  await knex.raw('ALTER TABLE accounting_rule_configs DISABLE TRIGGER accounting_rule_configs_append_only');
  await knex('accounting_rule_configs').where({ reason: 'capital to refund kept apart in 4417 (docs/domain.md §5)' }).delete();
  await knex.raw('ALTER TABLE accounting_rule_configs ENABLE TRIGGER accounting_rule_configs_append_only');
}
