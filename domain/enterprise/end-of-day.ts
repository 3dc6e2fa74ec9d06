import { addDaysTo, daysInMonth, parseIsoDate, type IsoDate } from '../calendar';

/**
 * The end of day (clôture de journée, docs/domain.md §13.3): the steps of one enterprise's close of business for
 * one business date, in the order the endOfDay workflow runs them. The business date moves before the month end
 * starts, because a month end runs only once its month is over by the business date.
 */
export const endOfDaySteps = [
  'awaitBranchDays',
  'provision',
  'matureTermDeposits',
  'moveBusinessDate',
  'startMonthEnd',
] as const;
export type EndOfDayStepName = (typeof endOfDaySteps)[number];

/** Saturday and Sunday (policy: the default working week of the CEMAC cooperatives; no holiday list yet). */
const isWeekend = (date: IsoDate): boolean => {
  const { year, month, day } = parseIsoDate(date);
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return weekday === 0 || weekday === 6;
};

/** The next working day after `date`: the next day that is not a Saturday or a Sunday. */
export function nextWorkingDay(date: IsoDate): IsoDate {
  let next = addDaysTo(parseIsoDate(date), 1);
  while (isWeekend(next)) next = addDaysTo(parseIsoDate(next), 1);
  return next;
}

/** The month (YYYY-MM) whose end the day's close starts, when `date` is its last day; else null. */
export function monthEndingOn(date: IsoDate): string | null {
  const { year, month, day } = parseIsoDate(date);
  return day === daysInMonth(year, month) ? date.slice(0, 7) : null;
}
