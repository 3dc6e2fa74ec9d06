import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  endOfDayScheduleId,
  monthEndScheduleId,
  provisioningScheduleId,
  recurringEntriesScheduleId,
  standingOrderScheduleId,
} from '../../../workflows/identities';
import type { RouteDeps } from '../../deps';
import { withinTemporalDeadline } from '../../temporal-deadline';
import { deleteSchedule, ensureSchedule } from '../../temporal-schedules';
import { recurringEntriesScheduleParts } from '../accounting/recurring-entries.temporal';
import { standingOrderScheduleParts } from '../cash/standing-orders.temporal';
import { provisioningScheduleParts } from '../loans/provisioning.temporal';
import { endOfDayScheduleParts } from './end-of-day.temporal';
import { monthEndScheduleParts } from './month-end.temporal';

/**
 * An enterprise's Schedules (docs/architecture.md §5): the daily provisioning run
 * (api/modules/loans/provisioning.temporal.ts), the monthly month end (./month-end.temporal.ts), the daily recurring
 * entries (api/modules/accounting/recurring-entries.temporal.ts), the end of day where its hour is set and each live
 * standing order's (api/modules/cash/standing-orders.temporal.ts), overlap policy skip. Created with the enterprise,
 * kept in line with its configuration, and ensured for every enterprise at start.
 */

interface ScheduleSettings {
  enterpriseId: string;
  enterpriseCode: string;
  provisioningHour: number;
  timeZone: string;
  /** Issue 29: null, no end-of-day Schedule. */
  endOfDayHour: number | null;
  /** Issue 29: the enterprise's live standing orders (active, or awaiting their approval), each on its own Schedule. */
  standingOrders: { id: string; branchId: string }[];
}

/**
 * The enterprise's Schedules: the daily provisioning run, the monthly month end and the daily recurring entries, same
 * hour setting.
 */
async function ensureEnterpriseSchedules(client: Client, taskQueue: string, settings: ScheduleSettings): Promise<void> {
  await ensureSchedule(
    client,
    provisioningScheduleId(settings.enterpriseId),
    provisioningScheduleParts(taskQueue, settings),
  );
  await ensureSchedule(client, monthEndScheduleId(settings.enterpriseId), monthEndScheduleParts(taskQueue, settings));
  await ensureSchedule(
    client,
    recurringEntriesScheduleId(settings.enterpriseId),
    recurringEntriesScheduleParts(taskQueue, settings),
  );
  await ensureEndOfDaySchedule(client, taskQueue, settings);
  for (const order of settings.standingOrders) {
    const { enterpriseId, enterpriseCode, provisioningHour: hour, timeZone } = settings;
    await ensureSchedule(
      client,
      standingOrderScheduleId(order.id),
      standingOrderScheduleParts(taskQueue, { ...order, enterpriseId, enterpriseCode, hour, timeZone }),
    );
  }
}

/** Issue 29: the end of day's Schedule where its hour is set; none (deleted if there was one) where it is null. */
async function ensureEndOfDaySchedule(client: Client, taskQueue: string, settings: ScheduleSettings): Promise<void> {
  const scheduleId = endOfDayScheduleId(settings.enterpriseId);
  if (settings.endOfDayHour !== null)
    return ensureSchedule(
      client,
      scheduleId,
      endOfDayScheduleParts(taskQueue, { ...settings, endOfDayHour: settings.endOfDayHour }),
    );
  return deleteSchedule(client, scheduleId);
}

/** How the start-up reconciliation retries the Schedules Temporal could not take: a pause doubling up to a minute. */
export interface ReconcileRetry {
  firstMs: number;
  maxMs: number;
}

/**
 * Every enterprise's Schedules (provisioning, month end, recurring entries), reconciled in the background from start
 * (enterprises created while Temporal was out of reach get theirs). The API does not wait for it: a Schedule Temporal
 * cannot create or describe now is retried, the others stay done, until all are in place or `stop` is called.
 */
export function reconcileEnterpriseSchedules(
  client: Client,
  knex: Knex,
  taskQueue: string,
  logger: Logger,
  retry: ReconcileRetry = { firstMs: 1000, maxMs: 60_000 },
) {
  let stopped = false;
  let wake = () => {};
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const done = (async () => {
    let pending: ScheduleSettings[] | undefined;
    for (let delayMs = retry.firstMs; !stopped; delayMs = Math.min(delayMs * 2, retry.maxMs)) {
      try {
        pending ??= await scheduleSettings(knex);
        pending = await schedulesLeft(client, taskQueue, pending);
        if (pending.length === 0) return logger.info('provisioning schedules in place');
        logger.warn(
          { pending: pending.length, retryInMs: delayMs },
          'some provisioning schedules could not be put in place; retrying',
        );
      } catch (error) {
        logger.warn({ err: error, retryInMs: delayMs }, 'provisioning schedules could not be read; retrying');
      }
      await pause(delayMs);
    }
  })();
  const stop = async () => {
    stopped = true;
    wake();
    await done;
  };
  return { done, stop };
}

/** What the Schedules are made of, for every enterprise or one: the code tags the workflows they start. */
async function scheduleSettings(knex: Knex, enterpriseId?: string): Promise<ScheduleSettings[]> {
  const rows: {
    enterprise_id: string;
    code: string;
    provisioning_hour: number;
    time_zone: string;
    end_of_day_hour: number | null;
  }[] = await knex('enterprise_configurations')
    .join('enterprises', 'enterprises.id', 'enterprise_configurations.enterprise_id')
    .modify((query) =>
      enterpriseId === undefined ? query : query.where('enterprise_configurations.enterprise_id', enterpriseId),
    )
    .select(
      'enterprise_configurations.enterprise_id',
      'enterprises.code',
      'enterprise_configurations.provisioning_hour',
      'enterprise_configurations.time_zone',
    )
    .select('enterprise_configurations.end_of_day_hour');
  const orders: { id: string; enterprise_id: string; branch_id: string }[] = await knex('standing_orders')
    .whereIn('status', ['active', 'pending_approval'])
    .modify((query) => (enterpriseId === undefined ? query : query.where({ enterprise_id: enterpriseId })))
    .select('id', 'enterprise_id', 'branch_id');
  return rows.map((row) => ({
    enterpriseId: row.enterprise_id,
    enterpriseCode: row.code,
    provisioningHour: row.provisioning_hour,
    timeZone: row.time_zone,
    endOfDayHour: row.end_of_day_hour,
    standingOrders: orders
      .filter((order) => order.enterprise_id === row.enterprise_id)
      .map((order) => ({ id: order.id, branchId: order.branch_id })),
  }));
}

/** Puts each Schedule in place, each within the deadline; answers those that failed. */
async function schedulesLeft(
  client: Client,
  taskQueue: string,
  settings: readonly ScheduleSettings[],
): Promise<ScheduleSettings[]> {
  const failed: ScheduleSettings[] = [];
  for (const one of settings) {
    try {
      await withinTemporalDeadline(client, () => ensureEnterpriseSchedules(client, taskQueue, one));
    } catch {
      failed.push(one);
    }
  }
  return failed;
}

/**
 * After a change the Schedules depend on (the hour, the time zone); Temporal out of reach is logged, the start-up pass
 * repairs it.
 */
export async function refreshEnterpriseSchedules(
  deps: Pick<RouteDeps, 'temporal' | 'knex' | 'taskQueue'>,
  enterpriseId: string,
  logger: Logger,
): Promise<void> {
  const [settings] = await scheduleSettings(deps.knex, enterpriseId);
  try {
    // Bounded: the request that changed the enterprise does not wait on a Temporal out of reach.
    await withinTemporalDeadline(deps.temporal, () =>
      ensureEnterpriseSchedules(deps.temporal, deps.taskQueue, settings!),
    );
  } catch (error) {
    logger.error(
      { err: error, enterprise: enterpriseId },
      'could not create or update the schedules; they will be on the next start',
    );
  }
}
