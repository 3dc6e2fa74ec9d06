import { daysInMonth, type IsoDate } from '../calendar';

/**
 * Recurring manual entries (docs/domain.md §12.7): which periods a model is due in, the date and the reference of
 * its draft for a period. Periods are months (`YYYY-MM`); a quarterly model is due every third month from its
 * first period. Pure.
 */

export const recurringFrequencies = ['monthly', 'quarterly'] as const;
export type RecurringFrequency = (typeof recurringFrequencies)[number];

const monthsPerPeriod: Record<RecurringFrequency, number> = { monthly: 1, quarterly: 3 };

export interface RecurringSchedule {
  frequency: RecurringFrequency;
  dayOfPeriod: number;
  firstPeriod: string;
  lastPeriod: string | null;
}

const monthIndex = (period: string) => Number(period.slice(0, 4)) * 12 + Number(period.slice(5, 7)) - 1;

/** True when the model proposes a draft in this period: within its first and last, on its frequency's step. */
export function isDuePeriod(model: RecurringSchedule, period: string): boolean {
  if (period < model.firstPeriod || (model.lastPeriod !== null && period > model.lastPeriod)) return false;
  return (monthIndex(period) - monthIndex(model.firstPeriod)) % monthsPerPeriod[model.frequency] === 0;
}

/**
 * The draft's date: the model's day in the period's month, the month's last day when it is shorter (the 31st in June →
 * the 30th).
 */
export function proposalDate(period: string, dayOfPeriod: number): IsoDate {
  const days = daysInMonth(Number(period.slice(0, 4)), Number(period.slice(5, 7)));
  return `${period}-${String(Math.min(dayOfPeriod, days)).padStart(2, '0')}`;
}

/** The draft's reference: the pattern with each `{period}` replaced (`LOYER-{period}` → `LOYER-2026-06`). */
export const proposalReference = (pattern: string, period: string): string =>
  pattern.replaceAll('{period}', period).slice(0, 60);
