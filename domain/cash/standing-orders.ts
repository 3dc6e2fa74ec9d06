import { addDaysTo, daysBetween, daysInMonth, parseIsoDate, type IsoDate } from '../calendar';

/**
 * Standing orders (virements permanents, docs/domain.md §13.5): a transfer between two member accounts repeated
 * monthly on a day of the month (clamped to a shorter month: day 31 is the 30th of April) or weekly on a day of the
 * week (1 Monday … 7 Sunday), from its start date to its end date. A run short of funds is tried again each
 * business day for `retryDays` days after its due date, then recorded failed. Pure.
 */
export type StandingOrderFrequency = 'monthly' | 'weekly';

export interface StandingOrderTerms {
  frequency: StandingOrderFrequency;
  /** Monthly: the day of the month, 1–31; weekly: the ISO day of the week, 1–7. */
  day: number;
  startDate: IsoDate;
  endDate: IsoDate | null;
}

/** The ISO day of the week of a date: 1 Monday … 7 Sunday. */
function isoWeekday(date: IsoDate): number {
  const { year, month, day } = parseIsoDate(date);
  return ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1;
}

/** The order's day in the month of `date`, clamped to the month's length. */
function dayInMonthOf(date: IsoDate, day: number): IsoDate {
  const { year, month } = parseIsoDate(date);
  return `${date.slice(0, 8)}${String(Math.min(day, daysInMonth(year, month))).padStart(2, '0')}`;
}

/** The latest due date of the order on or before `date`, within its start and end; null when there is none yet. */
export function latestDueDate(terms: StandingOrderTerms, date: IsoDate): IsoDate | null {
  const last = terms.endDate !== null && terms.endDate < date ? terms.endDate : date;
  let due: IsoDate;
  if (terms.frequency === 'weekly') {
    due = addDaysTo(parseIsoDate(last), -((isoWeekday(last) - terms.day + 7) % 7));
  } else {
    due = dayInMonthOf(last, terms.day);
    // Before the day in this month: the month before (its first day is the day before this month's first).
    if (due > last) due = dayInMonthOf(addDaysTo({ ...parseIsoDate(last), day: 1 }, -1), terms.day);
  }
  return due < terms.startDate ? null : due;
}

/**
 * After a refusal for lack of funds on `attemptDate`: tried again on a later day, or failed once the retry days are
 * spent.
 */
export const afterShortFunds = (dueDate: IsoDate, attemptDate: IsoDate, retryDays: number): 'retrying' | 'failed' =>
  daysBetween(dueDate, attemptDate) < retryDays ? 'retrying' : 'failed';
