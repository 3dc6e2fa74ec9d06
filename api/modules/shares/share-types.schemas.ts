import * as yup from 'yup';
import { shareTypeCodes } from '../../../domain/shares/share-type';
import type { ShareType } from '../../../db/models/share-type.model';
import { timestampResponse } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

export const shareTypeSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    code: yup.string().oneOf(shareTypeCodes).required(),
    name: yup.string().required(),
    nominal_value: moneyResponse(),
    min_shares: yup.number().integer().required(),
    max_shares: yup.number().integer().required(),
    voting: yup.boolean().required(),
    withdrawable: yup.boolean().required(),
    seniority_years: yup.number().integer().required(),
    notice_days: yup
      .number()
      .integer()
      .nullable()
      .defined()
      .meta({ description: "null: the enterprise's share_withdrawal_notice_days." }),
    partial_payment_allowed: yup.boolean().required(),
    minimum_initial_payment_rate: yup.string().required(),
    payment_period_months: yup.number().integer().required(),
    is_active: yup.boolean().required(),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'ShareType' });

export function serializeShareType(type: ShareType) {
  return {
    id: type.id,
    enterprise: type.enterpriseId,
    code: type.code,
    name: type.name,
    nominal_value: type.nominalValue,
    min_shares: type.minShares,
    max_shares: type.maxShares,
    voting: type.voting,
    withdrawable: type.withdrawable,
    seniority_years: type.seniorityYears,
    notice_days: type.noticeDays,
    partial_payment_allowed: type.partialPaymentAllowed,
    minimum_initial_payment_rate: type.minimumInitialPaymentRate,
    payment_period_months: type.paymentPeriodMonths,
    is_active: type.isActive,
    created_at: type.createdAt.toISOString(),
    updated_at: type.updatedAt.toISOString(),
  };
}
