import { ruleById } from '../../../activities/events/events.queries';
import { replayById } from '../../../activities/events/replays.queries';
import type { Knex } from 'knex';
import { enterpriseRowLoader } from '../enterprise-scope';

/** The resources of the events module a route loads by id (the router checks access: api/router.ts). */
export const eventLoaders = {
  rule: enterpriseRowLoader('The rule', ruleById),
  /** A replay request: the enterprise's, decided by its administrators. */
  replay: enterpriseRowLoader('The replay request', replayById),
};

/** The entry an event posted (not its reversal), a subquery on a row's event column: a list's link to its entry. */
export const entryOf = (knex: Knex, eventColumn: string) =>
  knex('journal_entries as je')
    .whereRaw('je.event_id = ??', [eventColumn])
    .whereNull('je.reverses_entry_id')
    .select('je.id')
    .limit(1);
