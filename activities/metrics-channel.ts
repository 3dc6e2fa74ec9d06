import { channel } from 'node:diagnostics_channel';
import type { Knex } from 'knex';
import type { EventKind } from '../domain/events/rules';
import type { DecisionKind } from '../domain/loans/approval';

/** Business work an activity committed, with the labels its counter takes (api/metrics.ts counts them). */
export type CommittedWork =
  | { work: 'posting'; labels: { kind: EventKind } }
  | { work: 'loan_decision'; labels: { decision: DecisionKind | 'withdraw' } }
  | { work: 'provisioning_run'; labels: { outcome: 'completed' | 'failed' } };

// A process-wide channel rather than a sink carried in every activity's arguments: the ledger is reached from a
// dozen activities, through the API and the worker alike. Publishing costs nothing while nobody listens.
const committed = channel('coopbank:committed-work');

/**
 * Reports `work` once the transaction that did it commits, and only then: an attempt rolled back (a serialization
 * failure retried by inTransaction, a refusal thrown later in the same transaction) reports nothing.
 */
export function reportOnCommit(trx: Knex.Transaction, work: CommittedWork): void {
  if (!committed.hasSubscribers) return;
  Promise.all(enclosing(trx).map((level) => level.executionPromise)).then(
    () => committed.publish(work),
    () => undefined, // the caller sees the rollback; nothing was done
  );
}

/** Reports work committed by a single statement, outside any transaction. */
export function reportCommitted(work: CommittedWork): void {
  committed.publish(work);
}

/** Calls `listener` with each work reported in this process; returns what stops it. */
export function onCommittedWork(listener: (work: CommittedWork) => void): () => void {
  const handler = (message: unknown) => listener(message as CommittedWork);
  committed.subscribe(handler);
  return () => committed.unsubscribe(handler);
}

/**
 * A savepoint's work is committed with its outermost transaction, not when the savepoint is released, and only if
 * no savepoint around it was rolled back (a four-eyes request tries its operation and rolls it back).
 */
function enclosing(trx: Knex.Transaction): Knex.Transaction[] {
  return trx.parentTransaction === undefined ? [trx] : [trx, ...enclosing(trx.parentTransaction)];
}
