import { addDaysTo, addMonthsClamped, parseIsoDate, type IsoDate } from '../calendar';
import { refusal, type Refusal } from '../refusal';

/**
 * The month end of an enterprise (docs/domain.md §8): which steps it runs, in order, which period it may run
 * now, and which month ends an accounting year needs done before it closes.
 */

/**
 * The steps of a month end, in the order the monthEnd workflow runs them. Each name is an activity taking a
 * MonthEndStepInput and returning a MonthEndStepResult (activities/index.ts): adding a step is adding its name
 * here and its activity there. The maturities come before the savings interest: a demand account's interest
 * counts the capital paid into it from the maturity day.
 */
export const monthEndSteps = [
  'reverseLoanInterestAccrual', 'accrueLoanInterest', 'recognizeUnearnedInterest', 'reverseSavingsInterestAccrual', 'matureTermDeposits', 'postSavingsInterest',
  'accrueSavingsInterest',
] as const;
/** The steps added with the savings accruals: a month end started before them runs without them. */
export const savingsAccrualSteps: readonly MonthEndStepName[] = ['reverseSavingsInterestAccrual', 'accrueSavingsInterest'];
/** The step added with interest received in advance (docs/domain.md §3): a month end started before it runs without it. */
export const unearnedInterestSteps: readonly MonthEndStepName[] = ['recognizeUnearnedInterest'];
export type MonthEndStepName = (typeof monthEndSteps)[number];

/** What every step activity receives. */
export interface MonthEndStepInput {
  runId: string;
  step: MonthEndStepName;
}

/** A month, `YYYY-MM`. */
export type Period = string;

export const isPeriod = (value: string): boolean => /^\d{4}-(0[1-9]|1[0-2])$/.test(value) && Number(value.slice(0, 4)) >= 1000;

export function periodDates(period: Period): { start: IsoDate; end: IsoDate } {
  const start = `${period}-01`;
  return { start, end: addDaysTo(parseIsoDate(addMonthsClamped(parseIsoDate(start), 1)), -1) };
}

const periodOf = (date: IsoDate): Period => date.slice(0, 7);

/** The month before: the day before its first day (addMonthsClamped counts forward only). */
export const previousPeriod = (period: Period): Period => periodOf(addDaysTo(parseIsoDate(`${period}-01`), -1));

const nextPeriod = (period: Period): Period => periodOf(addMonthsClamped(parseIsoDate(`${period}-01`), 1));

/** The month that ended last before `businessDate`: the one a month end started by the Schedule closes. */
export const periodJustEnded = (businessDate: IsoDate): Period => previousPeriod(periodOf(businessDate));

export interface MonthEndFacts {
  period: Period;
  businessDate: IsoDate;
  /** The enterprise's earliest month end run (any status), if any. */
  firstRunPeriod: Period | null;
  /** The status of the previous period's run, if it has one. */
  previousStatus: 'running' | 'done' | 'failed' | null;
}

/**
 * Why the month end of `period` cannot run now, or null. The period must be over: the business date after its
 * last day (a month still taking postings cannot be accrued). Month ends run in order without a gap from the
 * enterprise's first one: the previous month's must be done, unless this is the enterprise's first month end
 * or comes before it (the rule of adoption, docs/domain.md §8).
 */
export function monthEndRefusal(facts: MonthEndFacts): Refusal | null {
  const { end } = periodDates(facts.period);
  if (facts.businessDate <= end) return refusal('period_not_over', `The month ${facts.period} is not over: the business date ${facts.businessDate} must be after ${end}.`);
  const previous = previousPeriod(facts.period);
  const started = facts.firstRunPeriod !== null && facts.firstRunPeriod <= previous;
  if (started && facts.previousStatus !== 'done') {
    return refusal('previous_month_end_not_done', `The month end of ${previous} is not done: run it first.`);
  }
  return null;
}

/**
 * The months of a year whose month end must be done before the year closes: every month of the year from the
 * enterprise's first month end on (none before it, nor for an enterprise that has never run one: the years it
 * closed before adopting month ends close as they did).
 */
export function monthEndsRequired(year: { startDate: IsoDate; endDate: IsoDate }, firstRunPeriod: Period | null): Period[] {
  const last = periodOf(year.endDate);
  if (firstRunPeriod === null || firstRunPeriod > last) return [];
  const periods: Period[] = [];
  for (let period = firstRunPeriod > periodOf(year.startDate) ? firstRunPeriod : periodOf(year.startDate); period <= last; period = nextPeriod(period)) periods.push(period);
  return periods;
}
