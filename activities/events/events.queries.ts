import type { Knex } from 'knex';
import type { EventKind, RuleLeg } from '../../domain/events/rules';

export interface RuleConfigRow {
  id: string;
  enterprise_id: string;
  kind: EventKind;
  version: number;
  legs: RuleLeg[];
  is_active: boolean;
  reason: string;
  created_at: Date;
  created_by: string | null;
}

export const ruleColumns = [
  'id',
  'enterprise_id',
  'kind',
  'version',
  'legs',
  'is_active',
  'reason',
  'created_at',
  'created_by',
];
export const ruleById = (knex: Knex, id: string): Promise<RuleConfigRow | undefined> =>
  knex('accounting_rule_configs').where({ id }).first(ruleColumns);
