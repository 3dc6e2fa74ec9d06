import type { Knex } from 'knex';
import type { EndOfDayRunRow, EndOfDayStepRow } from './end-of-day.activity';

/**
 * The reads of the ends of day (issue 29, docs/domain.md §13.3): the runs, their steps, what a running one waits for.
 */

/**
 * A run with its steps in order and, while it runs, the active branches that have not closed its day (null once it
 * ended).
 */
export type EndOfDayRunDetail = EndOfDayRunRow & { steps: EndOfDayStepRow[]; awaiting_branches: string[] | null };

export const endOfDayRunsQuery = (knex: Knex): Knex.QueryBuilder => knex('end_of_day_runs').select('*');

export const endOfDayRunById = (knex: Knex, id: string) =>
  knex('end_of_day_runs').where({ id }).first() as Promise<EndOfDayRunRow | undefined>;

/** Of a running run, the active branches that have not closed its day: what holds it, for direction to chase. */
const awaitedBranches = (knex: Knex, run: EndOfDayRunRow): Promise<string[]> =>
  knex('branches as b')
    .where({ 'b.enterprise_id': run.enterprise_id, 'b.status': 'active' })
    .whereNotExists(
      knex('branch_days as d').whereRaw('d.branch_id = b.id AND d.business_date = ?', [run.business_date]),
    )
    .orderBy('b.code')
    .pluck('b.id');

/** The runs with their steps (one query) and what each running one waits for. */
export async function withStepsAndAwaited(knex: Knex, runs: readonly EndOfDayRunRow[]): Promise<EndOfDayRunDetail[]> {
  const steps: EndOfDayStepRow[] = await knex('end_of_day_steps')
    .whereIn(
      'run_id',
      runs.map((run) => run.id),
    )
    .orderBy(['run_id', 'position']);
  const details: EndOfDayRunDetail[] = [];
  for (const run of runs) {
    const awaiting = run.status === 'running' ? await awaitedBranches(knex, run) : null;
    details.push({ ...run, steps: steps.filter((step) => step.run_id === run.id), awaiting_branches: awaiting });
  }
  return details;
}

/** One run as it is now, with its steps and what it waits for. */
export const endOfDayRunDetail = async (knex: Knex, id: string) =>
  (await withStepsAndAwaited(knex, [(await endOfDayRunById(knex, id))!]))[0]!;
