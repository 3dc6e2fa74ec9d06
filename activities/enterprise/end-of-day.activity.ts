import type { Knex } from 'knex';
import { effectiveBusinessDate, type IsoDate } from '../../domain/calendar';
import {
  endOfDaySteps,
  monthEndingOn,
  nextWorkingDay,
  type EndOfDayStepName,
} from '../../domain/enterprise/end-of-day';
import { AppError, NotFoundError } from '../../domain/errors';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { DataContext, RequestOrigin } from '../context';
import { startProvisioningRun } from '../loans/provisioning.activity';
import { matureDueTermDeposits } from '../members/term-deposits.activity';
import { openMonthEndRun } from './month-end.activity';
import { lockedBusinessDate, startRun } from './run-start';

/**
 * The end of day (clôture de journée, docs/domain.md §13.3, docs/architecture.md §5): one run per enterprise and
 * business date, its steps in the order of `endOfDaySteps`, each an activity of the endOfDay workflow. A step is
 * done once: it locks the run, and a step found done answers what it recorded, so a worker lost mid-way and the
 * step retried, or a failed run started again, posts nothing twice.
 */

export interface EndOfDayRunRow {
  id: string;
  enterprise_id: string;
  business_date: IsoDate;
  next_date: IsoDate | null;
  status: 'running' | 'done' | 'failed';
  trigger: 'api' | 'schedule';
  started_by: string | null;
  failure: string | null;
  provisioning_run_id: string | null;
  month_end_run_id: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface EndOfDayStepRow {
  run_id: string;
  step: EndOfDayStepName;
  position: number;
  status: 'pending' | 'done';
  result: Record<string, unknown> | null;
  finished_at: Date | null;
}

export interface EndOfDayRequest extends RequestOrigin {
  enterpriseId: string;
  /** null: the business date. */
  date: IsoDate | null;
  trigger: 'api' | 'schedule';
  startedBy: string | null;
}

/**
 * Opens the end of day of a date: a run done or running is answered as it is (`start: false`); a failed one runs
 * again (it resumes); else a new run for the business date, its steps pending (another date: 422
 * `end_of_day_not_business_date`). The configuration row is locked first, so two starts queue up.
 */
export async function openEndOfDayRun(
  knex: Knex,
  now: Date,
  input: EndOfDayRequest,
): Promise<{ run: EndOfDayRunRow; start: boolean }> {
  return inTransaction(knex, async (trx) => {
    const businessDate = await lockedBusinessDate(trx, input.enterpriseId, now);
    const date = input.date ?? businessDate;
    const existing: EndOfDayRunRow | undefined = await trx('end_of_day_runs')
      .where({ enterprise_id: input.enterpriseId, business_date: date })
      .first();
    if (existing !== undefined && existing.status !== 'failed') return { run: existing, start: false };
    if (existing === undefined && date !== businessDate) {
      throw new AppError(
        'unprocessable',
        'end_of_day_not_business_date',
        `The end of day runs for the business date ${businessDate}.`,
        [{ field: 'date', message: `date must be the business date ${businessDate}` }],
      );
    }
    const run = await startRun(
      trx,
      input,
      { kind: 'end_of_day', stepNames: endOfDaySteps, columns: { business_date: date }, details: { date } },
      existing,
    );
    return { run, start: true };
  });
}

type StepWork = (trx: Knex.Transaction, run: EndOfDayRunRow) => Promise<Record<string, unknown> | null>;

/**
 * One step in one transaction: the run locked; the step's recorded result when it is done; else `work`, whose
 * result (null: not done yet, e.g. branches still open) moves the step to done with what it did.
 */
async function runStep(
  knex: Knex,
  now: Date,
  input: { runId: string; step: EndOfDayStepName },
  work: StepWork,
): Promise<Record<string, unknown> | null> {
  return inTransaction(knex, async (trx) => {
    const run: EndOfDayRunRow | undefined = await trx('end_of_day_runs').where({ id: input.runId }).forUpdate().first();
    if (run === undefined) throw new NotFoundError('The end of day');
    const step: EndOfDayStepRow = await trx('end_of_day_steps').where({ run_id: run.id, step: input.step }).first();
    if (step.status === 'done') return step.result;
    const result = await work(trx, run);
    if (result !== null)
      await trx('end_of_day_steps')
        .where({ run_id: run.id, step: input.step })
        .update({ status: 'done', result: JSON.stringify(result), finished_at: now });
    return result;
  });
}

/** The active branches that have not closed the run's day, by code; the step is done once there are none. */
export async function awaitBranchDays(
  knex: Knex,
  now: Date,
  input: { runId: string },
): Promise<{ awaiting: string[] }> {
  let awaiting: string[] = [];
  const result = await runStep(knex, now, { ...input, step: 'awaitBranchDays' }, async (trx, run) => {
    awaiting = await trx('branches as b')
      .where({ 'b.enterprise_id': run.enterprise_id, 'b.status': 'active' })
      .whereNotExists(
        trx('branch_days as d').whereRaw('d.branch_id = b.id AND d.business_date = ?', [run.business_date]),
      )
      .orderBy('b.code')
      .pluck('b.code');
    return awaiting.length > 0
      ? null
      : {
          branches: await trx('branch_days')
            .where({ enterprise_id: run.enterprise_id, business_date: run.business_date })
            .count('* as n')
            .first()
            .then((row) => Number(row!.n)),
        };
  });
  return { awaiting: result === null ? awaiting : [] };
}

/**
 * The day's provisioning run, at the run's date: made once and kept with the run (a failed one is made again), so
 * the workflow runs it under its own id (`provisioning-run-{id}`). null when the step is done.
 */
export async function openEndOfDayProvisioning(
  knex: Knex,
  now: Date,
  input: { runId: string },
): Promise<{ provisioningRunId: string | null }> {
  return inTransaction(knex, async (trx) => {
    const run: EndOfDayRunRow = await trx('end_of_day_runs').where({ id: input.runId }).forUpdate().first();
    const step: EndOfDayStepRow = await trx('end_of_day_steps').where({ run_id: run.id, step: 'provision' }).first();
    if (step.status === 'done') return { provisioningRunId: null };
    const linked =
      run.provisioning_run_id === null
        ? undefined
        : await trx('provisioning_runs')
            .where({ id: run.provisioning_run_id })
            .whereNot('status', 'failed')
            .first('id');
    if (linked !== undefined) return { provisioningRunId: linked.id as string };
    const provisioning = await startProvisioningRun(trx, now, {
      enterpriseId: run.enterprise_id,
      asOf: run.business_date,
      trigger: 'schedule',
      requestedBy: null,
    });
    await trx('end_of_day_runs').where({ id: run.id }).update({ provisioning_run_id: provisioning.id });
    return { provisioningRunId: provisioning.id };
  });
}

/** The provisioning step done, with the figures of its run. */
export async function finishEndOfDayProvisioning(knex: Knex, now: Date, input: { runId: string }) {
  return runStep(knex, now, { ...input, step: 'provision' }, async (trx, run) => {
    const provisioning = await trx('provisioning_runs')
      .where({ id: run.provisioning_run_id })
      .first('id', 'status', 'loans_processed', 'amount_charged', 'amount_reversed');
    const { id, status, loans_processed: loans, amount_charged: charged, amount_reversed: reversed } = provisioning;
    return { provisioning_run: id, status, loans, charged, reversed };
  });
}

/**
 * The term deposits maturing by the business date (still the run's day), each once by its own key
 * (activities/members/term-deposits.activity.ts): a retry after a lost worker finds them matured and counts none.
 */
export async function matureEndOfDayTermDeposits(context: DataContext, input: { runId: string }) {
  const run: EndOfDayRunRow | undefined = await context.knex('end_of_day_runs').where({ id: input.runId }).first();
  if (run === undefined) throw new NotFoundError('The end of day');
  const step: EndOfDayStepRow = await context
    .knex('end_of_day_steps')
    .where({ run_id: run.id, step: 'matureTermDeposits' })
    .first();
  if (step.status === 'done') return step.result;
  const matured = await matureDueTermDeposits(context, { enterpriseId: run.enterprise_id });
  return runStep(context.knex, context.clock(), { ...input, step: 'matureTermDeposits' }, async () => ({ ...matured }));
}

/**
 * Moves the business date to the next working day (domain/enterprise/end-of-day.ts), which closes the run's day.
 * A business date already past it (moved by hand meanwhile) stays; the run records where it stands. Audited.
 */
export async function moveEndOfDayBusinessDate(knex: Knex, now: Date, input: { runId: string }) {
  return runStep(knex, now, { ...input, step: 'moveBusinessDate' }, async (trx, run) => {
    const configuration = await EnterpriseConfiguration.query(trx)
      .findOne({ enterprise_id: run.enterprise_id })
      .forUpdate()
      .throwIfNotFound();
    const inForce = effectiveBusinessDate(configuration, now);
    const next = inForce > run.business_date ? inForce : nextWorkingDay(run.business_date);
    if (next !== inForce)
      await EnterpriseConfiguration.query(trx).patchAndFetchById(configuration.id, { businessDate: next });
    await trx('end_of_day_runs').where({ id: run.id }).update({ next_date: next });
    await recordAudit(trx, null, {
      action: 'business_date.end_of_day',
      entityType: 'configuration',
      entityId: configuration.id,
      enterpriseId: run.enterprise_id,
      details: { from: inForce, to: next, end_of_day_run: run.id },
    });
    return { from: run.business_date, to: next };
  });
}

/**
 * On a month's last day, opens that month's end (trigger `end_of_day`) once the date has moved past it; the
 * workflow starts its own workflow while it runs. A refusal (a month before the enterprise's first month end…)
 * is recorded as the step's result: the day is closed all the same. Nothing to do on another day.
 */
export async function openEndOfDayMonthEnd(
  knex: Knex,
  now: Date,
  input: { runId: string },
): Promise<{ period: string; monthEndRunId: string; running: boolean } | null> {
  const result = await runStep(knex, now, { ...input, step: 'startMonthEnd' }, async (trx, run) => {
    const period = monthEndingOn(run.business_date);
    if (period === null) return { period: null };
    try {
      const opened = await openMonthEndRun(trx, now, {
        enterpriseId: run.enterprise_id,
        period,
        trigger: 'end_of_day',
        startedBy: null,
        requestId: null,
      });
      await trx('end_of_day_runs').where({ id: run.id }).update({ month_end_run_id: opened.run.id });
      return { period, month_end_run: opened.run.id };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { period, refused: error.code, message: error.message };
    }
  });
  const monthEndRunId = result?.month_end_run as string | undefined;
  if (monthEndRunId === undefined) return null;
  const monthEnd = await knex('month_end_runs').where({ id: monthEndRunId }).first('status');
  return { period: result!.period as string, monthEndRunId, running: monthEnd.status === 'running' };
}

export async function finishEndOfDayRun(knex: Knex, now: Date, input: { runId: string }): Promise<void> {
  await knex('end_of_day_runs')
    .where({ id: input.runId, status: 'running' })
    .update({ status: 'done', finished_at: now });
}

export async function markEndOfDayFailed(
  knex: Knex,
  now: Date,
  input: { runId: string; failure: string },
): Promise<void> {
  await knex('end_of_day_runs')
    .where({ id: input.runId, status: 'running' })
    .update({ status: 'failed', failure: input.failure.slice(0, 2000), finished_at: now });
}
