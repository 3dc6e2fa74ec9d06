import {
  ApplicationFailure,
  executeChild,
  ParentClosePolicy,
  patched,
  proxyActivities,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  fixedAssetSteps,
  monthEndSteps,
  savingsAccrualSteps,
  unearnedInterestSteps,
  type MonthEndStepInput,
  type MonthEndStepName,
} from '../domain/enterprise/month-end';
import type { MonthEndStepSummary } from '../domain/enterprise/month-end-step';
import { monthEndWorkflowId, reportingPackWorkflowId } from './identities';
import { childTags, tagWorkflow } from './tags';
import { reportingPack } from './reporting-pack.workflow';
import type { Activities } from '../activities';
import { refusalText, stepRetry } from './activity-calls';

const activities = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: stepRetry,
});

// The reversal of the savings accruals: set-based, one transaction, as many rows as the accounts accrued.
const memberAccountSteps = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  retry: stepRetry,
});

// The steps that go through the member accounts a batch (or a term deposit) at a time, each idempotent, heartbeating as
// they go: a lost worker is noticed within the heartbeat timeout and the step resumes at the next batch; the
// start-to-close bound is only a backstop, far above a large cooperative's minutes.
const heartbeatingSteps = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  retry: stepRetry,
});

/** Each step of monthEndSteps is an activity of this shape: the compiler refuses a step name without one. */
const stepActivities: Record<MonthEndStepName, (input: MonthEndStepInput) => Promise<MonthEndStepSummary>> = {
  reverseLoanInterestAccrual: activities.reverseLoanInterestAccrual,
  accrueLoanInterest: activities.accrueLoanInterest,
  recognizeUnearnedInterest: activities.recognizeUnearnedInterest,
  matureTermDeposits: heartbeatingSteps.matureTermDeposits,
  postSavingsInterest: heartbeatingSteps.postSavingsInterest,
  reverseSavingsInterestAccrual: memberAccountSteps.reverseSavingsInterestAccrual,
  accrueSavingsInterest: heartbeatingSteps.accrueSavingsInterest,
  depreciateFixedAssets: activities.depreciateFixedAssets,
};

/**
 * The month's reporting pack (docs/architecture.md §10), started once the month end is done, as its own
 * workflow that outlives this one: a pack already made or being made for the month is left as it is.
 */
async function startReportingPack(enterpriseId: string, period: string): Promise<void> {
  try {
    await startChild(reportingPack, {
      workflowId: reportingPackWorkflowId(enterpriseId, period),
      args: [{ enterpriseId, period }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      ...childTags({ enterpriseId, businessId: period }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

export interface MonthEndInput {
  enterpriseId: string;
  /** Both absent when the Schedule starts it: the month just ended is opened, and its own workflow started. */
  period?: string;
  runId?: string;
}

export interface MonthEndOutcome {
  runId: string;
  period: string;
  /** Each step's figures; its lines are in the run's document (GET /api/v1/enterprise/month-ends/{id}/). */
  steps: { step: MonthEndStepName; result: MonthEndStepSummary }[];
}

/**
 * The Schedule's start: opens the month just ended before the business date and runs it as the workflow of its
 * period (`month-end-{enterpriseId}-{period}`), so a month end has one id however it was started. A month end
 * already running under that id (started through the API) is left to finish; a done one is answered as it is.
 */
async function scheduledMonthEnd(enterpriseId: string): Promise<MonthEndOutcome> {
  const { run, start } = await activities.openMonthEndRun({
    enterpriseId,
    period: null,
    trigger: 'schedule',
    startedBy: null,
    requestId: null,
  });
  if (!start) return { runId: run.id, period: run.period, steps: [] };
  try {
    return await executeChild(monthEnd, {
      workflowId: monthEndWorkflowId(enterpriseId, run.period),
      args: [{ enterpriseId, period: run.period, runId: run.id }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      ...childTags({ enterpriseId, businessId: run.period }),
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return { runId: run.id, period: run.period, steps: [] };
    throw error;
  }
}

/**
 * The month end of an enterprise and period (docs/architecture.md §9, docs/domain.md §8): the steps of
 * monthEndSteps in order, one activity each so that each shows in the history, then the run is done. The
 * progress lives in the database with each step's entries: a retried step, or the workflow started again after
 * a failure, skips what is done.
 */
export async function monthEnd(input: MonthEndInput): Promise<MonthEndOutcome> {
  if (input.runId === undefined || input.period === undefined) return scheduledMonthEnd(input.enterpriseId);
  const { runId, period } = input;
  tagWorkflow({ enterpriseId: input.enterpriseId, businessId: period });
  try {
    const steps: MonthEndOutcome['steps'] = [];
    // A month end started before the savings accruals, interest received in advance or the fixed assets' depreciation
    // runs the steps it was opened with.
    const skipped = [
      ...(patched('savings-interest-accrual') ? [] : savingsAccrualSteps),
      ...(patched('unearned-interest-recognition') ? [] : unearnedInterestSteps),
      ...(patched('fixed-asset-depreciation') ? [] : fixedAssetSteps),
    ];
    const toRun = monthEndSteps.filter((step) => !skipped.includes(step));
    for (const step of toRun) steps.push({ step, result: await stepActivities[step]({ runId, step }) });
    await activities.finishMonthEndRun({ runId });
    await startReportingPack(input.enterpriseId, period);
    return { runId, period, steps };
  } catch (error) {
    const failure = refusalText(error);
    await activities.markMonthEndFailed({ runId, failure });
    throw ApplicationFailure.nonRetryable(`month end ${runId} failed`, 'MonthEndFailed');
  }
}
