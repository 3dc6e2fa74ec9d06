import { addDaysTo, addMonthsClamped, days30E360Between, daysBetween, parseIsoDate, type IsoDate } from '../calendar';
import { Money } from '../money';

/**
 * Interest on members' savings (docs/domain.md §9): computed from an account's end-of-day balances over a period,
 * at the product's annual rate and day count, rounded to the franc once per account and posting, with the tax
 * withheld on the gross. Pure: the balances, dates and terms come in as arguments.
 */
export const interestBases = ['minimum_monthly_balance', 'daily_balance'] as const;
export type InterestBasis = (typeof interestBases)[number];
export const dayCounts = ['actual_365', '30_360'] as const;
export type DayCount = (typeof dayCounts)[number];
export const postingFrequencies = ['monthly', 'quarterly', 'yearly'] as const;
/** Where a product's interest goes: the account itself, or for a term deposit at maturity or to its payout account. */
export const interestPayments = ['to_account', 'at_maturity', 'to_payout_account'] as const;
export type PostingFrequency = (typeof postingFrequencies)[number];

/** A rate of the product's history: the annual rate (e.g. 0.035) in force from `from` until the next one. */
export interface RatePeriod {
  from: IsoDate;
  annualRate: Money;
}

export interface InterestTerms {
  basis: InterestBasis;
  dayCount: DayCount;
  /** The product's rates, oldest first; the first in force from before any day of interest. */
  rates: readonly RatePeriod[];
  withholdingTaxRate: Money;
}

/** An account's money before and during a period: its balance at the end of the day before, then each movement. */
export interface BalanceHistory {
  opening: Money;
  /** Movements dated within the period, in any order; several on one day are summed (credit positive). */
  movements: readonly { date: IsoDate; amount: Money }[];
}

export interface InterestFigures {
  gross: Money;
  tax: Money;
  net: Money;
}

/** The days of a period, both ends included. */
export interface DayRange {
  from: IsoDate;
  to: IsoDate;
}

const nextDay = (date: IsoDate): IsoDate => addDaysTo(parseIsoDate(date), 1);
const previousDay = (date: IsoDate): IsoDate => addDaysTo(parseIsoDate(date), -1);

/** Days from `from` (counted) to `until` (not counted) under the day count. */
function dayCountBetween(from: IsoDate, until: IsoDate, dayCount: DayCount): number {
  return dayCount === 'actual_365' ? daysBetween(from, until) : days30E360Between(from, until);
}

const yearDays: Record<DayCount, number> = { actual_365: 365, '30_360': 360 };

/** A stretch of days at one balance: [from, until). */
interface Stretch {
  from: IsoDate;
  until: IsoDate;
  balance: Money;
}

/** The end-of-day balances of the period, as stretches of days at one balance. A period holds ten years at most. */
function dailyStretches(history: BalanceHistory, range: DayRange): Stretch[] {
  const days = daysBetween(range.from, range.to) + 1;
  if (days < 1 || days > 3700)
    throw new Error(`an interest period runs 1 to 3700 days, got ${range.from} to ${range.to}`);
  const byDay = new Map<IsoDate, Money>();
  for (const movement of history.movements) {
    if (movement.date < range.from || movement.date > range.to)
      throw new Error(`a movement of ${movement.date} lies outside ${range.from} to ${range.to}`);
    byDay.set(movement.date, (byDay.get(movement.date) ?? new Money(0)).plus(movement.amount));
  }
  const stretches: Stretch[] = [];
  let balance = history.opening;
  let day = range.from;
  for (let index = 0; index < days; index += 1) {
    balance = balance.plus(byDay.get(day) ?? 0);
    const last = stretches.at(-1);
    const following = nextDay(day);
    if (last !== undefined && last.balance.eq(balance)) last.until = following;
    else stretches.push({ from: day, until: following, balance });
    day = following;
  }
  return stretches;
}

/** Per calendar month of the period (its part within the period), the lowest end-of-day balance of those days. */
function monthlyMinimums(stretches: readonly Stretch[], range: DayRange): Stretch[] {
  const months: Stretch[] = [];
  for (const stretch of stretches) {
    let from = stretch.from;
    while (from < stretch.until) {
      const nextMonth = addMonthsClamped({ ...parseIsoDate(from), day: 1 }, 1);
      const until = nextMonth < stretch.until ? nextMonth : stretch.until;
      const last = months.at(-1);
      if (last !== undefined && last.from.slice(0, 7) === from.slice(0, 7)) {
        last.until = until;
        if (stretch.balance.lt(last.balance)) last.balance = stretch.balance;
      } else {
        months.push({ from, until, balance: stretch.balance });
      }
      from = until;
    }
  }
  if (months.at(-1)?.until !== nextDay(range.to)) throw new Error('the monthly minimums do not cover the period');
  return months;
}

/** The stretch cut where a rate changes inside it, each part with the rate in force on its days. */
function atRates(stretch: Stretch, rates: readonly RatePeriod[]): (Stretch & { rate: Money })[] {
  const first = [...rates].reverse().find((rate) => rate.from <= stretch.from);
  if (first === undefined) throw new Error(`no rate in force on ${stretch.from}`);
  const parts = [{ ...stretch, rate: first.annualRate }];
  for (const change of rates.filter((rate) => rate.from > stretch.from && rate.from < stretch.until)) {
    const last = parts.at(-1)!;
    parts.push({ from: change.from, until: last.until, balance: stretch.balance, rate: change.annualRate });
    last.until = change.from;
  }
  return parts;
}

/**
 * The interest of an account over `range` (both ends counted): the sum over stretches of balance × rate × days /
 * days of the year (365 or 360), the stretches being each day's end-of-day balance (daily balance) or each
 * month's lowest one (minimum monthly balance), cut where the product's rate changes, each part at the rate in
 * force on its days (a change applies from its date, never back to the start of the posting). The gross is
 * rounded half up to the franc once, for the account and this posting; the tax is the withholding rate on that
 * gross, rounded half up; the net is the rest.
 */
export function interestOver(history: BalanceHistory, range: DayRange, terms: InterestTerms): InterestFigures {
  if (history.opening.isNegative()) throw new Error('a savings balance is never negative');
  const daily = dailyStretches(history, range);
  const stretches = (terms.basis === 'daily_balance' ? daily : monthlyMinimums(daily, range)).flatMap((stretch) =>
    atRates(stretch, terms.rates),
  );
  const interestOf = (stretch: Stretch & { rate: Money }) =>
    stretch.balance.times(stretch.rate).times(dayCountBetween(stretch.from, stretch.until, terms.dayCount));
  const rateDays = stretches.reduce((sum, stretch) => sum.plus(interestOf(stretch)), new Money(0));
  const gross = rateDays.div(yearDays[terms.dayCount]).toDecimalPlaces(0, Money.ROUND_HALF_UP);
  const tax = gross.times(terms.withholdingTaxRate).toDecimalPlaces(0, Money.ROUND_HALF_UP);
  return { gross, tax, net: gross.minus(tax) };
}

/**
 * Whether a product posting at `frequency` posts at the month end `periodEnd`: quarters end in Mar, Jun, Sep, Dec;
 * years in Dec.
 */
export function postingDue(frequency: PostingFrequency, periodEnd: IsoDate): boolean {
  const { month } = parseIsoDate(periodEnd);
  return (
    frequency === 'monthly' ||
    (frequency === 'quarterly' && month % 3 === 0) ||
    (frequency === 'yearly' && month === 12)
  );
}

/** The first day of the posting cycle (month, quarter or year) that holds `date`. */
export function cycleStartOf(frequency: PostingFrequency, date: IsoDate): IsoDate {
  const { year, month } = parseIsoDate(date);
  const firstMonth = { monthly: month, quarterly: month - ((month - 1) % 3), yearly: 1 }[frequency];
  return `${String(year).padStart(4, '0')}-${String(firstMonth).padStart(2, '0')}-01`;
}

export const isMonthEnd = (date: IsoDate): boolean => nextDay(date).endsWith('-01');

/** The last day of the month of `date`. */
export const monthEndOf = (date: IsoDate): IsoDate =>
  previousDay(addMonthsClamped({ ...parseIsoDate(date), day: 1 }, 1));

/**
 * The days an account earns interest for in a posting: from the latest of its opening day, the start of the cycle
 * (none for the final interest of a term deposit, which is owed for the whole term) and the day after the last
 * day already paid; to `through`, or the day before its maturity (the capital leaves on that day). Null if empty.
 */
export interface WindowFacts {
  openedOn: IsoDate;
  cycleStart: IsoDate | null;
  paidThrough: IsoDate | null;
  maturityDate: IsoDate | null;
  through: IsoDate;
}

export function interestWindow(input: WindowFacts): DayRange | null {
  const starts = [
    input.openedOn,
    input.cycleStart,
    input.paidThrough === null ? null : nextDay(input.paidThrough),
  ].filter((date): date is IsoDate => date !== null);
  const from = starts.reduce((latest, date) => (date > latest ? date : latest));
  const to =
    input.maturityDate !== null && previousDay(input.maturityDate) < input.through
      ? previousDay(input.maturityDate)
      : input.through;
  return from <= to ? { from, to } : null;
}

/** A term deposit's maturity: its term in months after the opening day, clamped to a shorter month's last day. */
export const maturityDateOf = (openedOn: IsoDate, termMonths: number): IsoDate =>
  addMonthsClamped(parseIsoDate(openedOn), termMonths);

interface InterestSettingsDefaults {
  interestBasis: InterestBasis;
  dayCount: DayCount;
  postingFrequency: PostingFrequency;
  withholdingTaxRate: string;
  withholdingTaxAccountCode: string;
}

/**
 * The policy defaults of a product's interest settings (docs/domain.md §9): the lowest balance of each month, each
 * month a twelfth of the annual rate (30/360, as the loan schedules), posted every month end so each month's
 * income statement carries its own interest expense; no tax withheld unless configured, 4302 receiving it. The
 * expense account's default depends on the deposit account (defaultInterestExpenseAccount).
 */
export const defaultInterestSettings: InterestSettingsDefaults = {
  interestBasis: 'minimum_monthly_balance',
  dayCount: '30_360',
  postingFrequency: 'monthly',
  withholdingTaxRate: '0',
  withholdingTaxAccountCode: '4302',
};

/**
 * The PCEMF interest expense account of a product by where its deposits are held (docs/domain.md §9): 612 term
 * deposits (36), 613 savings books (373), 6115 other special-regime savings (35), 614 other demand accounts (37),
 * else 619.
 */
/**
 * The PCEMF account of the interest a product owes and has not paid at a month end (dettes rattachées,
 * docs/domain.md §9): 36900 for term deposits (36), 35900 for special-regime savings (35), 37800 for demand
 * accounts and savings books (37).
 */
export function defaultAccruedInterestAccount(depositAccountCode: string): string {
  const byPrefix: [string, string][] = [
    ['36', '36900'],
    ['35', '35900'],
  ];
  return byPrefix.find(([prefix]) => depositAccountCode.startsWith(prefix))?.[1] ?? '37800';
}

export function defaultInterestExpenseAccount(depositAccountCode: string): string {
  const byPrefix: [string, string][] = [
    ['36', '612'],
    ['373', '613'],
    ['35', '6115'],
    ['37', '614'],
  ];
  return byPrefix.find(([prefix]) => depositAccountCode.startsWith(prefix))?.[1] ?? '619';
}
