import * as yup from 'yup';
import { updateConfiguration } from '../../../activities/enterprise/configuration.activity';
import { assertNoOpenTillSession } from '../../../activities/cash/tills.queries';
import { secondRestructuringRules } from '../../../domain/loans/restructuring';
import { configurationsQuery } from '../../../activities/enterprise/configuration.queries';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseLoaders } from './enterprise.queries';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { accountCodeSchema, enterpriseFilter, isoDate } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { amountSchema } from '../money.schemas';
import { refreshEnterpriseSchedules } from './schedules.temporal';
import {
  configurationSchema,
  ladderStepSchema,
  secondRestructuringDescription,
  serializeConfiguration,
} from './configuration.schemas';

/** The limits as sent: absent steps have no limit. */
const stripUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;

const nestedParams = yup.object({ enterprise_pk: yup.string().uuid().required() });

/** The parameters of each enterprise that later modules read; typed, validated, audited. */
export const configurationRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/configuration/',
    module: 'enterprise',
    operationId: 'listConfigurations',
    summary: 'General configuration of the enterprises the user may see',
    access: 'authenticated',
    query: listQuerySchema([], { enterprise: enterpriseFilter }),
    errorStatuses: [401],
    response: pageSchema(configurationSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(configurationsQuery(deps.knex), principal, { enterprise: 'enterprise_id' });
      whereFilters(builder, query, { enterprise: 'enterprise_id' });
      const page = await paginate(builder, { query, url: new URL(ctx.href), orderingColumns: {}, defaultOrdering: '' });
      return {
        ...page,
        results: page.results.map((configuration) => serializeConfiguration(configuration, deps.clock())),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/enterprises/{enterprise_pk}/configuration/',
    module: 'enterprise',
    operationId: 'getConfiguration',
    summary: 'General configuration of one enterprise',
    access: 'authenticated',
    load: enterpriseLoaders.configuration,
    params: nestedParams,
    response: configurationSchema,
    errorStatuses: [401, 404],
    handler: ({ resource, deps }) => serializeConfiguration(resource, deps.clock()),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/enterprise/enterprises/{enterprise_pk}/configuration/',
    module: 'enterprise',
    operationId: 'updateConfiguration',
    summary: 'Change parameters (direction, administrators); the business date only moves forward',
    access: ['direction', 'admin'],
    load: enterpriseLoaders.configuration,
    params: nestedParams,
    body: yup.object({
      time_zone: yup.string().max(64).optional(),
      business_date: isoDate().nullable().optional().meta({ description: 'null: follow the calendar again.' }),
      share_withdrawal_notice_days: yup.number().integer().min(0).max(3650).optional(),
      share_refund_reminder_days: yup.number().integer().min(0).max(365).optional(),
      approval_step_time_limit_days: yup.number().integer().min(1).max(365).optional(),
      provisioning_hour: yup.number().integer().min(0).max(23).optional(),
      provisioning_ladder: yup.array(ladderStepSchema).min(1).max(20).optional(),
      credit_cap_mode: yup.string().oneOf(['enforce', 'warn']).optional(),
      allow_several_open_exercices: yup.boolean().optional(),
      opening_suspense_account_code: accountCodeSchema().optional(),
      end_of_day_hour: yup.number().integer().min(0).max(23).nullable().optional().meta({
        description: 'The hour the end of day starts by itself each day; null: only when direction starts it.',
      }),
      inter_branch_service: yup.boolean().optional(),
      second_restructuring_rule: yup
        .string()
        .oneOf(secondRestructuringRules)
        .optional()
        .meta({ description: secondRestructuringDescription }),
      approval_limits: yup
        .object({
          cashier: amountSchema().optional(),
          branch_head: amountSchema().optional(),
          credit_committee: amountSchema().optional(),
        })
        .default(undefined) // a yup object defaults to {}: absent must stay absent (no change)
        .optional()
        .meta({
          description:
            "A loan up to the limit of a step is granted by that step's " +
            'approval; limits grow along the circuit. {} = all four steps.',
        }),
    }),
    response: configurationSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: [
      'business_date_backwards',
      'business_date_till_sessions_open',
      'day_closed',
      'approval_change_mixed',
      ...fourEyesRefusals,
    ],
    handler: async ({ params, body, principal: actor, deps, ctx }) => {
      const enterpriseId = params.enterprise_pk;
      const apply = async () => {
        const updated = await updateConfiguration(deps.activities, actor, enterpriseId, {
          timeZone: body.time_zone,
          businessDate: body.business_date,
          shareWithdrawalNoticeDays: body.share_withdrawal_notice_days,
          shareRefundReminderDays: body.share_refund_reminder_days,
          approvalStepTimeLimitDays: body.approval_step_time_limit_days,
          provisioningHour: body.provisioning_hour,
          provisioningLadder: body.provisioning_ladder,
          creditCapMode: body.credit_cap_mode,
          allowSeveralOpenExercices: body.allow_several_open_exercices,
          openingSuspenseAccountCode: body.opening_suspense_account_code,
          endOfDayHour: body.end_of_day_hour,
          interBranchService: body.inter_branch_service,
          secondRestructuringRule: body.second_restructuring_rule,
          approvalLimits: body.approval_limits === undefined ? undefined : stripUndefined(body.approval_limits),
        });
        const scheduled = [body.provisioning_hour, body.time_zone, body.end_of_day_hour].some(
          (field) => field !== undefined,
        );
        if (scheduled) await refreshEnterpriseSchedules(deps, updated.enterpriseId, ctx.state.log);
        return serializeConfiguration(updated, deps.clock());
      };
      if (body.business_date === undefined) return apply();
      // Refused when asked too, not only when a second person approves it (the executor checks again then).
      await assertNoOpenTillSession(deps.knex, enterpriseId);
      // Moving the business date re-dates what follows: under four eyes when the policy says so (docs/domain.md §11).
      const others = Object.keys(body).filter(
        (field) => field !== 'business_date' && body[field as keyof typeof body] !== undefined,
      );
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'business_date.move',
          payload: { enterpriseId, changes: { businessDate: body.business_date } },
          scope: { enterpriseId },
          summary:
            body.business_date === null
              ? 'Let the business date follow the calendar again'
              : `Move the business date to ${body.business_date}`,
          alone: { field: 'business_date', others },
        },
        apply,
      );
    },
  }),
];
