import type { ScheduleOptionsAction, ScheduleSpec } from '@temporalio/client';
import type { Logger } from 'pino';
import { standingOrderScheduleId, startTags } from '../../../workflows/identities';
import type { StandingOrderInput } from '../../../workflows/standing-order.workflow';
import type { RouteDeps } from '../../deps';
import { withinTemporalDeadline } from '../../temporal-deadline';
import { deleteSchedule, ensureSchedule } from '../../temporal-schedules';

/**
 * A standing order's own Schedule (docs/domain.md §13.5): `standing-order-{id}`, every day a half hour after the
 * enterprise's provisioning hour, in its time zone. Daily rather than on the order's days: the pass decides what is
 * due by the business date, tries again a run short of funds, and a day missed (Temporal down) is made up the next.
 */
export interface ScheduledOrder {
  id: string;
  enterpriseId: string;
  enterpriseCode: string;
  branchId: string;
  hour: number;
  timeZone: string;
}

/**
 * The order's Schedule as api/temporal-schedules.ts puts it in place (at the order's creation, and for every live order
 * at start).
 */
export function standingOrderScheduleParts(
  taskQueue: string,
  order: ScheduledOrder,
): { spec: ScheduleSpec; action: ScheduleOptionsAction } {
  const input: StandingOrderInput = { standingOrderId: order.id };
  return {
    spec: { calendars: [{ hour: order.hour, minute: 30 }], timezone: order.timeZone },
    action: {
      type: 'startWorkflow',
      workflowType: 'standingOrder',
      args: [input],
      taskQueue,
      workflowId: standingOrderScheduleId(order.id),
      typedSearchAttributes: startTags({
        enterpriseId: order.enterpriseId,
        enterpriseCode: order.enterpriseCode,
        branchId: order.branchId,
      }),
    },
  };
}

/**
 * After an order is made (its Schedule) or ended (cancelled: its Schedule deleted). Bounded: the request does not
 * wait on a Temporal out of reach; that is logged, and the start-up reconciliation makes the Schedule then
 * (api/modules/enterprise/schedules.temporal.ts).
 */
export async function refreshStandingOrderSchedule(
  deps: Pick<RouteDeps, 'temporal' | 'knex' | 'taskQueue'>,
  standingOrderId: string,
  logger: Logger,
): Promise<void> {
  const order = await deps
    .knex('standing_orders as o')
    .join('enterprises as e', 'e.id', 'o.enterprise_id')
    .join('enterprise_configurations as c', 'c.enterprise_id', 'o.enterprise_id')
    .where('o.id', standingOrderId)
    .first('o.id', 'o.status', 'o.enterprise_id', 'o.branch_id', 'e.code', 'c.provisioning_hour', 'c.time_zone');
  try {
    await withinTemporalDeadline(deps.temporal, async () => {
      const scheduleId = standingOrderScheduleId(standingOrderId);
      if (order.status === 'cancelled' || order.status === 'rejected') return deleteSchedule(deps.temporal, scheduleId);
      return ensureSchedule(
        deps.temporal,
        scheduleId,
        standingOrderScheduleParts(deps.taskQueue, {
          id: order.id,
          enterpriseId: order.enterprise_id,
          enterpriseCode: order.code,
          branchId: order.branch_id,
          hour: order.provisioning_hour,
          timeZone: order.time_zone,
        }),
      );
    });
  } catch (error) {
    logger.error(
      { err: error, standingOrder: standingOrderId },
      "could not create or delete the standing order's schedule",
    );
  }
}
