import type { ScheduleOptionsAction, ScheduleSpec } from '@temporalio/client';
import { provisioningScheduleId, startTags } from '../../../workflows/identities';
import type { ProvisioningRunInput } from '../../../workflows/provisioning.workflow';

/**
 * The daily provisioning Schedule of an enterprise (docs/architecture.md §5): `provisioning-{enterpriseId}`, at the
 * configured hour in the enterprise's time zone; visible and pausable in the Temporal UI. Put in place and kept in
 * line with the configuration with the enterprise's other Schedules (api/modules/enterprise/schedules.temporal.ts).
 */
export function provisioningScheduleParts(
  taskQueue: string,
  settings: { enterpriseId: string; enterpriseCode: string; provisioningHour: number; timeZone: string },
): { spec: ScheduleSpec; action: ScheduleOptionsAction } {
  const input: ProvisioningRunInput = { enterpriseId: settings.enterpriseId };
  return {
    spec: { calendars: [{ hour: settings.provisioningHour, minute: 0 }], timezone: settings.timeZone },
    action: {
      type: 'startWorkflow',
      workflowType: 'provisioningRun',
      args: [input],
      taskQueue,
      workflowId: provisioningScheduleId(settings.enterpriseId),
      // The run's id is made by the workflow, which adds it as the business id.
      typedSearchAttributes: startTags({
        enterpriseId: settings.enterpriseId,
        enterpriseCode: settings.enterpriseCode,
      }),
    },
  };
}
