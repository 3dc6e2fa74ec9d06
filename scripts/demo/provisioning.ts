import type { Session } from './api-client';

export interface ProvisioningRun {
  id: string;
  as_of: string;
  status: 'running' | 'completed' | 'failed';
  loans_processed: number;
  loans_reclassified: number;
  amount_charged: string;
  failure: string | null;
  workflow_id: string;
}

const patienceMs = 60_000;
const pollMs = 250;

/**
 * Direction runs the provisioning at the business date, or as of an earlier date (the `provisioningRun` workflow
 * ages, classifies and provisions every active loan); the demo waits for its end so that what it prints is what
 * the run decided.
 */
export async function runProvisioning(
  direction: Session,
  enterpriseId: string,
  asOf?: string,
): Promise<ProvisioningRun> {
  const started = await direction.post<ProvisioningRun>(
    `start the provisioning run${asOf === undefined ? '' : ` as of ${asOf}`}`,
    '/api/v1/loans/provisions/runs/',
    { enterprise: enterpriseId, ...(asOf === undefined ? {} : { as_of: asOf }) },
  );
  const deadline = Date.now() + patienceMs;
  let run = started;
  while (run.status === 'running') {
    if (Date.now() > deadline)
      throw new Error(
        `The provisioning run ${run.id} still runs after ${patienceMs / 1000} s: is the worker running (npm start ` +
          `runs one)? See ${run.workflow_id} in the Temporal UI.`,
      );
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    run = await direction.get<ProvisioningRun>(
      'follow the provisioning run',
      `/api/v1/loans/provisions/runs/${started.id}/`,
    );
  }
  if (run.status === 'failed')
    throw new Error(`The provisioning run ${run.id} failed: ${run.failure ?? 'no reason given'}`);
  return run;
}
