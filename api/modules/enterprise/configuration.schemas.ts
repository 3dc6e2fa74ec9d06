import * as yup from 'yup';
import { effectiveBusinessDate } from '../../../domain/calendar';
import { secondRestructuringRules } from '../../../domain/loans/restructuring';
import type { EnterpriseConfiguration } from '../../../db/models/enterprise-configuration.model';
import { dateResponse, timestampResponse } from '../common.schemas';

export const secondRestructuringDescription =
  "What a second or later restructuring does to the loan's class (docs/domain.md §14.2): " +
  '`doubtful` (default) from its date until the R-2017/07 Art. 14 payment, or `as_first`: Art. 14 as for the first.';

export const ladderStepSchema = yup.object({
  days_from: yup.number().integer().min(0).required(),
  days_to: yup.number().integer().min(0).nullable().defined(),
  rate: yup.string().required().meta({ description: 'Decimal from 0 to 1, e.g. "0.25".' }),
});

export const configurationSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    time_zone: yup.string().required(),
    currency: yup.string().required(),
    business_date: dateResponse().meta({
      description: 'In force: the date set by direction, or today in the time zone.',
    }),
    business_date_is_set: yup.boolean().required().meta({ description: 'false: business_date follows the calendar.' }),
    share_withdrawal_notice_days: yup.number().integer().required(),
    share_refund_reminder_days: yup
      .number()
      .integer()
      .required()
      .meta({ description: 'Days before a share refund falls due when the board is reminded.' }),
    approval_step_time_limit_days: yup.number().integer().required(),
    provisioning_hour: yup.number().integer().required(),
    provisioning_ladder: yup.array(ladderStepSchema).required(),
    credit_cap_mode: yup.string().oneOf(['enforce', 'warn']).required(),
    allow_several_open_exercices: yup.boolean().required(),
    opening_suspense_account_code: yup.string().required().meta({
      description:
        "Where an opening entry puts each branch's difference, to be justified by the go-live import (default 4780).",
    }),
    inter_branch_service: yup
      .boolean()
      .required()
      .meta({
        description:
          "true: a branch's counter may serve members of another branch " +
          '(deposits and withdrawals, docs/domain.md §13.4); false by default.',
      }),
    approval_limits: yup
      .object()
      .required()
      .meta({
        description:
          'Amount limits under which the approval ends at an earlier ' +
          'step, e.g. {"branch_head": "500000"}; {} = all four steps.',
      }),
    end_of_day_hour: yup.number().integer().nullable().defined().meta({
      description: 'The hour of the daily end-of-day Schedule `end-of-day-{enterprise}`, in the time zone; null: none.',
    }),
    second_restructuring_rule: yup
      .string()
      .oneOf(secondRestructuringRules)
      .required()
      .meta({ description: secondRestructuringDescription }),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'EnterpriseConfiguration' });

export function serializeConfiguration(configuration: EnterpriseConfiguration, now: Date) {
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
