import type { Knex } from 'knex';
import { linesForEvent, reversalOf, sameEffect, type JournalLine } from '../../domain/events/journal';
import type { EventKind, RoleAccounts } from '../../domain/events/rules';
import { NotFoundError } from '../../domain/errors';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { defaultRoleAccounts } from './default-rules';
import { postJournalEntry } from './post-entry';
import { postedTill } from '../cash/tills.queries';
import { currentRule } from './record-business-event';

export interface ReplayProgress {
  requestId: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  eventsSeen: number;
  eventsChanged: number;
  entriesPosted: number;
  eventsFailed: number;
}

type Outcome =
  | { outcome: 'unchanged' | 'changed' }
  | { outcome: 'reposted'; reversalEntryId: string | null; newEntryId: string | null }
  | { outcome: 'failed'; detail: string };

interface EventRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  kind: EventKind;
  amount: string;
  product_accounts: Partial<RoleAccounts>;
  created_at: string;
}

/** The request's next batch of events, after its cursor, in the order of their recording. */
async function nextEvents(
  trx: Knex.Transaction,
  request: {
    id: string;
    enterprise_id: string;
    date_from: string;
    date_to: string;
    kinds: string[];
    cursor_event_id: string | null;
  },
  batchSize: number,
): Promise<EventRow[]> {
  return (
    trx('business_event_logs')
      .where({ enterprise_id: request.enterprise_id })
      .whereBetween('business_date', [request.date_from, request.date_to])
      .modify((query) => {
        if (request.kinds.length > 0) query.whereIn('kind', request.kinds);
        // Compared in SQL, against the stored cursor: read into JS, the timestamp would lose its microseconds.
        if (request.cursor_event_id !== null) {
          query.whereRaw(
            '(created_at, id) > (SELECT cursor_created_at, cursor_event_id FROM event_replay_requests WHERE id = ?)',
            [request.id],
          );
        }
      })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(batchSize)
      // created_at as text: a JS Date would drop the microseconds and the cursor would re-read the last event.
      .select(
        'id',
        'enterprise_id',
        'branch_id',
        'kind',
        'amount',
        'product_accounts',
        trx.raw('created_at::text AS created_at'),
      )
  );
}

/**
 * Replays the next batch of a request, all in one transaction: the outcomes, the postings and the cursor
 * commit together. A worker dying mid-batch leaves nothing behind, and a retry (or a new worker) starts from
 * the committed cursor, so no event is posted twice. The request row is locked first: two attempts of the
 * same batch cannot run side by side.
 */
export async function replayEventBatch(
  knex: Knex,
  now: Date,
  input: { requestId: string; batchSize: number },
): Promise<ReplayProgress> {
  return inTransaction(knex, async (trx) => {
    const request = await trx('event_replay_requests').where({ id: input.requestId }).forUpdate().first();
    if (request === undefined) throw new NotFoundError(`Replay request ${input.requestId}`);
    if (request.status === 'completed' || request.status === 'failed') return progressOf(request);
    const events = await nextEvents(trx, request, input.batchSize);
    const done = new Set(
      await trx('event_replay_results')
        .where({ request_id: request.id })
        .whereIn(
          'event_id',
          events.map((event) => event.id),
        )
        .pluck('event_id'),
    );
    const counts = { seen: 0, changed: 0, posted: 0, failed: 0 };
    for (const event of events.filter((candidate) => !done.has(candidate.id))) {
      const outcome = await trx
        .transaction((savepoint) => replayOne(savepoint, now, event, request.mode))
        .catch((error: Error) => ({ outcome: 'failed' as const, detail: error.message.slice(0, 500) }));
      await trx('event_replay_results')
        .insert({
          enterprise_id: request.enterprise_id,
          request_id: request.id,
          event_id: event.id,
          outcome: outcome.outcome,
          reversal_entry_id: outcome.outcome === 'reposted' ? outcome.reversalEntryId : null,
          new_entry_id: outcome.outcome === 'reposted' ? outcome.newEntryId : null,
          detail: outcome.outcome === 'failed' ? outcome.detail : '',
        })
        // The unique key is the last guard of "once per (request, event)"; the lock above makes it unreachable.
        .onConflict(['request_id', 'event_id', 'enterprise_id'])
        .ignore();
      counts.seen += 1;
      if (outcome.outcome === 'changed' || outcome.outcome === 'reposted') counts.changed += 1;
      if (outcome.outcome === 'reposted')
        counts.posted += (outcome.reversalEntryId ? 1 : 0) + (outcome.newEntryId ? 1 : 0);
      if (outcome.outcome === 'failed') counts.failed += 1;
    }
    const last = events[events.length - 1];
    const [updated] = await trx('event_replay_requests')
      .where({ id: request.id })
      .update({
        status: events.length < input.batchSize ? 'completed' : 'running',
        finished_at: events.length < input.batchSize ? now : null,
        events_seen: request.events_seen + counts.seen,
        events_changed: request.events_changed + counts.changed,
        entries_posted: request.entries_posted + counts.posted,
        events_failed: request.events_failed + counts.failed,
        ...(last === undefined ? {} : { cursor_created_at: last.created_at, cursor_event_id: last.id }),
      })
      .returning('*');
    return progressOf(updated);
  });
}

/** One event under the current rule: unchanged, changed (dry run), or reversed and posted anew (apply). */
async function replayOne(
  trx: Knex.Transaction,
  now: Date,
  event: EventRow,
  mode: 'dry_run' | 'apply',
): Promise<Outcome> {
  const effective = await trx('journal_entries as e')
    .where({ 'e.event_id': event.id })
    .whereNull('e.reverses_entry_id')
    .whereNotExists((sub) => sub.select(1).from('journal_entries as r').whereRaw('r.reverses_entry_id = e.id'))
    .orderBy('e.created_at', 'desc')
    .first('e.id');
  const posted = effective === undefined ? [] : await linesOfEntry(trx, effective.id);
  const rule = await currentRule(trx, event.enterprise_id, event.kind);
  // Cash posted to a till under till control stays there (docs/domain.md §13.1): its log names 5710, its entry the
  // till.
  const till = await postedTill(
    trx,
    event.branch_id,
    posted.map((line) => line.account),
  );
  const productAccounts = till === undefined ? event.product_accounts : { ...event.product_accounts, cash: till };
  const wanted = rule?.is_active
    ? linesForEvent(rule.legs, new Money(event.amount), defaultRoleAccounts, productAccounts)
    : [];
  if (sameEffect(posted, wanted)) return { outcome: 'unchanged' };
  if (mode === 'dry_run') return { outcome: 'changed' };
  const entryDate = await businessDateOf(trx, event.enterprise_id, now);
  const common = {
    enterpriseId: event.enterprise_id,
    branchId: event.branch_id,
    entryDate,
    createdBy: null,
    eventId: event.id,
  };
  const reversalEntryId =
    effective === undefined
      ? null
      : await postJournalEntry(trx, {
          ...common,
          lines: reversalOf(posted),
          reversesEntryId: effective.id,
          description: `replay: reversal of ${event.kind}`,
        });
  const newEntryId =
    wanted.length === 0
      ? null
      : await postJournalEntry(trx, {
          ...common,
          lines: wanted,
          ruleConfigId: rule!.id,
          description: `replay: ${event.kind} under rule v${rule!.version}`,
        });
  return { outcome: 'reposted', reversalEntryId, newEntryId };
}

async function linesOfEntry(trx: Knex.Transaction, entryId: string): Promise<JournalLine[]> {
  const rows = await trx('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('l.entry_id', entryId)
    .orderBy('l.id')
    .select('c.code', 'l.debit', 'l.credit');
  return rows.map((row) => ({ account: row.code, debit: new Money(row.debit), credit: new Money(row.credit) }));
}

function progressOf(row: Record<string, unknown>): ReplayProgress {
  return {
    requestId: row.id as string,
    status: row.status as ReplayProgress['status'],
    eventsSeen: row.events_seen as number,
    eventsChanged: row.events_changed as number,
    entriesPosted: row.entries_posted as number,
    eventsFailed: row.events_failed as number,
  };
}

/** After the workflow gave up (retries exhausted): the request says so, with the reason. */
export async function markReplayFailed(
  knex: Knex,
  now: Date,
  input: { requestId: string; failure: string },
): Promise<void> {
  await knex('event_replay_requests')
    .where({ id: input.requestId })
    .whereNot('status', 'completed')
    .update({ status: 'failed', failure: input.failure.slice(0, 1000), finished_at: now });
}

export interface ReplayRequestInput {
  enterpriseId: string;
  dateFrom: string;
  dateTo: string;
  kinds: EventKind[];
  mode: 'dry_run' | 'apply';
}

/** Records the request (the workflow then runs it); audited, administrators only (checked by the caller). */
export async function createReplayRequest(
  knex: Knex,
  actor: Actor,
  input: ReplayRequestInput,
): Promise<Record<string, unknown> & { id: string }> {
  return inTransaction(knex, async (trx) => {
    const [request] = await trx('event_replay_requests')
      .insert({
        enterprise_id: input.enterpriseId,
        date_from: input.dateFrom,
        date_to: input.dateTo,
        kinds: input.kinds,
        mode: input.mode,
        requested_by: actor.userId,
      })
      .returning('*');
    await recordAudit(trx, actor, {
      action: 'event_replay.request',
      entityType: 'event_replay',
      entityId: request.id,
      enterpriseId: input.enterpriseId,
      details: { ...input },
    });
    return request;
  });
}
