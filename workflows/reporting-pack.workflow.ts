import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { tagWorkflow } from './tags';
import type { Activities } from '../activities';
import { refusalText, stepRetry } from './activity-calls';

const { openReportingPack, storeReportingPack, markReportingPackFailed } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: stepRetry,
});

/** The start input, the same from the API and from the month end (which starts this workflow as its last step). */
export interface ReportingPackInput {
  enterpriseId: string;
  /** The month, `YYYY-MM`. */
  period: string;
}

/**
 * The monthly reporting pack (docs/architecture.md §10), id `reporting-pack-{enterpriseId}-{YYYY-MM}`: the pack's
 * row found or created, then every report made and stored in one activity (one transaction: a pack is whole or
 * absent). A pack already stored is left as it is: the files sent stay the files kept.
 */
export async function reportingPack(input: ReportingPackInput): Promise<{ packId: string; files: number }> {
  tagWorkflow({ enterpriseId: input.enterpriseId, businessId: input.period });
  const pack = await openReportingPack(input);
  if (pack.status === 'stored') return { packId: pack.packId, files: 0 };
  try {
    const stored = await storeReportingPack({ packId: pack.packId });
    return { packId: pack.packId, files: stored.files };
  } catch (error) {
    const failure = refusalText(error);
    await markReportingPackFailed({ packId: pack.packId, failure });
    throw ApplicationFailure.nonRetryable(`reporting pack ${pack.packId} failed`, 'ReportingPackFailed');
  }
}
