import { businessEventById, ruleById, type EventRow } from '../../../activities/events/events.queries';
import { replayById } from '../../../activities/events/replays.queries';
import type { Knex } from 'knex';
import type { Loader } from '../../route';
import { enterpriseRowLoader } from '../enterprise-scope';

/** The resources of the events module a route loads by id (the router checks access: api/router.ts). */
export const eventLoaders = {
  rule: enterpriseRowLoader('The rule', ruleById),
  /** A replay request: the enterprise's, decided by its administrators. */
  replay: enterpriseRowLoader('The replay request', replayById),
  /** A business event; one of no branch (share capital) is the enterprise's, as its list shows it. */
  event: {
    name: 'The event',
    load: async ({ knex }, id) => businessEventById(knex, id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
    wholeEnterprise: (row) => row.branch_id === null,
  } satisfies Loader<EventRow>,
};

/** The entry an event posted (not its reversal), a subquery on a row's event column: a list's link to its entry. */
export const entryOf = (knex: Knex, eventColumn: string) =>
  knex('journal_entries as je')
    .whereRaw('je.event_id = ??', [eventColumn])
    .whereNull('je.reverses_entry_id')
    .select('je.id')
    .limit(1);
