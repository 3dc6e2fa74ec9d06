import type { Knex } from 'knex';
import * as yup from 'yup';
import { updateConfiguration } from '../../../activities/enterprise/configuration.activity';
import { assertNoOpenTillSession } from '../../../activities/cash/tills.queries';
import { effectiveBusinessDate } from '../../../domain/calendar';
import { NotFoundError } from '../../../domain/errors';
import { secondRestructuringRules } from '../../../domain/loans/restructuring';
import { EnterpriseConfiguration } from '../../../db/models/enterprise-configuration.model';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseLoaders } from './enterprise.queries';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { accountCodeSchema, dateResponse, enterpriseFilter, isoDate, timestampResponse } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { amountSchema } from '../money.schemas';
import { refreshEnterpriseSchedules } from './schedules.temporal';

const secondRestructuringDescription = 'What a second or later restructuring does to the loan\'s class (docs/domain.md §14.2): '
  + '`doubtful` (default) from its date until the R-2017/07 Art. 14 payment, or `as_first`: Art. 14 as for the first.';

const ladderStepSchema = yup.object({
  days_from: yup.number().integer().min(0).required(),
  days_to: yup.number().integer().min(0).nullable().defined(),
  rate: yup.string().required().meta({ description: 'Decimal from 0 to 1, e.g. "0.25".' }),
});

const configurationSchema = yup.object({
  enterprise: yup.string().uuid().required(),
  time_zone: yup.string().required(),
  currency: yup.string().required(),
  business_date: dateResponse().meta({ description: 'In force: the date set by direction, or today in the time zone.' }),
  business_date_is_set: yup.boolean().required().meta({ description: 'false: business_date follows the calendar.' }),
  share_withdrawal_notice_days: yup.number().integer().required(),
  share_refund_reminder_days: yup.number().integer().required().meta({ description: 'Days before a share refund falls due when the board is reminded.' }),
  approval_step_time_limit_days: yup.number().integer().required(),
  provisioning_hour: yup.number().integer().required(),
  provisioning_ladder: yup.array(ladderStepSchema).required(),
  credit_cap_mode: yup.string().oneOf(['enforce', 'warn']).required(),
  allow_several_open_exercices: yup.boolean().required(),
  opening_suspense_account_code: yup.string().required().meta({ description: 'Where an opening entry puts each branch\'s difference, to be justified by the go-live import (default 4780).' }),
  inter_branch_service: yup.boolean().required().meta({ description: 'true: a branch\'s counter may serve members of another branch (deposits and withdrawals, docs/domain.md §13.4); false by default.' }),
  approval_limits: yup.object().required().meta({ description: 'Amount limits under which the approval ends at an earlier step, e.g. {"branch_head": "500000"}; {} = all four steps.' }),
  end_of_day_hour: yup.number().integer().nullable().defined()
    .meta({ description: 'The hour of the daily end-of-day Schedule `end-of-day-{enterprise}`, in the time zone; null: none.' }),
  second_restructuring_rule: yup.string().oneOf(secondRestructuringRules).required().meta({ description: secondRestructuringDescription }),
  updated_at: timestampResponse(),
}).meta({ component: 'EnterpriseConfiguration' });

function serializeConfiguration(configuration: EnterpriseConfiguration, now: Date) {
  return {
    enterprise: configuration.enterpriseId,
    time_zone: configuration.timeZone,
    currency: configuration.currency,
    business_date: effectiveBusinessDate(configuration, now),
    business_date_is_set: configuration.businessDate !== null,
    share_withdrawal_notice_days: configuration.shareWithdrawalNoticeDays,
    share_refund_reminder_days: configuration.shareRefundReminderDays,
    approval_step_time_limit_days: configuration.approvalStepTimeLimitDays,
    provisioning_hour: configuration.provisioningHour,
    provisioning_ladder: configuration.provisioningLadder,
    credit_cap_mode: configuration.creditCapMode,
    allow_several_open_exercices: configuration.allowSeveralOpenExercices,
    approval_limits: configuration.approvalLimits,
    opening_suspense_account_code: configuration.openingSuspenseAccountCode,
    end_of_day_hour: configuration.endOfDayHour,
    inter_branch_service: configuration.interBranchService,
    second_restructuring_rule: configuration.secondRestructuringRule,
    updated_at: configuration.updatedAt.toISOString(),
  };
}

/** The limits as sent: absent steps have no limit. */
const stripUndefined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;

async function configurationOf(knex: Knex, enterpriseId: string): Promise<EnterpriseConfiguration> {
  const configuration = await EnterpriseConfiguration.query(knex).findOne({ enterprise_id: enterpriseId });
  if (configuration === undefined) throw new NotFoundError('The enterprise');
  return configuration;
}

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
      const builder = scopeToVisible(EnterpriseConfiguration.query(deps.knex), principal, { enterprise: 'enterprise_id' });
      whereFilters(builder, query, { enterprise: 'enterprise_id' });
      const page = await paginate(builder, { query, url: new URL(ctx.href), orderingColumns: {}, defaultOrdering: '' });
      return { ...page, results: page.results.map((configuration) => serializeConfiguration(configuration, deps.clock())) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/enterprises/{enterprise_pk}/configuration/',
    module: 'enterprise',
    operationId: 'getConfiguration',
    summary: 'General configuration of one enterprise',
    access: 'authenticated',
    load: enterpriseLoaders.enterprise,
    params: nestedParams,
    response: configurationSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, deps }) => {
      return serializeConfiguration(await configurationOf(deps.knex, params.enterprise_pk), deps.clock());
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/enterprise/enterprises/{enterprise_pk}/configuration/',
    module: 'enterprise',
    operationId: 'updateConfiguration',
    summary: 'Change parameters (direction, administrators); the business date only moves forward',
    access: ['direction', 'admin'],
    load: enterpriseLoaders.enterprise,
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
      end_of_day_hour: yup.number().integer().min(0).max(23).nullable().optional()
        .meta({ description: 'The hour the end of day starts by itself each day; null: only when direction starts it.' }),
      inter_branch_service: yup.boolean().optional(),
      second_restructuring_rule: yup.string().oneOf(secondRestructuringRules).optional().meta({ description: secondRestructuringDescription }),
      approval_limits: yup
        .object({ cashier: amountSchema().optional(), branch_head: amountSchema().optional(), credit_committee: amountSchema().optional() })
        .default(undefined) // a yup object defaults to {}: absent must stay absent (no change)
        .optional()
        .meta({ description: 'A loan up to the limit of a step is granted by that step\'s approval; limits grow along the circuit. {} = all four steps.' }),
    }),
    response: configurationSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['business_date_backwards', 'business_date_till_sessions_open', 'day_closed', 'approval_change_mixed', ...fourEyesRefusals],
    handler: async ({ params, body, principal: actor, deps, ctx }) => {
      const enterpriseId = params.enterprise_pk;
      await configurationOf(deps.knex, enterpriseId);
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
        const scheduled = [body.provisioning_hour, body.time_zone, body.end_of_day_hour].some((field) => field !== undefined);
        if (scheduled) await refreshEnterpriseSchedules(deps, updated.enterpriseId, ctx.state.log);
        return serializeConfiguration(updated, deps.clock());
      };
      if (body.business_date === undefined) return apply();
      // Refused when asked too, not only when a second person approves it (the executor checks again then).
      await assertNoOpenTillSession(deps.knex, enterpriseId);
      // Moving the business date re-dates what follows: under four eyes when the policy says so (docs/domain.md §11).
      const others = Object.keys(body).filter((field) => field !== 'business_date' && body[field as keyof typeof body] !== undefined);
      return runOrRequest({ deps, principal: actor, ctx }, {
        operation: 'business_date.move', payload: { enterpriseId, changes: { businessDate: body.business_date } }, scope: { enterpriseId },
        summary: body.business_date === null ? 'Let the business date follow the calendar again' : `Move the business date to ${body.business_date}`,
        alone: { field: 'business_date', others },
      }, apply);
    },
  }),
];
