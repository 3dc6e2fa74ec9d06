import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { moneyMovingKinds, type EventKind, type RoleAccounts, type RuleLeg } from '../../domain/events/rules';
import { formatAmount, type Money } from '../../domain/money';
import { reportCommitted, reportOnCommit } from '../metrics-channel';
import { defaultRoleAccounts } from './default-rules';
import { ledgerCall } from './ledger-refusal';

export interface BusinessEvent {
  enterpriseId: string;
  branchId: string | null;
  kind: EventKind;
  amount: Money;
  /** What happened, for the log and for replays: ids of the account, loan, member… */
  payload: Record<string, unknown>;
  /** The resource the event moves (a CompteClient, a loan): its statement is read through this. */
  subjectId?: string;
  /** Unique per enterprise: the same key with the same event is the same event (a retry), never a second one. */
  idempotencyKey: string;
  actorId: string | null;
  /** The accounts the product involved gives to roles (a savings product's deposit account…). */
  productAccounts?: Partial<RoleAccounts>;
  description?: string;
}

export interface RecordedEvent {
  eventId: string;
  /** null when the rule of this kind is inactive: the event is logged, nothing is posted. */
  entryId: string | null;
  businessDate: string;
  /** true when the key had been recorded already: nothing new was written. */
  replayed: boolean;
  recordedAt: Date;
}

/** What the log keeps of an event to tell a retry (the same request) from a reused key. */
export function requestHash(event: BusinessEvent): string {
  const { enterpriseId, branchId, kind, amount, payload, productAccounts } = event;
  return createHash('sha256')
    .update(
      JSON.stringify({
        enterpriseId,
        branchId,
        kind,
        amount: formatAmount(amount),
        payload,
        productAccounts: productAccounts ?? {},
      }),
    )
    .digest('hex');
}

/** The default account of each role, as the ledger functions take it. */
export const defaultAccountsJson = JSON.stringify(defaultRoleAccounts);

/**
 * The one entry point of every module into the books. In the caller's transaction and in one statement
 * (coopbank_record_event): appends the event to the log, dated with the enterprise's business date, and posts the
 * entry the rule of its kind in force produces. The idempotency key is enforced by a unique index: a concurrent
 * twin waits for our commit, then sees our row. Refusals are AppErrors: not_found (the enterprise),
 * idempotency_key_reused, enterprise_suspended (a money-moving kind), and those of postJournalEntry.
 *
 * `alongside`, an update of the caller's that goes with the event (the balance it moves), is sent in the same
 * statement, and takes effect only if the event is new: a replayed event changes nothing.
 */
export async function recordBusinessEvent(
  trx: Knex.Transaction,
  now: Date,
  event: BusinessEvent,
  alongside?: Knex.QueryBuilder,
): Promise<RecordedEvent> {
  const call = eventCall(trx, now, event);
  const statement =
    alongside === undefined
      ? call
      : trx.raw('WITH recorded AS (?), alongside AS (?) SELECT * FROM recorded', [
          call,
          alongside.whereRaw('NOT (SELECT replayed FROM recorded)'),
        ]);
  const recorded = await ledgerCall<{
    event_id: string;
    entry_id: string | null;
    business_date: string;
    recorded_at: Date;
    replayed: boolean;
  }>(statement);
  reportPostings(trx, [event], [recorded]);
  return {
    eventId: recorded.event_id,
    entryId: recorded.entry_id,
    businessDate: recorded.business_date,
    replayed: recorded.replayed,
    recordedAt: recorded.recorded_at,
  };
}

/** What the statement of recordedEventsQuery answers of each event: whether it posted something new. */
export interface EventPosting {
  entry_id: string | null;
  replayed: boolean;
}

/**
 * Several events of one operation as the text of a query to be a CTE of the statement that writes the operation's
 * own rows, so that the operation and all its entries cost one round trip: recordBusinessEvent's call of each, in
 * the order of the events (column `ord`, from 1), each answering as recordBusinessEvent's statement does. One text
 * per number of events, so that the caller's statement can be a named (prepared) one; its parameters, in order, are
 * recordedEventsBindings. The caller runs its statement through ledgerCall (the same refusals) and gives the events'
 * rows, in order, to reportPostings.
 */
export function recordedEventsStatement(count: number): string {
  if (count === 0) throw new Error('recordedEventsStatement: no event to record');
  return Array.from(
    { length: count },
    (_, index) => `SELECT ${index + 1} AS ord, e.* FROM (${eventCallStatement}) e`,
  ).join(' UNION ALL ');
}

export const recordedEventsBindings = (now: Date, events: readonly BusinessEvent[]): Knex.RawBinding[] =>
  events.flatMap((event) => eventBindings(now, event));

/**
 * The posting counter of each event that posted a new entry, counted when the transaction commits (at once after a
 * statement outside any).
 */
export function reportPostings(db: Knex, events: readonly BusinessEvent[], recorded: readonly EventPosting[]): void {
  events.forEach((event, index) => {
    const posting = recorded[index]!;
    if (posting.entry_id === null || posting.replayed) return;
    const work = { work: 'posting', labels: { kind: event.kind } } as const;
    if (db.isTransaction === true) reportOnCommit(db as Knex.Transaction, work);
    else reportCommitted(work);
  });
}

const eventCallStatement =
  'SELECT * FROM coopbank_record_event(?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?::timestamptz, ?, ?::jsonb, ?)';

function eventCall(trx: Knex, now: Date, event: BusinessEvent): Knex.Raw {
  return trx.raw(eventCallStatement, eventBindings(now, event));
}

function eventBindings(now: Date, event: BusinessEvent): Knex.RawBinding[] {
  return [
    event.enterpriseId,
    event.branchId,
    event.kind,
    formatAmount(event.amount),
    JSON.stringify(event.payload),
    JSON.stringify(event.productAccounts ?? {}),
    event.subjectId ?? null,
    event.actorId,
    event.idempotencyKey,
    requestHash(event),
    now.toISOString(),
    moneyMovingKinds.has(event.kind),
    defaultAccountsJson,
    event.description ?? event.kind,
  ];
}

export interface RuleRow {
  id: string;
  kind: EventKind;
  version: number;
  legs: RuleLeg[];
  is_active: boolean;
}

export async function currentRule(
  trx: Knex.Transaction | Knex,
  enterpriseId: string,
  kind: EventKind,
): Promise<RuleRow | undefined> {
  return trx('accounting_rule_configs')
    .where({ enterprise_id: enterpriseId, kind })
    .orderBy('version', 'desc')
    .first('id', 'kind', 'version', 'legs', 'is_active');
}
