import { performance } from 'node:perf_hooks';
import { round } from './benchmark';
import { getJson, postJson, until, type Api } from './history-run';

/**
 * The end of day of a business date at the history's size (issue 32: ≤ 10 s for 20 branches), through the API as
 * the director: the head office and `endOfDayBranches - 1` new branches, each branch's day closed
 * (`POST /api/v1/cash/branch-days/`), then the end of day (`POST /api/v1/enterprise/end-of-days/`) polled to its
 * end: it waits for the branches' days, provisions every loan at the date, matures the term deposits due, and moves
 * the business date.
 */

export const endOfDayBranches = 20;

type Step = { step: string; finished_at: string | null };

/** Opens the branches the history lacks (it has its head office only), so that `endOfDayBranches` close a day. */
async function openBranches(api: Api, enterpriseId: string): Promise<string[]> {
  const listed = await getJson(api, `/api/v1/enterprise/branches/?enterprise=${enterpriseId}&page_size=100`);
  const ids = (listed.results as { id: string }[]).map((branch) => branch.id);
  for (let number = ids.length + 1; number <= endOfDayBranches; number += 1) {
    const code = `B${String(number).padStart(2, '0')}`;
    const body = { enterprise: enterpriseId, code, name: `Branch ${code}` };
    ids.push(String((await postJson(api, '/api/v1/enterprise/branches/', body, 201)).id));
  }
  return ids;
}

/** Every branch's day closed at `date`, then the end of day started and polled; each part timed. */
export async function runEndOfDay(api: Api, enterpriseId: string, date: string) {
  const branches = await openBranches(api, enterpriseId);
  const closingBegan = performance.now();
  for (const branch of branches)
    await postJson(api, '/api/v1/cash/branch-days/', { enterprise: enterpriseId, branch, date }, 201);
  const branchDaysSeconds = round((performance.now() - closingBegan) / 1000, 2);
  const began = performance.now();
  const run = await postJson(api, '/api/v1/enterprise/end-of-days/', { enterprise: enterpriseId, date });
  const done = await until('end of day', 600, async () => {
    const state = await getJson(api, `/api/v1/enterprise/end-of-days/${String(run.id)}/`);
    return state.status === 'running' ? undefined : state;
  });
  const seconds = round((performance.now() - began) / 1000, 2);
  if (done.status !== 'done')
    throw new Error(`end of day: ${String(done.status)} ${JSON.stringify(done).slice(0, 1000)}`);
  process.stdout.write(`history-period-ends: end of day ${date} of ${branches.length} branches in ${seconds} s\n`);
  const steps = (done.steps as Step[]).map((step) => ({ step: step.step, finishedAt: step.finished_at }));
  return { date, nextDate: done.next_date as string, branches: branches.length, branchDaysSeconds, seconds, steps };
}
