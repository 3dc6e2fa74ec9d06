import { Client, Connection, ScheduleNotFoundError, type ScheduleHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { testEnvironment } from './environment';

/**
 * How long a test waits for what another process does, by default. A closing or a run takes well under a second
 * alone; the bound is for a loaded two-core machine, and stays under ava's 60 s so that our message, not ava's
 * timeout, says what was awaited. `TEST_WAIT_SECONDS` raises it on a slower machine.
 */
const defaultTimeoutMs = Number(process.env.TEST_WAIT_SECONDS ?? 45) * 1000;

/** Polls `probe` until it answers true; fails naming `what` after `timeoutMs`. For states another process reaches. */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs = defaultTimeoutMs): Promise<void> {
  await pollFor(what, async () => ((await probe()) ? true : undefined), timeoutMs);
}

/** Polls `read` until it answers something; that answer, or undefined once `timeoutMs` has passed. */
async function poll<T>(read: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until a deleted Schedule no longer describes. Temporal deletes a Schedule by stopping its scheduler, after the
 * delete call has answered, so a describe right after it may still find the Schedule.
 */
export async function untilScheduleGone(schedule: ScheduleHandle, what: string): Promise<void> {
  await until(what, async () => {
    try {
      await schedule.describe();
      return false;
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) return true;
      throw error;
    }
  });
}

async function pollFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const value = await poll(read, timeoutMs);
  if (value === undefined) throw new Error(`still waiting, after ${timeoutMs / 1000} s, for ${what}`);
  return value;
}

export interface WorkflowWait<T> {
  /** The workflow whose work is awaited: named, with its state, when the wait gives up. */
  workflowId: string;
  /** What is awaited, for the message: "the closing of 2026". */
  what: string;
  /** Reads the state the workflow should reach (through the API, or the database); undefined while not there. */
  read: () => Promise<T | undefined>;
  timeoutMs?: number;
}

/**
 * The one wait of the tests on a workflow's work. When it gives up, the message says what the workflow was doing
 * then: its status, its task queue, its pending activities and workflow task, and its last events. A sticky
 * workflow task that timed out before it started, for example, shows a worker that left with the workflow cached.
 */
export async function untilWorkflow<T>(wait: WorkflowWait<T>): Promise<T> {
  const timeoutMs = wait.timeoutMs ?? defaultTimeoutMs;
  const value = await poll(wait.read, timeoutMs);
  if (value !== undefined) return value;
  throw new Error(
    `still waiting, after ${timeoutMs / 1000} s, for ${wait.what}: ${await describeWorkflow(wait.workflowId)}`,
  );
}

const eventName = (type: temporal.api.enums.v1.EventType | null | undefined) =>
  (temporal.api.enums.v1.EventType[type ?? 0] ?? String(type)).replace(/^EVENT_TYPE_/, '');

/** A pending activity on one line: its type, attempt, state and last failure. */
function describeActivity(activity: temporal.api.workflow.v1.IPendingActivityInfo): string {
  const state = temporal.api.enums.v1.PendingActivityState[activity.state ?? 0];
  const failure = activity.lastFailure?.message ? `, last failure: ${activity.lastFailure.message}` : '';
  return `${activity.activityType?.name} (attempt ${activity.attempt}, ${state}${failure})`;
}

/** A history event on one line; a workflow task scheduled on a worker's sticky queue says so. */
function describeEvent(event: temporal.api.history.v1.IHistoryEvent): string {
  const queue = event.workflowTaskScheduledEventAttributes?.taskQueue;
  const sticky = queue?.kind === temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY;
  return `#${event.eventId} ${eventName(event.eventType)}${sticky ? ' (sticky)' : ''}`;
}

/** The pending workflow task on one line, or none. */
function describeTask(task: temporal.api.workflow.v1.IPendingWorkflowTaskInfo | null | undefined): string {
  if (!task) return 'none';
  return `${temporal.api.enums.v1.PendingWorkflowTaskState[task.state ?? 0]}, attempt ${task.attempt}`;
}

/** What Temporal knows of a workflow, on one line: for the message of a wait that gave up. */
async function describeWorkflow(workflowId: string): Promise<string> {
  const connection = await Connection.connect({ address: testEnvironment().temporalAddress });
  try {
    const handle = new Client({ connection }).workflow.getHandle(workflowId);
    const description = await handle.describe();
    const pending = (description.raw.pendingActivities ?? []).map(describeActivity);
    const task = description.raw.pendingWorkflowTask;
    const { events } = await handle.fetchHistory();
    const last = (events ?? []).slice(-8).map(describeEvent);
    return [
      `workflow ${workflowId} ${description.status.name} on task queue ${description.taskQueue}`,
      `pending activities: ${pending.length === 0 ? 'none' : pending.join(', ')}`,
      `pending workflow task: ${describeTask(task)}`,
      `last events: ${last.join(', ')}`,
    ].join('; ');
  } catch (error) {
    return `workflow ${workflowId} could not be described (${(error as Error).message})`;
  } finally {
    await connection.close();
  }
}
