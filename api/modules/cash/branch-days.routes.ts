import * as yup from 'yup';
import type { Knex } from 'knex';
import { closeBranchDay, type BranchDayRow } from '../../../activities/cash/branch-days.activity';
import { endOfDayWorkflowId } from '../../../workflows/identities';
import { branchDayClosedSignal } from '../../../workflows/definitions';
import type { RouteDeps } from '../../deps';
import { requestOrigin } from '../../context';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { withinTemporalDeadline } from '../../temporal-deadline';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { visibleRows } from '../list-rows';

/** Who closes a branch's day: its head, or a role over the whole enterprise. */
const closers = ['branch_head', 'direction', 'admin'] as const;

const branchDaySchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required(),
    date: dateResponse().meta({ description: 'The business date whose day the branch closed.' }),
    closed_by: yup.string().uuid().required(),
    closed_at: timestampResponse(),
  })
  .meta({ component: 'BranchDay' });

const serializeDay = (row: BranchDayRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  date: row.business_date,
  closed_by: row.closed_by,
  closed_at: row.closed_at.toISOString(),
});

const daysQuery = (knex: Knex) => knex('branch_days').select('*');

const branchDayLoader = {
  name: 'The branch day',
  load: async ({ knex }, id) => daysQuery(knex).where({ id }).first() as Promise<BranchDayRow | undefined>,
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<BranchDayRow>;

/**
 * Wakes the enterprise's end of day of that date, if one waits for its branches: it would otherwise find the close
 * at its next poll. Best effort, bounded: the close is committed whatever Temporal answers.
 */
async function wakeEndOfDay(deps: RouteDeps, day: BranchDayRow): Promise<void> {
  try {
    await withinTemporalDeadline(deps.temporal, () =>
      deps.temporal.workflow
        .getHandle(endOfDayWorkflowId(day.enterprise_id, day.business_date))
        .signal(branchDayClosedSignal),
    );
  } catch {
    // No end of day running for the date (the usual case), or Temporal out of reach: its poll finds the close.
  }
}

/** Branch days (issue 29, docs/domain.md §13.3): a branch's day, closed once by its head before the end of day. */
export const branchDayRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/branch-days/',
    module: 'cash',
    operationId: 'closeBranchDay',
    summary: "Close the branch's day (branch head, direction, administrators), once",
    description:
      'The date must be the business date (`branch_day_not_business_date`, 422 naming ' +
      '`date`). Refused (409 `branch_day_blocked`) while something holds the day: ' +
      'each reason is an entry of `errors`, its field `blockers.<reason>` (today ' +
      '`approvals_pending`: four-eyes requests of the branch that would post once approved). ' +
      'A day already closed is answered as it was closed, nothing changed. ' +
      "The enterprise's end of day waits for every active branch's close.",
    access: closers,
    status: 201,
    location: '/api/v1/cash/branch-days/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      branch: yup.string().uuid().required(),
      date: isoDate().required(),
    }),
    response: branchDaySchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['branch_day_blocked', 'branch_day_not_business_date'],
    handler: async ({ body, principal, deps, ctx, authorize }) => {
      authorize({ enterpriseId: body.enterprise, branchId: body.branch }, 'The branch');
      const closer = { userId: principal.userId, ...requestOrigin(ctx) };
      const { day, closed } = await closeBranchDay(deps.activities, closer, {
        enterpriseId: body.enterprise,
        branchId: body.branch,
        date: body.date,
      });
      if (closed) await wakeEndOfDay(deps, day);
      return serializeDay(day);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/branch-days/',
    module: 'cash',
    operationId: 'listBranchDays',
    summary: 'Closed branch days, latest first (of the branches the caller sees)',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(branchDaySchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(daysQuery(deps.knex), principal, query, {
        enterprise: 'enterprise_id',
        branch: 'branch_id',
        date_from: ['business_date', '>='],
        date_to: ['business_date', '<='],
      });
      const page = await paginateRows<BranchDayRow>(
        rows.orderBy([{ column: 'business_date', order: 'desc' }, { column: 'id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeDay) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/branch-days/{id}/',
    module: 'cash',
    operationId: 'getBranchDay',
    summary: 'One closed branch day',
    access: 'authenticated',
    load: branchDayLoader,
    params: idParams,
    response: branchDaySchema,
    errorStatuses: [401, 404],
    handler: async ({ resource }) => serializeDay(resource),
  }),
];
