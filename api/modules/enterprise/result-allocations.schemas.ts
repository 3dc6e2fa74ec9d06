import * as yup from 'yup';
import type { PolicyView } from '../../../activities/enterprise/result-allocation-policy.activity';
import type { AllocationDetail } from '../../../activities/enterprise/result-allocations.queries';
import { formatAmount } from '../../../domain/money';
import { dateResponse, timestampResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

export const allocationSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    exercice: yup.string().uuid().required(),
    exercice_code: yup.string().required(),
    closing: yup.string().uuid().required(),
    status: yup.string().oneOf(['posted', 'cancelled']).required(),
    assembly_date: dateResponse(),
    assembly_reference: yup.string().required(),
    result: moneyResponse().meta({ description: "The closed year's result (negative: a loss)." }),
    result_account: yup.string().required(),
    amounts: yup
      .object()
      .required()
      .meta({ description: 'Account → amount credited (a profit) or debited (a loss), whole francs.' }),
    entries: yup
      .array(yup.string().uuid().required())
      .required()
      .meta({ description: 'The journal entries posted, one per branch holding part of the result.' }),
    allocated_by: nullableId(),
    created_at: timestampResponse(),
    cancelled_at: timestampResponse().nullable(),
    cancelled_by: nullableId(),
    cancel_reason: yup.string().nullable().defined(),
  })
  .meta({ component: 'ResultAllocation' });

export const policySchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    general_reserve_rate_min: yup.string().required().meta({
      description:
        'Least share of the surplus to the general reserve until it equals the statutory capital (default 0.2).',
    }),
    training_reserve_rate_min: yup.string().required().meta({
      description:
        'Least share of the surplus to the training reserve until it equals the statutory capital (default 0.2).',
    }),
    optional_reserves_rate_max: yup
      .string()
      .required()
      .meta({ description: 'Most of the surplus to optional reserves (default 0.2).' }),
    share_interest_rate_max: yup
      .string()
      .required()
      .meta({ description: "Most interest on the paid-up capital, per year (default 0.0475, BEAC's rate)." }),
    absorb_prior_losses_first: yup
      .boolean()
      .required()
      .meta({
        description:
          'A profit first clears the report à nouveau débiteur (122); ' +
          'nothing to members while losses remain (default true).',
      }),
    updated_at: timestampResponse().nullable(),
    updated_by: nullableId(),
  })
  .meta({ component: 'ResultAllocationPolicy' });

/** An allocation as answered, with the entries it posted. */
export const serializeAllocation = (row: AllocationDetail) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  exercice: row.exercice_id,
  exercice_code: row.exercice_code,
  closing: row.closing_id,
  status: row.status,
  assembly_date: row.assembly_date,
  assembly_reference: row.assembly_reference,
  result: formatAmount(row.result),
  result_account: row.result_account,
  amounts: row.amounts,
  entries: row.entries,
  allocated_by: row.allocated_by,
  created_at: row.created_at.toISOString(),
  cancelled_at: row.cancelled_at?.toISOString() ?? null,
  cancelled_by: row.cancelled_by,
  cancel_reason: row.cancel_reason,
});

export const serializePolicy = (policy: PolicyView) => ({
  enterprise: policy.enterpriseId,
  general_reserve_rate_min: policy.generalReserveRateMin.toString(),
  training_reserve_rate_min: policy.trainingReserveRateMin.toString(),
  optional_reserves_rate_max: policy.optionalReservesRateMax.toString(),
  share_interest_rate_max: policy.shareInterestRateMax.toString(),
  absorb_prior_losses_first: policy.absorbPriorLossesFirst,
  updated_at: policy.updatedAt?.toISOString() ?? null,
  updated_by: policy.updatedBy,
});
