import type { ScheduleOptionsAction, ScheduleSpec } from '@temporalio/client';
import { endOfDayScheduleId, startTags } from '../../../workflows/identities';
import type { EndOfDayInput } from '../../../workflows/end-of-day.workflow';

/**
 * The daily Schedule of an enterprise's end of day (issue 29, docs/domain.md §13.3): `end-of-day-{enterpriseId}`, at
 * the configured `end_of_day_hour` in the enterprise's time zone, only where that hour is set (none by default). It
 * starts `endOfDay` without a date: the workflow opens the business date's run and runs it under that date's own id
 * (`end-of-day-{enterpriseId}-{date}`), which then waits for the branches. Kept in place with the other Schedules
 * (./schedules.temporal.ts), and deleted when the hour is set back to null.
 */
export function endOfDayScheduleParts(
  taskQueue: string,
  settings: { enterpriseId: string; enterpriseCode: string; endOfDayHour: number; timeZone: string },
): { spec: ScheduleSpec; action: ScheduleOptionsAction } {
  const input: EndOfDayInput = { enterpriseId: settings.enterpriseId };
  return {
    spec: { calendars: [{ hour: settings.endOfDayHour, minute: 0 }], timezone: settings.timeZone },
    action: {
      type: 'startWorkflow',
      workflowType: 'endOfDay',
      args: [input],
      taskQueue,
      workflowId: endOfDayScheduleId(settings.enterpriseId),
      // The date is the workflow's to find: it tags the date's own workflow it starts.
      typedSearchAttributes: startTags({
        enterpriseId: settings.enterpriseId,
        enterpriseCode: settings.enterpriseCode,
      }),
    },
  };
}
