import type { Knex } from 'knex';
import type { MonthEndRunRow, MonthEndStepRow } from './month-end.activity';

/** The reads of the month ends (docs/domain.md §8): the runs, their steps and the entries each step posted. */

/** A step with the entries it posted, oldest first. */
export type MonthEndStepDetail = MonthEndStepRow & { entries: string[] };
export type MonthEndRunDetail = MonthEndRunRow & { steps: MonthEndStepDetail[] };

export const monthEndRunsQuery = (knex: Knex): Knex.QueryBuilder => knex('month_end_runs').select('*');

export const monthEndRunById = (knex: Knex, id: string) =>
  knex('month_end_runs').where({ id }).first() as Promise<MonthEndRunRow | undefined>;

/** The runs with their steps and the entries each posted, in two queries. */
export async function withSteps(knex: Knex, runs: readonly MonthEndRunRow[]): Promise<MonthEndRunDetail[]> {
  const runIds = runs.map((run) => run.id);
  const steps: MonthEndStepRow[] = await knex('month_end_steps')
    .whereIn('run_id', runIds)
    .orderBy(['run_id', 'position']);
  const entries: { run_id: string; step: string; entry_id: string }[] = await knex('month_end_entries as m')
    .join('journal_entries as e', 'e.id', 'm.entry_id')
    .whereIn('m.run_id', runIds)
    .orderBy(['e.created_at', 'e.id'])
    .select('m.run_id', 'm.step', 'm.entry_id');
  const postedBy = (step: MonthEndStepRow) =>
    entries.filter((entry) => entry.run_id === step.run_id && entry.step === step.step).map((entry) => entry.entry_id);
  const detail = (step: MonthEndStepRow) => ({ ...step, entries: postedBy(step) });
  return runs.map((run) => ({ ...run, steps: steps.filter((step) => step.run_id === run.id).map(detail) }));
}

/** One run as it is now, with its steps. */
export const monthEndRunDetail = async (knex: Knex, id: string) =>
  (await withSteps(knex, [(await monthEndRunById(knex, id))!]))[0]!;
