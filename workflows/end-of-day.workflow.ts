import {
  ApplicationFailure,
  condition,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import { bookkeepingRetry, refusalText, stepRetry } from './activity-calls';
import { branchDayClosedSignal } from './definitions';
import { endOfDayWorkflowId, monthEndWorkflowId } from './identities';
import { monthEnd } from './month-end.workflow';
import { childTags, tagWorkflow } from './tags';

const bookkeeping = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: bookkeepingRetry });
// A provisioning batch and the day's maturities commit in parts: as long as the daily Schedule's own.
const steps = proxyActivities<Activities>({ startToCloseTimeout: '15 minutes', retry: stepRetry });

const defaultBatchSize = 10_000;

export interface EndOfDayInput {
  enterpriseId: string;
  /** The business date closed, and the run the API opened for it; both absent when the Schedule starts it. */
  date?: string;
  runId?: string;
  /** How long it waits between two looks at the branches when no close wakes it; default 300 (5 minutes). */
  pollSeconds?: number;
}

export interface EndOfDayOutcome {
  runId: string;
  date: string;
  /** null: answered as it stood, by a start of the Schedule that found the day's run already there. */
  nextDate: string | null;
  monthEnd: string | null;
}

/**
 * The Schedule's start: opens the business date's run and runs it as the workflow of its date
 * (`end-of-day-{enterpriseId}-{date}`), so an end of day has one id however it was started. A run already there
 * (started by direction, or done) is left as it is.
 */
async function scheduledEndOfDay(enterpriseId: string): Promise<EndOfDayOutcome> {
  const { run, start } = await bookkeeping.openEndOfDayRun({
    enterpriseId,
    date: null,
    trigger: 'schedule',
    startedBy: null,
    requestId: null,
  });
  const answered = { runId: run.id, date: run.business_date, nextDate: run.next_date, monthEnd: null };
  if (!start) return answered;
  try {
    return await executeChild(endOfDay, {
      workflowId: endOfDayWorkflowId(enterpriseId, run.business_date),
      args: [{ enterpriseId, date: run.business_date, runId: run.id }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      ...childTags({ enterpriseId, businessId: run.business_date }),
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return answered;
    throw error;
  }
}

/**
 * Waits until every active branch has closed the day: woken by each close (a signal), and looking again every
 * `pollSeconds` anyway.
 */
async function awaitBranchDays(runId: string, pollSeconds: number): Promise<void> {
  let woken = false;
  setHandler(branchDayClosedSignal, () => {
    woken = true;
  });
  for (;;) {
    const { awaiting } = await bookkeeping.awaitBranchDays({ runId });
    if (awaiting.length === 0) return;
    woken = false;
    await condition(() => woken, pollSeconds * 1000);
  }
}

/**
 * The day's provisioning run, batch by batch (the existing activity, each batch its own transaction), then the step
 * done.
 */
async function provision(runId: string): Promise<void> {
  const { provisioningRunId } = await bookkeeping.openEndOfDayProvisioning({ runId });
  if (provisioningRunId !== null) {
    for (
      let progress = await steps.provisionBatch({ runId: provisioningRunId, batchSize: defaultBatchSize });
      progress.status === 'running';
    ) {
      progress = await steps.provisionBatch({ runId: provisioningRunId, batchSize: defaultBatchSize });
    }
  }
  await bookkeeping.finishEndOfDayProvisioning({ runId });
}

/**
 * The month's end, as its own workflow that outlives this one (`month-end-{enterpriseId}-{period}`): one already
 * started is left as it is.
 */
async function startMonthEnd(enterpriseId: string, runId: string): Promise<string | null> {
  const opened = await bookkeeping.openEndOfDayMonthEnd({ runId });
  if (opened === null) return null;
  if (!opened.running) return opened.period;
  try {
    await startChild(monthEnd, {
      workflowId: monthEndWorkflowId(enterpriseId, opened.period),
      args: [{ enterpriseId, period: opened.period, runId: opened.monthEndRunId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      ...childTags({ enterpriseId, businessId: opened.period }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return opened.period;
}

/**
 * The end of day of an enterprise and business date (clôture de journée, docs/domain.md §13.3, docs/architecture.md
 * §5): the steps of endOfDaySteps in order, one activity each so that each shows in the history. Each step is done once
 * in the database (activities/enterprise/end-of-day.activity.ts): a worker lost mid-way, or the run started again after
 * a failure, resumes and posts nothing twice.
 */
export async function endOfDay(input: EndOfDayInput): Promise<EndOfDayOutcome> {
  if (input.runId === undefined || input.date === undefined) return scheduledEndOfDay(input.enterpriseId);
  const { enterpriseId, runId, date } = input;
  tagWorkflow({ enterpriseId, businessId: date });
  try {
    await awaitBranchDays(runId, input.pollSeconds ?? 300);
    await provision(runId);
    await steps.matureEndOfDayTermDeposits({ runId });
    const moved = await bookkeeping.moveEndOfDayBusinessDate({ runId });
    const period = await startMonthEnd(enterpriseId, runId);
    await bookkeeping.finishEndOfDayRun({ runId });
    return { runId, date, nextDate: moved!.to as string, monthEnd: period };
  } catch (error) {
    await bookkeeping.markEndOfDayFailed({ runId, failure: refusalText(error) });
    throw ApplicationFailure.nonRetryable(`end of day ${runId} failed`, 'EndOfDayFailed');
  }
}
