import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { linesForEvent } from '../../domain/events/journal';
import { moneyMovingKinds } from '../../domain/events/rules';
import { AppError } from '../../domain/errors';
import { formatAmount } from '../../domain/money';
import { reportOnCommit } from '../metrics-channel';
import { defaultRoleAccounts } from './default-rules';
import { postJournalEntry } from './post-entry';
import { currentRule, requestHash, type BusinessEvent } from './record-business-event';

/**
 * A book-keeping event dated by its caller, not with the business date: what a month end books for a day already
 * past (a period's savings interest on its last day, a term deposit on its maturity day), as the year-end closing
 * dates its entries. The event is logged on that date and the rule in force posts its entry on it, through
 * postJournalEntry (the year of that date must be open). The caller guards "once" (its subject locked, its own row
 * of the operation looked up, then written in the same transaction), so the log's unique key is only the last guard
 * here. The rule must be in force: what the caller moves alongside (a member's balance) must have its entry.
 */
export async function recordDatedEvent(trx: Knex.Transaction, event: BusinessEvent & { date: IsoDate }): Promise<{ eventId: string; entryId: string }> {
  // A money-moving kind goes through recordBusinessEvent, whose statement refuses it for a suspended enterprise.
  if (moneyMovingKinds.has(event.kind)) throw new Error(`recordDatedEvent: ${event.kind} moves money, record it on the business date`);
  const rule = await currentRule(trx, event.enterpriseId, event.kind);
  if (rule === undefined || !rule.is_active) throw new AppError('conflict', 'rule_inactive', `The accounting rule of ${event.kind} is not in force: nothing of it can be posted.`);
  const [logged] = await trx('business_event_logs')
    .insert({
      enterprise_id: event.enterpriseId,
      branch_id: event.branchId,
      kind: event.kind,
      amount: formatAmount(event.amount),
      payload: JSON.stringify(event.payload),
      product_accounts: JSON.stringify(event.productAccounts ?? {}),
      subject_id: event.subjectId ?? null,
      business_date: event.date,
      actor_id: event.actorId,
      idempotency_key: event.idempotencyKey,
      request_hash: requestHash(event),
    })
    .returning('id');
  const entryId = await postJournalEntry(trx, {
    enterpriseId: event.enterpriseId,
    branchId: event.branchId,
    entryDate: event.date,
    lines: linesForEvent(rule.legs, event.amount, defaultRoleAccounts, event.productAccounts),
    description: event.description ?? event.kind,
    eventId: logged.id,
    ruleConfigId: rule.id,
    createdBy: event.actorId,
  });
  reportOnCommit(trx, { work: 'posting', labels: { kind: event.kind } });
  return { eventId: logged.id as string, entryId };
}
