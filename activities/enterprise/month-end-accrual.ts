import type { Knex } from 'knex';
import type { Accrual, AccrualPosting } from '../../domain/accruals';
import type { EventKind, RuleLeg } from '../../domain/events/rules';
import { AppError } from '../../domain/errors';
import { currentRule, type RuleRow } from '../events/record-business-event';
import type { MonthEndStepWork } from './month-end.activity';

/**
 * The enterprise's active rule of `kind` and its one leg, by which a month end books an accrual (and reverses it);
 * undefined when it has none active (the step books nothing). A rule of other legs is refused with `unsupported`.
 */
export async function accrualRuleOf(
  trx: Knex.Transaction,
  enterpriseId: string,
  kind: EventKind,
  unsupported: string,
): Promise<{ rule: RuleRow; leg: RuleLeg } | undefined> {
  const rule = await currentRule(trx, enterpriseId, kind);
  if (rule === undefined || !rule.is_active) return undefined;
  const [leg] = rule.legs;
  if (rule.legs.length !== 1 || leg === undefined) {
    throw new AppError('conflict', 'accrual_rule_unsupported', unsupported);
  }
  return { rule, leg };
}

/**
 * Posts each posting on the period's last day, with the rule's version, in order; `record` keeps the detail of a
 * posting with its entry, in the step's transaction.
 */
export async function postOnPeriodEnd<T extends Accrual>(
  { run, post }: MonthEndStepWork,
  rule: RuleRow,
  postings: readonly AccrualPosting<T>[],
  description: string,
  record?: (posting: AccrualPosting<T>, entryId: string) => Promise<unknown>,
): Promise<void> {
  for (const posting of postings) {
    const entryId = await post({
      branchId: posting.branchId,
      entryDate: run.period_end,
      lines: posting.lines,
      ruleConfigId: rule.id,
      description,
    });
    await record?.(posting, entryId);
  }
}
