import * as yup from 'yup';
import { createReplayRequest, markReplayFailed } from '../../../activities/events/event-replay.activity';
import {
  replayById,
  replayColumns,
  replayModes,
  replayStatuses,
  type ReplayRow,
} from '../../../activities/events/replays.queries';
import { eventKinds } from '../../../domain/events/rules';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { startWorkflowFor } from '../../workflow-start';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import type { eventReplay } from '../../../workflows/event-replay.workflow';
import { eventReplayWorkflowId } from '../../../workflows/identities';
import { eventLoaders } from './events.queries';

const eventReplaySchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    date_from: dateResponse(),
    date_to: dateResponse(),
    kinds: yup.array(yup.string().oneOf(eventKinds).required()).required().meta({ description: 'Empty: every kind.' }),
    mode: yup.string().oneOf(replayModes).required(),
    status: yup.string().oneOf(replayStatuses).required(),
    events_seen: yup.number().integer().required(),
    events_changed: yup
      .number()
      .integer()
      .required()
      .meta({ description: 'Events whose entry changes (dry run) or changed (apply).' }),
    entries_posted: yup.number().integer().required(),
    events_failed: yup.number().integer().required(),
    requested_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
    finished_at: timestampResponse().nullable(),
    failure: yup.string().nullable().defined(),
    workflow_id: yup.string().required(),
  })
  .meta({ component: 'EventReplay' });

function serializeReplay(row: ReplayRow) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    date_from: row.date_from,
    date_to: row.date_to,
    kinds: row.kinds,
    mode: row.mode,
    status: row.status,
    events_seen: row.events_seen,
    events_changed: row.events_changed,
    entries_posted: row.entries_posted,
    events_failed: row.events_failed,
    requested_by: row.requested_by,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    failure: row.failure,
    workflow_id: eventReplayWorkflowId(row.id),
  };
}

/**
 * Event replay (administrators only): re-runs a range of events through the current rules, dry run or apply,
 * in a Temporal workflow whose progress the request row shows.
 */
export const replayRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/events/replays/',
    module: 'events',
    operationId: 'requestEventReplay',
    summary: 'Replay a range of events through the current rules (administrators)',
    description: 'dry_run counts the events whose entry would change; apply posts a reversal and a new entry for each.',
    access: ['admin'],
    status: 202,
    location: '/api/v1/events/replays/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      date_from: isoDate().required(),
      date_to: isoDate()
        .required()
        .test('ordered', 'date_to must not be before date_from', function (value) {
          return value === undefined || this.parent.date_from === undefined || value >= this.parent.date_from;
        }),
      kinds: yup
        .array(yup.string().oneOf(eventKinds).required())
        .max(eventKinds.length)
        .default([])
        .meta({ description: 'Empty: every kind.' }),
      mode: yup.string().oneOf(replayModes).required(),
    }),
    response: eventReplaySchema,
    errorStatuses: [401, 403, 404, 503],
    refusals: ['workflow_unavailable'],
    handler: async ({ body, principal: actor, deps, ctx, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const request = await createReplayRequest(deps.knex, actor, {
        enterpriseId: body.enterprise,
        dateFrom: body.date_from,
        dateTo: body.date_to,
        kinds: body.kinds,
        mode: body.mode,
      });
      await startWorkflowFor<typeof eventReplay>(
        deps,
        'eventReplay',
        {
          workflowId: eventReplayWorkflowId(request.id),
          args: [{ requestId: request.id }],
          tags: { enterpriseId: body.enterprise, businessId: request.id },
        },
        {
          what: 'the replay',
          markFailed: () =>
            markReplayFailed(deps.knex, deps.clock(), {
              requestId: request.id,
              failure: 'the workflow could not be started',
            }),
          log: ctx.state.log,
        },
      );
      return serializeReplay((await replayById(deps.knex, request.id))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/events/replays/',
    module: 'events',
    operationId: 'listEventReplays',
    summary: 'Replay requests with their progress (administrators)',
    access: ['admin'],
    query: listQuerySchema([], { enterprise: enterpriseFilter, status: yup.string().oneOf(replayStatuses).optional() }),
    response: pageSchema(eventReplaySchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      // Replays are the enterprise's: administrators of the whole enterprise (or the platform), as the detail requires.
      const admin = {
        ...principal,
        grants: principal.grants.filter((grant) => grant.role === 'admin' && grant.branchId === null),
      };
      const rows = scopeToVisible(deps.knex('event_replay_requests').select(replayColumns), admin, {
        enterprise: 'enterprise_id',
      }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
      whereFilters(rows, query, { enterprise: 'enterprise_id', status: 'status' });
      const page = await paginateRows<ReplayRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeReplay) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/events/replays/{id}/',
    module: 'events',
    operationId: 'getEventReplay',
    summary: 'One replay request: status and progress (events seen, changed, posted, failed)',
    access: ['admin'],
    load: eventLoaders.replay,
    params: idParams,
    response: eventReplaySchema,
    errorStatuses: [401, 403, 404],
    handler: ({ resource }) => serializeReplay(resource),
  }),
];
