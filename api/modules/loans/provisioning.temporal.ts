import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsAction, type ScheduleSpec } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ProvisioningRunInput } from '../../../workflows/provisioning.workflow';
import { withinTemporalDeadline } from '../../temporal-deadline';

/**
 * The daily provisioning Schedule of an enterprise (docs/architecture.md §5): `provisioning-{enterpriseId}`, at the
 * configured hour in the enterprise's time zone, overlap policy skip; visible and pausable in the Temporal UI.
 * Created with the enterprise, kept in line with its configuration, and ensured for every enterprise at start.
 */
export const provisioningScheduleId = (enterpriseId: string) => `provisioning-${enterpriseId}`;

export interface ScheduleSettings {
  enterpriseId: string;
  provisioningHour: number;
  timeZone: string;
}

function scheduleParts(taskQueue: string, settings: ScheduleSettings): { spec: ScheduleSpec; action: ScheduleOptionsAction } {
  const input: ProvisioningRunInput = { enterpriseId: settings.enterpriseId };
  return {
    spec: { calendars: [{ hour: settings.provisioningHour, minute: 0 }], timezone: settings.timeZone },
    action: { type: 'startWorkflow', workflowType: 'provisioningRun', args: [input], taskQueue, workflowId: provisioningScheduleId(settings.enterpriseId) },
  };
}

/** Creates the Schedule, or brings an existing one to the current hour, time zone and task queue. */
async function ensureProvisioningSchedule(client: Client, taskQueue: string, settings: ScheduleSettings): Promise<void> {
  const { spec, action } = scheduleParts(taskQueue, settings);
  try {
    await client.schedule.create({ scheduleId: provisioningScheduleId(settings.enterpriseId), spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(provisioningScheduleId(settings.enterpriseId)).update((previous) => ({ ...previous, spec, action }));
  }
}

/** Every enterprise's Schedule, at start: enterprises created while Temporal was unreachable get theirs. */
export async function ensureProvisioningSchedules(client: Client, knex: Knex, taskQueue: string, logger: Logger): Promise<void> {
  const rows: { enterprise_id: string; provisioning_hour: number; time_zone: string }[] = await knex('enterprise_configurations').select('enterprise_id', 'provisioning_hour', 'time_zone');
  for (const row of rows) {
    await ensureProvisioningSchedule(client, taskQueue, { enterpriseId: row.enterprise_id, provisioningHour: row.provisioning_hour, timeZone: row.time_zone });
  }
  logger.info({ schedules: rows.length }, 'provisioning schedules in place');
}

/** After a change that the Schedule depends on; Temporal out of reach is logged, the start-up pass repairs it. */
export async function refreshProvisioningSchedule(client: Client, taskQueue: string, settings: ScheduleSettings, logger: Logger): Promise<void> {
  try {
    // Bounded: the request that changed the enterprise does not wait on a Temporal out of reach.
    await withinTemporalDeadline(client, () => ensureProvisioningSchedule(client, taskQueue, settings));
  } catch (error) {
    logger.error({ err: error, enterprise: settings.enterpriseId }, 'could not create or update the provisioning schedule; it will be on the next start');
  }
}
