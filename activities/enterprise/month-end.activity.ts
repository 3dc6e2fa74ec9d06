import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { AppError, NotFoundError } from '../../domain/errors';
import {
  monthEndRefusal,
  monthEndSteps,
  periodDates,
  periodJustEnded,
  previousPeriod,
  type MonthEndStepInput,
  type Period,
} from '../../domain/enterprise/month-end';
import type { MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import { inTransaction } from '../../db/transaction';
import { chainAnchors, type ChainAnchor } from '../audit';
import type { RequestOrigin } from '../context';
import { postJournalEntry, type EntryDraft } from '../events/post-entry';
import { lockedBusinessDate, startRun } from './run-start';

/**
 * The month end of an enterprise (docs/architecture.md §9, docs/domain.md §8) as a document: one run per
 * enterprise and period, its steps in the order of `monthEndSteps`, each with the MonthEndStepResult of what it
 * did. A step is one transaction that locks the run, does its work, records its entries and its result and
 * moves to done: a step retried after a lost worker, or a failed run started again (it resumes), finds its work
 * done and posts nothing twice. A done run started again changes nothing and answers itself.
 */

export interface MonthEndRunRow {
  id: string;
  enterprise_id: string;
  period: Period;
  period_start: string;
  period_end: string;
  status: 'running' | 'done' | 'failed';
  trigger: 'api' | 'schedule' | 'end_of_day';
  started_by: string | null;
  failure: string | null;
  created_at: Date;
  finished_at: Date | null;
  chain_anchors: ChainAnchor[] | null;
}

export interface MonthEndStepRow {
  run_id: string;
  step: string;
  position: number;
  status: 'pending' | 'done';
  result: MonthEndStepResult | null;
  finished_at: Date | null;
}

export interface MonthEndRequest extends RequestOrigin {
  enterpriseId: string;
  /** null: the month just ended before the business date (the Schedule's start). */
  period: Period | null;
  trigger: 'api' | 'schedule' | 'end_of_day';
  startedBy: string | null;
}

/** The run of the period and whether the caller must start its workflow (a new or a failed run, now running). */
export interface OpenedMonthEnd {
  run: MonthEndRunRow;
  start: boolean;
}

/** The period of the enterprise's first month end (any status), from which month ends run without a gap. */
export async function firstMonthEndPeriod(trx: Knex.Transaction, enterpriseId: string): Promise<Period | null> {
  const first = await trx('month_end_runs').where({ enterprise_id: enterpriseId }).min({ period: 'period' }).first();
  return (first?.period as string | null) ?? null;
}

async function refusalFor(trx: Knex.Transaction, enterpriseId: string, period: Period, businessDate: string) {
  const previous = await trx('month_end_runs')
    .where({ enterprise_id: enterpriseId, period: previousPeriod(period) })
    .first('status');
  const firstOpenYear = await trx('exercices_comptables')
    .where({ enterprise_id: enterpriseId, status: 'open' })
    .orderBy('start_date')
    .first('start_date as startDate', 'end_date as endDate');
  const firstRunPeriod = await firstMonthEndPeriod(trx, enterpriseId);
  const imported = await trx('imports')
    .where({ enterprise_id: enterpriseId, status: 'applied' })
    .max({ cutOver: trx.raw(`to_char(cut_over_date, 'YYYY-MM-DD')`) })
    .first();
  const cutOverDate = (imported?.cutOver as string | null | undefined) ?? null;
  return monthEndRefusal({
    period,
    businessDate,
    firstRunPeriod,
    previousStatus: previous?.status ?? null,
    firstOpenYear: firstOpenYear ?? null,
    cutOverDate,
  });
}

/**
 * Opens the month end of a period: a done run is answered as it is, a running one too; a failed one is set
 * running again (it resumes); else, unless refused (period not over, previous month end not done, a month before
 * the enterprise's first, a first one outside its first open accounting year, a month ended before a go-live
 * import's cut-over: docs/domain.md §8), a new run with
 * its steps pending. The enterprise's configuration row is locked first, so two starts of one enterprise queue up
 * and see each other's run.
 */
export async function openMonthEndRun(knex: Knex, now: Date, input: MonthEndRequest): Promise<OpenedMonthEnd> {
  return inTransaction(knex, async (trx) => {
    const businessDate = await lockedBusinessDate(trx, input.enterpriseId, now);
    const period = input.period ?? periodJustEnded(businessDate);
    const existing: MonthEndRunRow | undefined = await trx('month_end_runs')
      .where({ enterprise_id: input.enterpriseId, period })
      .first();
    if (existing !== undefined && existing.status !== 'failed') return { run: existing, start: false };
    const refusal = existing === undefined ? await refusalFor(trx, input.enterpriseId, period, businessDate) : null;
    if (refusal !== null) throw new AppError(refusal.kind, refusal.code, refusal.message);
    const { start, end } = periodDates(period);
    const columns = { period, period_start: start, period_end: end };
    const run = await startRun(
      trx,
      input,
      { kind: 'month_end', stepNames: monthEndSteps, columns, details: { period } },
      existing,
    );
    return { run, start: true };
  });
}

/** What a step's work receives: the run, locked, and the way to post an entry listed as the step's. */
export interface MonthEndStepWork {
  run: MonthEndRunRow;
  post: (draft: Omit<EntryDraft, 'enterpriseId' | 'createdBy'>) => Promise<string>;
}

/** The work of one step, as each step's activity gives it to runMonthEndStep. */
export type MonthEndStepWorkFunction = (trx: Knex.Transaction, step: MonthEndStepWork) => Promise<MonthEndStepResult>;

/**
 * The run, locked, and its step when the step is still to do; null when it is done or the run is not running
 * (the step's recorded result is then the answer, with no new entry). A run opened before its step was added to
 * monthEndSteps gets the step's row here when it resumes.
 */
async function stepToDo(
  trx: Knex.Transaction,
  input: MonthEndStepInput,
): Promise<{ run: MonthEndRunRow } | { done: MonthEndStepResult }> {
  const run: MonthEndRunRow | undefined = await trx('month_end_runs').where({ id: input.runId }).forUpdate().first();
  if (run === undefined) throw new NotFoundError('The month end');
  const step: MonthEndStepRow | undefined = await trx('month_end_steps')
    .where({ run_id: run.id, step: input.step })
    .first();
  if (step?.status === 'done' || run.status !== 'running')
    return { done: { ...(step?.result ?? { amount: '0', lines: [] }), entries: 0 } };
  if (step === undefined)
    await trx('month_end_steps').insert({
      enterprise_id: run.enterprise_id,
      run_id: run.id,
      step: input.step,
      position: monthEndSteps.indexOf(input.step),
    });
  return { run };
}

const stepDone = (trx: Knex | Knex.Transaction, now: Date, input: MonthEndStepInput, result: MonthEndStepResult) =>
  trx('month_end_steps')
    .where({ run_id: input.runId, step: input.step })
    .update({ status: 'done', result: JSON.stringify(result), finished_at: now });

/**
 * Runs one step of a month end in one transaction: skipped when done (stepToDo); else `work`, whose entries and
 * result commit with the step's move to done. The loan steps are this with their own work.
 */
export async function runMonthEndStep(
  knex: Knex,
  now: Date,
  input: MonthEndStepInput,
  work: MonthEndStepWorkFunction,
): Promise<MonthEndStepResult> {
  return inTransaction(knex, async (trx) => {
    const todo = await stepToDo(trx, input);
    if ('done' in todo) return todo.done;
    const { run } = todo;
    const post = async (draft: Omit<EntryDraft, 'enterpriseId' | 'createdBy'>) => {
      const entryId = await postJournalEntry(trx, {
        ...draft,
        enterpriseId: run.enterprise_id,
        createdBy: run.started_by,
      });
      await trx('month_end_entries').insert({
        enterprise_id: run.enterprise_id,
        run_id: run.id,
        step: input.step,
        entry_id: entryId,
      });
      return entryId;
    };
    const result = await work(trx, { run, post });
    await stepDone(trx, now, input, result);
    return result;
  });
}

/** The work of a step that commits member account by member account, each posting recorded under its own unique key. */
export type MonthEndPeriodWork = (period: {
  enterpriseId: string;
  periodStart: IsoDate;
  periodEnd: IsoDate;
}) => Promise<MonthEndStepResult>;

/**
 * Runs a step whose work commits in transactions of its own, one per member account (the savings interest and
 * the term-deposit maturities: one transaction for thousands of accounts would hold their rows for the whole
 * step). Each account's posting is recorded under a unique key (account, period), so the work run again after a
 * lost worker posts only what is missing; its result lists every posting of the period, then the step is done.
 */
export async function runMonthEndPeriodStep(
  knex: Knex,
  now: Date,
  input: MonthEndStepInput,
  work: MonthEndPeriodWork,
): Promise<MonthEndStepResult> {
  const todo = await inTransaction(knex, (trx) => stepToDo(trx, input));
  if ('done' in todo) return todo.done;
  const { start, end } = periodDates(todo.run.period);
  const result = await work({ enterpriseId: todo.run.enterprise_id, periodStart: start, periodEnd: end });
  await stepDone(knex, now, input, result);
  return result;
}

export async function finishMonthEndRun(knex: Knex, now: Date, input: { runId: string }): Promise<void> {
  await inTransaction(knex, async (trx) => {
    const pending = await trx('month_end_steps')
      .where({ run_id: input.runId })
      .whereNot('status', 'done')
      .first('step');
    if (pending !== undefined)
      throw new AppError(
        'conflict',
        'month_end_step_pending',
        `The step ${pending.step as string} of the month end is not done.`,
      );
    const [done] = await trx('month_end_runs')
      .where({ id: input.runId, status: 'running' })
      .update({ status: 'done', finished_at: now })
      .returning('enterprise_id');
    // The chains' heads as the month closes, printed in its document: an anchor kept outside the database.
    if (done !== undefined)
      await trx('month_end_runs')
        .where({ id: input.runId })
        .update({ chain_anchors: JSON.stringify(await chainAnchors(trx, done.enterprise_id as string)) });
  });
}

export async function markMonthEndFailed(
  knex: Knex,
  now: Date,
  input: { runId: string; failure: string },
): Promise<void> {
  await knex('month_end_runs')
    .where({ id: input.runId, status: 'running' })
    .update({ status: 'failed', failure: input.failure, finished_at: now });
}
