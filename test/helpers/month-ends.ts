import { untilWorkflow } from './until';
import type { LoanWorld } from './loans';

/**
 * Starts the month end of a period through the API (as direction) and waits until its run is no longer running;
 * answers the start's response with the run as it ended. A refusal (4xx) is answered as it is.
 */
export async function runMonthEnd(world: LoanWorld, period: string) {
  const headers = world.users.direction!.headers;
  const started = await world.app.request('POST', '/api/v1/enterprise/month-ends/', {
    headers,
    json: { enterprise: world.enterpriseId, period },
  });
  if (started.status !== 202) return started;
  return untilWorkflow({
    workflowId: started.body.workflow_id,
    what: `the month end of ${period}`,
    read: async () => {
      const run = await world.app.request('GET', `/api/v1/enterprise/month-ends/${started.body.id as string}/`, {
        headers,
      });
      return run.body.status === 'running' ? undefined : run;
    },
  });
}

/** The month ends of `periods`, in order, each done (a year's before its closing); throws at the first that is not. */
export async function runMonthEnds(world: LoanWorld, periods: readonly string[]): Promise<void> {
  for (const period of periods) {
    const run = await runMonthEnd(world, period);
    if (run.body.status !== 'done') throw new Error(`month end ${period}: ${run.text}`);
  }
}
