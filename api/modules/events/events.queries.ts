import { ruleById } from '../../../activities/events/events.queries';
import { replayById } from '../../../activities/events/replays.queries';
import { enterpriseRowLoader } from '../enterprise-scope';

/** The resources of the events module a route loads by id (the router checks access: api/router.ts). */
export const eventLoaders = {
  rule: enterpriseRowLoader('The rule', ruleById),
  /** A replay request: the enterprise's, decided by its administrators. */
  replay: enterpriseRowLoader('The replay request', replayById),
};
