import {
  addDaysTo,
  addMonthsClamped,
  firstHandledDate,
  lastHandledDate,
  parseIsoDate,
  type IsoDate,
} from '../calendar';
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
  'reverseLoanInterestAccrual',
  'accrueLoanInterest',
  'recognizeUnearnedInterest',
  'reverseSavingsInterestAccrual',
  'matureTermDeposits',
  'postSavingsInterest',
  'accrueSavingsInterest',
  'depreciateFixedAssets',
] as const;
/** The steps added with the savings accruals: a month end started before them runs without them. */
export const savingsAccrualSteps: readonly MonthEndStepName[] = [
  'reverseSavingsInterestAccrual',
  'accrueSavingsInterest',
];
/**
 * The step added with interest received in advance (docs/domain.md §3): a month end started before it runs without it.
 */
export const unearnedInterestSteps: readonly MonthEndStepName[] = ['recognizeUnearnedInterest'];
/**
 * The step added with the fixed-asset register (docs/domain.md §12.4): a month end started before it runs without it.
 */
export const fixedAssetSteps: readonly MonthEndStepName[] = ['depreciateFixedAssets'];
export type MonthEndStepName = (typeof monthEndSteps)[number];

/** What every step activity receives. */
export interface MonthEndStepInput {
  runId: string;
  step: MonthEndStepName;
}

/** A month, `YYYY-MM`. */
export type Period = string;

/** The form of a month, `YYYY-MM`, as the API documents it. */
export const periodFormat = /^\d{4}-\d{2}$/;

/** A month that exists, within the dates the product handles (9999-12 would end on 10000-01-01's eve). */
export const isPeriod = (value: string): boolean =>
  periodFormat.test(value) &&
  /-(0[1-9]|1[0-2])$/.test(value) &&
  `${value}-01` >= firstHandledDate &&
  `${value}-01` <= lastHandledDate;

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
  /** The enterprise's earliest open accounting year, if any: where its first month end must lie. */
  firstOpenYear: { startDate: IsoDate; endDate: IsoDate } | null;
  /** The cut-over of the enterprise's applied go-live import, if any: its books start that day (docs/domain.md §15). */
  cutOverDate: IsoDate | null;
}

/**
 * Why the month end of `period` cannot run now, or null. The period must be over: the business date after its
 * last day (a month still taking postings cannot be accrued). Month ends run in order without a gap from the
 * enterprise's first one: the previous month's must be done, and no month before the first may run (its accrual
 * would never be reversed: the later month's reversal has run already). The first one is the rule of adoption
 * (docs/domain.md §8): its last day lies in the enterprise's first open accounting year, so that year closes
 * with every month end from it on, and no request can start the books in 1899. A month ended before an imported
 * cooperative's cut-over is the old system's: its accrual would count days Coopbank did not keep (§15.2).
 */
export function monthEndRefusal(facts: MonthEndFacts): Refusal | null {
  const { end } = periodDates(facts.period);
  if (facts.businessDate <= end)
    return refusal(
      'period_not_over',
      `The month ${facts.period} is not over: the business date ${facts.businessDate} must be after ${end}.`,
    );
  if (facts.cutOverDate !== null && end < facts.cutOverDate) {
    return refusal(
      'month_end_before_cut_over',
      `The month ${facts.period} ended before the cut-over of ${facts.cutOverDate}: its books are the old system's.`,
    );
  }
  if (facts.firstRunPeriod === null) return firstMonthEndRefusal(facts.period, end, facts.firstOpenYear);
  if (facts.period < facts.firstRunPeriod) {
    return refusal(
      'month_end_out_of_order',
      `Month ends run in order from the enterprise's first one, ${facts.firstRunPeriod}: ` +
        `${facts.period} comes before it.`,
    );
  }
  const previous = previousPeriod(facts.period);
  if (facts.firstRunPeriod <= previous && facts.previousStatus !== 'done') {
    return refusal('previous_month_end_not_done', `The month end of ${previous} is not done: run it first.`);
  }
  return null;
}

function firstMonthEndRefusal(period: Period, end: IsoDate, year: MonthEndFacts['firstOpenYear']): Refusal | null {
  if (year === null)
    return refusal(
      'no_exercice_for_period',
      `No accounting year of the enterprise is open for its first month end, ${period}.`,
    );
  if (end < year.startDate || end > year.endDate) {
    return refusal(
      'first_month_end_outside_first_year',
      `The first month end must be a month of the first open accounting year (${year.startDate} to ` +
        `${year.endDate}): ${period} is not.`,
    );
  }
  return null;
}

/**
 * The months of a year whose month end must be done before the year closes: every month of the year from the
 * enterprise's first month end on (none before it, nor for an enterprise that has never run one: the years it
 * closed before adopting month ends close as they did).
 */
export function monthEndsRequired(
  year: { startDate: IsoDate; endDate: IsoDate },
  firstRunPeriod: Period | null,
): Period[] {
  const last = periodOf(year.endDate);
  if (firstRunPeriod === null || firstRunPeriod > last) return [];
  const periods: Period[] = [];
  for (
    let period = firstRunPeriod > periodOf(year.startDate) ? firstRunPeriod : periodOf(year.startDate);
    period <= last;
    period = nextPeriod(period)
  )
    periods.push(period);
  return periods;
}
