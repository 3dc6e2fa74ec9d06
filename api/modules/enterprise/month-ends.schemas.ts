import * as yup from 'yup';
import type { MonthEndRunDetail, MonthEndStepDetail } from '../../../activities/enterprise/month-ends.queries';
import type { MonthEndStepResult } from '../../../domain/enterprise/month-end-step';
import { monthEndWorkflowId } from '../../../workflows/identities';
import { dateResponse, timestampResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';
import { chainAnchorSchema } from '../audit/ledger-verification.schemas';

export const runStatuses = ['running', 'done', 'failed'] as const;

/** What names a run over an enterprise's month: the month end's, a reporting pack's. */
export const monthRunFields = {
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  period: yup.string().required().meta({ description: 'The month, YYYY-MM.' }),
};

const stepSchema = yup
  .object({
    step: yup.string().required().meta({
      description:
        'The step, in the order the monthEnd workflow runs them: reverseLoanInterestAccrual, accrueLoanInterest…',
    }),
    status: yup.string().oneOf(['pending', 'done']).required(),
    finished_at: timestampResponse().nullable(),
    amount: moneyResponse()
      .nullable()
      .meta({ description: "The step's total once done (interest accrued, reversed…); null while pending." }),
    lines: yup
      .array(
        yup
          .object({
            account: yup
              .string()
              .required()
              .meta({ description: 'The chart account (PCEMF code) the amount went to.' }),
            amount: moneyResponse().meta({ description: 'Positive: debited on the account; negative: credited.' }),
            loan: nullableId(),
            compte_client: nullableId(),
          })
          .meta({ component: 'MonthEndStepLine' }),
      )
      .required()
      .meta({ description: "One line per loan or member account touched; they sum to the step's amount." }),
    journal_entries: yup
      .array(yup.string().uuid().required())
      .required()
      .meta({ description: 'The entries the step posted.' }),
  })
  .meta({ component: 'MonthEndStep' });

export const runSchema = yup
  .object({
    ...monthRunFields,
    period_start: dateResponse(),
    period_end: dateResponse(),
    status: yup.string().oneOf(runStatuses).required(),
    trigger: yup
      .string()
      .oneOf(['api', 'schedule', 'end_of_day'])
      .required()
      .meta({
        description:
          "api: started by `started_by`; schedule: by the enterprise's Schedule " +
          "`month-end-{enterprise}`; end_of_day: by the end of day of the month's last day.",
      }),
    started_by: nullableId(),
    failure: yup.string().nullable().defined(),
    workflow_id: yup.string().required(),
    started_at: timestampResponse(),
    finished_at: timestampResponse().nullable(),
    steps: yup.array(stepSchema).required(),
    chain_anchors: yup
      .array(chainAnchorSchema)
      .nullable()
      .defined()
      .meta({
        description:
          "Where the enterprise's two hash chains ended when the " +
          'month end finished (null until done): print and keep them, ' +
          'then give one to the ledger verification (anchor_chain, anchor_position, ' +
          'anchor_hash) to prove the chain was not recomputed since.',
      }),
  })
  .meta({ component: 'MonthEndRun' });

function serializeStep(step: MonthEndStepDetail) {
  const result: MonthEndStepResult | null = step.result;
  return {
    step: step.step,
    status: step.status,
    finished_at: step.finished_at?.toISOString() ?? null,
    amount: result?.amount ?? null,
    lines: (result?.lines ?? []).map((line) => ({
      account: line.account,
      amount: line.amount,
      loan: line.loanId ?? null,
      compte_client: line.compteClientId ?? null,
    })),
    journal_entries: step.entries,
  };
}

/** A run as the API shows it, with its steps and what each posted. */
export function serializeMonthEndRun(run: MonthEndRunDetail) {
  return {
    id: run.id,
    enterprise: run.enterprise_id,
    period: run.period,
    period_start: run.period_start,
    period_end: run.period_end,
    status: run.status,
    trigger: run.trigger,
    started_by: run.started_by,
    failure: run.failure,
    workflow_id: monthEndWorkflowId(run.enterprise_id, run.period),
    started_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    steps: run.steps.map(serializeStep),
    chain_anchors: run.chain_anchors,
  };
}
