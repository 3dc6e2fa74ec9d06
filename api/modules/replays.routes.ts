import * as yup from 'yup';
import { createReplayRequest, markReplayFailed } from '../../activities/ledger/event-replay.activity';
import { eventKinds } from '../../domain/accounting/rules';
import { NotFoundError } from '../../domain/errors';
import { requireRole, signedIn } from '../auth/access';
import { listQuerySchema, paginateRows } from '../pagination';
import { defineRoute } from '../route';
import { startWorkflowFor } from '../workflow-start';
import { enterpriseFilter, idParams, isoDate } from './common.schemas';
import { scopeToVisible } from './enterprise-scope';

const replayColumns = [
  'id', 'enterprise_id as enterprise', 'date_from', 'date_to', 'kinds', 'mode', 'status', 'events_seen', 'events_changed',
  'entries_posted', 'events_failed', 'requested_by', 'created_at', 'finished_at', 'failure',
];

/** Workflow id from the business id: a retried POST cannot start a twin (docs/architecture.md §5). */
export const replayWorkflowId = (requestId: string) => `event-replay-${requestId}`;

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
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      date_from: isoDate().required(),
      date_to: isoDate().required().test('ordered', 'date_to must not be before date_from', function (value) {
        return value === undefined || this.parent.date_from === undefined || value >= this.parent.date_from;
      }),
      kinds: yup.array(yup.string().oneOf(eventKinds).required()).max(eventKinds.length).default([]).meta({ description: 'Empty: every kind.' }),
      mode: yup.string().oneOf(['dry_run', 'apply'] as const).required(),
    }),
    errorStatuses: [401, 403, 404, 503],
    handler: async ({ body, principal, deps, ctx }) => {
      const actor = signedIn(principal);
      requireRole(actor, ['admin'], { enterpriseId: body.enterprise }, 'The enterprise');
      const request = await createReplayRequest(deps.knex, actor, { enterpriseId: body.enterprise, dateFrom: body.date_from, dateTo: body.date_to, kinds: body.kinds, mode: body.mode });
      await startWorkflowFor(deps, 'eventReplay', { workflowId: replayWorkflowId(request.id as string), args: [{ requestId: request.id }] }, {
        what: 'the replay',
        markFailed: () => markReplayFailed(deps.knex, deps.clock(), { requestId: request.id as string, failure: 'the workflow could not be started' }),
        log: ctx.state.log,
      });
      return { ...(await deps.knex('event_replay_requests').where({ id: request.id }).first(replayColumns)), workflow_id: replayWorkflowId(request.id as string) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/events/replays/',
    module: 'events',
    operationId: 'listEventReplays',
    summary: 'Replay requests with their progress (administrators)',
    access: ['admin'],
    query: listQuerySchema([], { enterprise: enterpriseFilter, status: yup.string().oneOf(['pending', 'running', 'completed', 'failed']).optional() }),
    errorStatuses: [401, 403],
    handler: ({ query, principal, deps, ctx }) => {
      // Replays are the enterprise's: administrators of the whole enterprise (or the platform), as the detail requires.
      const admin = { ...signedIn(principal), grants: signedIn(principal).grants.filter((grant) => grant.role === 'admin' && grant.branchId === null) };
      const rows = scopeToVisible(deps.knex('event_replay_requests').select(replayColumns), admin, { enterprise: 'enterprise_id' }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
      if (query.enterprise !== undefined) rows.where('enterprise_id', query.enterprise);
      if (query.status !== undefined) rows.where('status', query.status);
      return paginateRows(rows, query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/events/replays/{id}/',
    module: 'events',
    operationId: 'getEventReplay',
    summary: 'One replay request: status and progress (events seen, changed, posted, failed)',
    access: ['admin'],
    params: idParams,
    errorStatuses: [401, 403, 404],
    handler: async ({ params, principal, deps }) => {
      const request = await deps.knex('event_replay_requests').where({ id: params.id }).first(replayColumns);
      if (request === undefined) throw new NotFoundError('The replay request');
      requireRole(signedIn(principal), ['admin'], { enterpriseId: request.enterprise }, 'The replay request');
      return { ...request, workflow_id: replayWorkflowId(request.id) };
    },
  }),
];
