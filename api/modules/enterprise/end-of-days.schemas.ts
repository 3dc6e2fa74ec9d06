import * as yup from 'yup';
import type { EndOfDayStepRow } from '../../../activities/enterprise/end-of-day.activity';
import type { EndOfDayRunDetail } from '../../../activities/enterprise/end-of-days.queries';
import { endOfDayWorkflowId } from '../../../workflows/identities';
import { dateResponse, timestampResponse, nullableId } from '../common.schemas';

export const runStatuses = ['running', 'done', 'failed'] as const;

const stepSchema = yup
  .object({
    step: yup
      .string()
      .required()
      .meta({
        description:
          'The step, in the order the endOfDay workflow runs them: awaitBranchDays, ' +
          'provision, matureTermDeposits, moveBusinessDate, startMonthEnd.',
      }),
    status: yup.string().oneOf(['pending', 'done']).required(),
    finished_at: timestampResponse().nullable(),
    result: yup
      .object()
      .nullable()
      .defined()
      .meta({
        description:
          'What the step did, once done: the branches closed, the provisioning run and its ' +
          'figures, the deposits matured, the dates moved, the month end started or refused.',
        additionalProperties: true,
      }),
  })
  .meta({ component: 'EndOfDayStep' });

export const runSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    date: dateResponse().meta({ description: 'The business date the run closes.' }),
    next_date: dateResponse()
      .nullable()
      .meta({ description: 'The business date after it, once moved: from then the day is closed.' }),
    status: yup.string().oneOf(runStatuses).required(),
    trigger: yup.string().oneOf(['api', 'schedule']).required(),
    started_by: nullableId(),
    failure: yup.string().nullable().defined(),
    provisioning_run: nullableId(),
    month_end: nullableId("The month end it started, on a month's last day."),
    workflow_id: yup.string().required(),
    started_at: timestampResponse(),
    finished_at: timestampResponse().nullable(),
    steps: yup.array(stepSchema).required(),
    awaiting_branches: yup
      .array(yup.string().uuid().required())
      .nullable()
      .defined()
      .meta({
        description:
          'While the run runs: the active branches that have not closed its ' +
          'day yet, what it waits for (empty once all have); null once it ended.',
      }),
  })
  .meta({ component: 'EndOfDayRun' });

const serializeStep = (step: EndOfDayStepRow) => ({
  step: step.step,
  status: step.status,
  finished_at: step.finished_at?.toISOString() ?? null,
  result: step.result,
});

/** A run as the API shows it, with its steps and what it waits for. */
export const serializeEndOfDayRun = (run: EndOfDayRunDetail) => ({
  id: run.id,
  enterprise: run.enterprise_id,
  date: run.business_date,
  next_date: run.next_date,
  status: run.status,
  trigger: run.trigger,
  started_by: run.started_by,
  failure: run.failure,
  provisioning_run: run.provisioning_run_id,
  month_end: run.month_end_run_id,
  workflow_id: endOfDayWorkflowId(run.enterprise_id, run.business_date),
  started_at: run.created_at.toISOString(),
  finished_at: run.finished_at?.toISOString() ?? null,
  steps: run.steps.map(serializeStep),
  awaiting_branches: run.awaiting_branches,
});
