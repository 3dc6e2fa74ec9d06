import type { Knex } from 'knex';
import { effectiveBusinessDate, type IsoDate } from '../../domain/calendar';
import { NotFoundError } from '../../domain/errors';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { recordAudit } from '../audit';
import type { RequestOrigin } from '../context';

/**
 * The business date with the enterprise's configuration row locked: the start of a run (end of day, month end)
 * takes it first, so two starts of one enterprise queue up and see each other's run.
 */
export async function lockedBusinessDate(trx: Knex.Transaction, enterpriseId: string, now: Date): Promise<IsoDate> {
  const configuration = await EnterpriseConfiguration.query(trx).findOne({ enterprise_id: enterpriseId }).forUpdate();
  if (configuration === undefined) throw new NotFoundError('The enterprise');
  return effectiveBusinessDate(configuration, now);
}

/** Who starts a run, and how: null startedBy is the schedule. */
export interface RunStartRequest extends RequestOrigin {
  enterpriseId: string;
  trigger: 'api' | 'schedule' | 'end_of_day';
  startedBy: string | null;
}

/** Each kind's tables, named whole so that a search for a table finds its writes. */
const runTables = {
  end_of_day: { runs: 'end_of_day_runs', steps: 'end_of_day_steps' },
  month_end: { runs: 'month_end_runs', steps: 'month_end_steps' },
} as const;

/** A run's kind (its tables), its steps in order, and what its start writes. */
export interface RunKind {
  kind: 'end_of_day' | 'month_end';
  stepNames: readonly string[];
  /** A new run's own columns (its date or period), beside the enterprise, trigger and starter. */
  columns: Record<string, unknown>;
  /** What the start's audit records (`{kind}.start`) before the trigger and whether it resumed. */
  details: Record<string, unknown>;
}

/**
 * Starts a run: a new one with its steps pending, or the failed `existing` set running again (it resumes, its
 * steps as they were); audited either way.
 */
export async function startRun<Row extends { id: string }>(
  trx: Knex.Transaction,
  input: RunStartRequest,
  kind: RunKind,
  existing: Row | undefined,
): Promise<Row> {
  const tables = runTables[kind.kind];
  const [run] =
    existing === undefined
      ? await trx(tables.runs)
          .insert({
            enterprise_id: input.enterpriseId,
            ...kind.columns,
            trigger: input.trigger,
            started_by: input.startedBy,
          })
          .returning('*')
      : await trx(tables.runs)
          .where({ id: existing.id })
          .update({ status: 'running', failure: null, finished_at: null })
          .returning('*');
  if (existing === undefined)
    await trx(tables.steps).insert(
      kind.stepNames.map((step, position) => ({ enterprise_id: input.enterpriseId, run_id: run.id, step, position })),
    );
  const actor =
    input.startedBy === null ? null : { userId: input.startedBy, requestId: input.requestId, address: input.address };
  await recordAudit(trx, actor, {
    action: `${kind.kind}.start`,
    entityType: `${kind.kind}_run`,
    entityId: run.id,
    enterpriseId: input.enterpriseId,
    details: { ...kind.details, trigger: input.trigger, resumed: existing !== undefined },
  });
  return run as Row;
}
