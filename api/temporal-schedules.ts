import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';

/**
 * Putting a Schedule in place and taking it away, for every module that keeps one (docs/architecture.md §5): an
 * enterprise's periodic runs and each standing order's. One way, so a changed hour or time zone moves them all.
 */

/**
 * A run missed while Temporal was down is taken when it comes back, up to a day late (the SDK's default would drop it
 * after a minute, leaving the books unprovisioned until the next day); an older one is left to the next day's run
 * (a month end missed for longer is started through the API).
 */
const catchupWindow = '1 day';

/**
 * Creates a Schedule, or brings an existing one to the current spec, action and catch-up policy; overlap policy skip.
 */
export async function ensureSchedule(
  client: Client,
  scheduleId: string,
  { spec, action }: { spec: ScheduleSpec; action: ScheduleOptionsAction },
): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule
      .getHandle(scheduleId)
      .update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, catchupWindow } }));
  }
}

/** Deletes a Schedule; one already gone is what was wanted. */
export async function deleteSchedule(client: Client, scheduleId: string): Promise<void> {
  try {
    await client.schedule.getHandle(scheduleId).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}
