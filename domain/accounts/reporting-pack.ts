import type { IsoDate } from '../calendar';
import { periodDates } from '../enterprise/month-end';

/**
 * The monthly reporting pack's rules (docs/architecture.md §10): a month is `YYYY-MM` (a month end's period); its pack holds the
 * statements at the month's last day (the income statement from the start of the accounting year), and can
 * be made once the month is over by the business date. One pack per enterprise and month: what was sent is
 * kept as sent, never made again.
 */

/** Why a month's pack cannot be made now, or null: the month must be over, and an accounting year must cover its last day. */
export function packRefusal(facts: { period: string; businessDate: IsoDate; yearCoversLastDay: boolean }): { code: string; message: string } | null {
  const { end: last } = periodDates(facts.period);
  if (last > facts.businessDate) return { code: 'period_not_ended', message: `The month ${facts.period} ends on ${last}, after the business date ${facts.businessDate}: its pack is made once it is over.` };
  if (!facts.yearCoversLastDay) return { code: 'no_exercice_for_period', message: `No accounting year of the enterprise covers ${last}, the last day of ${facts.period}.` };
  return null;
}

/** One workflow per enterprise and month (docs/architecture.md §5): a second start while one runs is refused by Temporal. */
export const reportingPackWorkflowId = (enterpriseId: string, period: string) => `reporting-pack-${enterpriseId}-${period}`;
