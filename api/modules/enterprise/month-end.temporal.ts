import type { ScheduleOptionsAction, ScheduleSpec } from '@temporalio/client';
import { monthEndScheduleId, startTags } from '../../../workflows/identities';
import type { MonthEndInput } from '../../../workflows/month-end.workflow';

/**
 * The monthly Schedule of an enterprise's month end (docs/architecture.md §5, docs/domain.md §8):
 * `month-end-{enterpriseId}`, on the first day of each month, half an hour after the configured provisioning hour
 * (so the day's provisioning run, which classifies the loans the accrual reads, has started first), in the
 * enterprise's time zone. It starts `monthEnd` without a period: the workflow opens the month just ended before
 * the business date and runs it under that month's own workflow id. Kept in place with the provisioning
 * Schedule, by the same reconciliation (api/modules/enterprise/schedules.temporal.ts).
 */
export function monthEndScheduleParts(
  taskQueue: string,
  settings: { enterpriseId: string; enterpriseCode: string; provisioningHour: number; timeZone: string },
): { spec: ScheduleSpec; action: ScheduleOptionsAction } {
  const input: MonthEndInput = { enterpriseId: settings.enterpriseId };
  return {
    spec: { calendars: [{ dayOfMonth: 1, hour: settings.provisioningHour, minute: 30 }], timezone: settings.timeZone },
    action: {
      type: 'startWorkflow',
      workflowType: 'monthEnd',
      args: [input],
      taskQueue,
      workflowId: monthEndScheduleId(settings.enterpriseId),
      // The month is the workflow's to find: it tags the month's own workflow it starts.
      typedSearchAttributes: startTags({
        enterpriseId: settings.enterpriseId,
        enterpriseCode: settings.enterpriseCode,
      }),
    },
  };
}
