import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { linesForEvent } from '../../domain/events/journal';
import { moneyMovingKinds, type EventKind, type RoleAccounts, type RuleLeg } from '../../domain/events/rules';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, type Money } from '../../domain/money';
import { effectiveBusinessDate } from '../../domain/calendar';
import { reportOnCommit } from '../metrics-channel';
import { defaultRoleAccounts } from './default-rules';
import { postJournalEntry } from './post-entry';

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

function requestHash(event: BusinessEvent): string {
  const { enterpriseId, branchId, kind, amount, payload, productAccounts } = event;
  return createHash('sha256').update(JSON.stringify({ enterpriseId, branchId, kind, amount: formatAmount(amount), payload, productAccounts: productAccounts ?? {} })).digest('hex');
}

/**
 * The one entry point of every module into the books. In the caller's transaction: appends the event to
 * the log (dated with the enterprise's business date) and posts the entry its current rule produces. The
 * idempotency key is enforced by a unique index: a concurrent twin waits for our commit, then sees our row.
 */
export async function recordBusinessEvent(trx: Knex.Transaction, now: Date, event: BusinessEvent): Promise<RecordedEvent> {
  const hash = requestHash(event);
  const { businessDate, suspended } = await enterpriseStateOf(trx, event.enterpriseId, now);
  const [inserted] = await trx('business_event_logs')
    .insert({
      enterprise_id: event.enterpriseId,
      branch_id: event.branchId,
      kind: event.kind,
      amount: formatAmount(event.amount),
      payload: JSON.stringify(event.payload),
      product_accounts: JSON.stringify(event.productAccounts ?? {}),
      subject_id: event.subjectId ?? null,
      business_date: businessDate,
      actor_id: event.actorId,
      idempotency_key: event.idempotencyKey,
      request_hash: hash,
    })
    .onConflict(['enterprise_id', 'idempotency_key'])
    .ignore()
    .returning(['id', 'created_at']);
  if (inserted === undefined) return replayOf(trx, event, hash);
  // Checked after the replay: a retry of what was recorded before the suspension still gets its answer.
  if (suspended && moneyMovingKinds.has(event.kind)) throw new AppError('conflict', 'enterprise_suspended', 'The enterprise is suspended: it accepts no money movement.');

  const rule = await currentRule(trx, event.enterpriseId, event.kind);
  if (rule === undefined || !rule.is_active) return { eventId: inserted.id, entryId: null, businessDate, replayed: false, recordedAt: inserted.created_at };
  const entryId = await postJournalEntry(trx, {
    enterpriseId: event.enterpriseId,
    branchId: event.branchId,
    entryDate: businessDate,
    lines: linesForEvent(rule.legs, event.amount, defaultRoleAccounts, event.productAccounts),
    description: event.description ?? event.kind,
    eventId: inserted.id,
    ruleConfigId: rule.id,
    createdBy: event.actorId,
  });
  reportOnCommit(trx, { work: 'posting', labels: { kind: event.kind } });
  return { eventId: inserted.id, entryId, businessDate, replayed: false, recordedAt: inserted.created_at };
}

/** The date the event is posted at, and whether the enterprise is suspended (it then moves no money), in one read. */
async function enterpriseStateOf(trx: Knex.Transaction, enterpriseId: string, now: Date): Promise<{ businessDate: string; suspended: boolean }> {
  const state = await trx('enterprise_configurations as c').join('enterprises as e', 'e.id', 'c.enterprise_id').where('c.enterprise_id', enterpriseId).first('c.business_date', 'c.time_zone', 'e.status');
  if (state === undefined) throw new NotFoundError('The enterprise');
  return { businessDate: effectiveBusinessDate({ businessDate: state.business_date, timeZone: state.time_zone }, now), suspended: state.status === 'suspended' };
}

async function replayOf(trx: Knex.Transaction, event: BusinessEvent, hash: string): Promise<RecordedEvent> {
  const existing = await trx('business_event_logs').where({ enterprise_id: event.enterpriseId, idempotency_key: event.idempotencyKey }).first('id', 'request_hash', 'business_date', 'created_at');
  if (existing.request_hash !== hash) {
    throw new AppError('conflict', 'idempotency_key_reused', 'This idempotency key was already used for a different request.');
  }
  const entry = await trx('journal_entries').where({ event_id: existing.id }).whereNull('reverses_entry_id').orderBy('created_at').first('id');
  return { eventId: existing.id, entryId: entry?.id ?? null, businessDate: existing.business_date, replayed: true, recordedAt: existing.created_at };
}

export interface RuleRow {
  id: string;
  kind: EventKind;
  version: number;
  legs: RuleLeg[];
  is_active: boolean;
}

export async function currentRule(trx: Knex.Transaction | Knex, enterpriseId: string, kind: EventKind): Promise<RuleRow | undefined> {
  return trx('accounting_rule_configs').where({ enterprise_id: enterpriseId, kind }).orderBy('version', 'desc').first('id', 'kind', 'version', 'legs', 'is_active');
}
