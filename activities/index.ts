import type { Knex } from 'knex';
import { describeDatabase } from './describe-database.activity';
import { markReplayFailed, replayEventBatch } from './ledger/event-replay.activity';

export interface ActivityDeps {
  knex: Knex;
  clock: () => Date;
}

/**
 * The activities the worker registers, bound to their dependencies. Workflows import only the *type* of
 * this factory's result, so no database code enters the workflow sandbox. Each takes one object argument.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    describeDatabase: () => describeDatabase(deps.knex),
    replayEventBatch: (input: { requestId: string; batchSize: number }) => replayEventBatch(deps.knex, deps.clock(), input),
    markReplayFailed: (input: { requestId: string; failure: string }) => markReplayFailed(deps.knex, deps.clock(), input),
  };
}

export type Activities = ReturnType<typeof createActivities>;
