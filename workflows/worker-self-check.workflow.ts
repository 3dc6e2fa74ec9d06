import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { diagnosticRetry } from './activity-calls';

const { describeDatabase } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: diagnosticRetry,
});

export interface WorkerSelfCheckResult {
  taskQueue: string;
  serverVersion: string;
  migrationsApplied: number;
  latestMigration: string | null;
}

/**
 * Diagnostic: proves a worker polls this task queue and reaches its database through an activity.
 * Operators run it from the Temporal UI or CLI
 * (`temporal workflow execute --type workerSelfCheck --task-queue coopbank --input '{}'`).
 */
export async function workerSelfCheck(_input: Record<string, never> = {}): Promise<WorkerSelfCheckResult> {
  const database = await describeDatabase();
  return {
    taskQueue: workflowInfo().taskQueue,
    serverVersion: database.serverVersion,
    migrationsApplied: database.migrationsApplied,
    latestMigration: database.latestMigration,
  };
}
