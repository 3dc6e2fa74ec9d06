import type { ScheduleOptionsAction, ScheduleSpec } from '@temporalio/client';
import { recurringEntriesScheduleId, startTags } from '../../../workflows/identities';
import type { RecurringEntriesInput } from '../../../workflows/recurring-entries.workflow';

/**
 * The daily Schedule of an enterprise's recurring entries (docs/architecture.md §5, docs/domain.md §12.7):
 * `recurring-entries-{enterpriseId}`, a quarter of an hour after the configured provisioning hour, in the
 * enterprise's time zone. Daily rather than on the models' days: each model has its own day, and a day missed
 * (Temporal down) is made up the next day, since a pass proposes every model due by the business date. Kept in
 * place with the enterprise's other Schedules (api/modules/enterprise/schedules.temporal.ts).
 */
export function recurringEntriesScheduleParts(
  taskQueue: string,
  settings: { enterpriseId: string; enterpriseCode: string; provisioningHour: number; timeZone: string },
): { spec: ScheduleSpec; action: ScheduleOptionsAction } {
  const input: RecurringEntriesInput = { enterpriseId: settings.enterpriseId };
  return {
    spec: { calendars: [{ hour: settings.provisioningHour, minute: 15 }], timezone: settings.timeZone },
    action: {
      type: 'startWorkflow',
      workflowType: 'recurringEntries',
      args: [input],
      taskQueue,
      workflowId: recurringEntriesScheduleId(settings.enterpriseId),
      typedSearchAttributes: startTags({
        enterpriseId: settings.enterpriseId,
        enterpriseCode: settings.enterpriseCode,
      }),
    },
  };
}
