import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { linesForEvent } from '../../domain/events/journal';
import { moneyMovingKinds, type EventKind } from '../../domain/events/rules';
import { AppError } from '../../domain/errors';
import { formatAmount } from '../../domain/money';
import { reportOnCommit } from '../metrics-channel';
import { defaultRoleAccounts } from './default-rules';
import { ledgerRows } from './ledger-refusal';
import { ledgerLines } from './post-entry';
import { currentRule, requestHash, type BusinessEvent, type RuleRow } from './record-business-event';

/** An event and the day it is dated. */
export type DatedEvent = BusinessEvent & { date: IsoDate };

/**
 * A book-keeping event dated by its caller, not with the business date: what a month end books for a day already
 * past (a period's savings interest on its last day, a term deposit on its maturity day), as the year-end closing
 * dates its entries. The event is logged on that date and the rule in force posts its entry on it, through
 * coopbank_post_entry as postJournalEntry calls it (the year of that date must be open). The caller guards "once"
 * (its subject locked, its own row of the operation looked up, then written in the same transaction), so the log's
 * unique key is only the last guard here. The rule must be in force: what the caller moves alongside (a member's
 * balance) must have its entry.
 */
export async function recordDatedEvent(
  trx: Knex.Transaction,
  event: DatedEvent,
): Promise<{ eventId: string; entryId: string }> {
  const [draft] = await logDatedEvents(trx, [event]);
  const [entryId] = await postLoggedEvents(trx, [draft!]);
  return { eventId: draft!.event, entryId: entryId! };
}

/** The rule in force of each kind among the events, refused as recordDatedEvent refuses one. */
async function rulesInForce(trx: Knex.Transaction, events: readonly DatedEvent[]) {
  const rules = new Map<EventKind, RuleRow>();
  for (const event of events) {
    if (rules.has(event.kind)) continue;
    // A money-moving kind goes through recordBusinessEvent, whose statement refuses it for a suspended enterprise.
    if (moneyMovingKinds.has(event.kind))
      throw new Error(`recordDatedEvent: ${event.kind} moves money, record it on the business date`);
    const rule = await currentRule(trx, event.enterpriseId, event.kind);
    if (rule === undefined || !rule.is_active)
      throw new AppError(
        'conflict',
        'rule_inactive',
        `The accounting rule of ${event.kind} is not in force: nothing of it can be posted.`,
      );
    rules.set(event.kind, rule);
  }
  return rules;
}

/** An event logged, with the entry it is to post: coopbank_post_entry's arguments. */
interface EntryDraft {
  kind: EventKind;
  enterprise: string;
  branch: string | null;
  entry_date: IsoDate;
  description: string;
  event: string;
  rule_config: string;
  created_by: string | null;
  lines: ReturnType<typeof ledgerLines>;
}

/**
 * recordDatedEvent for many events at once, its first half: the rules in force read, the events logged in one
 * statement and their entries drafted. A caller writing more of its own in the transaction (a month end's savings
 * interest) posts the entries last (postLoggedEvents): the journal's number, taken by the first entry, is then held
 * only until the commit.
 */
export async function logDatedEvents(trx: Knex.Transaction, events: readonly DatedEvent[]): Promise<EntryDraft[]> {
  if (events.length === 0) return [];
  const rules = await rulesInForce(trx, events);
  const logged: { id: string; idempotency_key: string }[] = await trx('business_event_logs')
    .insert(
      events.map((event) => ({
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
      })),
    )
    .returning(['id', 'idempotency_key']);
  const eventIds = new Map(logged.map((row) => [row.idempotency_key, row.id]));
  return events.map((event) => {
    const rule = rules.get(event.kind)!;
    const lines = linesForEvent(rule.legs, event.amount, defaultRoleAccounts, event.productAccounts);
    return {
      kind: event.kind,
      enterprise: event.enterpriseId,
      branch: event.branchId,
      entry_date: event.date,
      description: event.description ?? event.kind,
      event: eventIds.get(event.idempotencyKey)!,
      rule_config: rule.id,
      created_by: event.actorId,
      lines: ledgerLines(lines),
    };
  });
}

/**
 * The second half: each logged event's entry posted by coopbank_post_entry, called once per event
 * in one SELECT. Answers the entries' ids, in the events' order.
 */
export async function postLoggedEvents(trx: Knex.Transaction, drafts: readonly EntryDraft[]): Promise<string[]> {
  if (drafts.length === 0) return [];
  // The function scan yields the drafts in their order; each call numbers its entry in its journal and year.
  const posted = await ledgerRows<{ ord: string; id: string }>(
    trx.raw(
      `
    SELECT d.ord, coopbank_post_entry((d.value->>'enterprise')::uuid, (d.value->>'branch')::uuid,
      (d.value->>'entry_date')::date, d.value->'lines',
                                      d.value->>'description', (d.value->>'event')::uuid,
                                        (d.value->>'rule_config')::uuid, NULL, (d.value->>'created_by')::uuid) AS id
      FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS d(value, ord)`,
      [JSON.stringify(drafts)],
    ),
  );
  const entryIds = new Map(posted.map((row) => [Number(row.ord), row.id]));
  for (const { kind } of drafts) reportOnCommit(trx, { work: 'posting', labels: { kind } });
  return drafts.map((_, index) => entryIds.get(index + 1)!);
}
