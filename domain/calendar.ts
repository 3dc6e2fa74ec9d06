/**
 * Calendar dates (`YYYY-MM-DD`) of the enterprise. "Now" is always an argument: this module reads no clock.
 */
export type IsoDate = string;

// Building a DateTimeFormat costs far more than using one: one per time zone, reused (no state changes).
const formats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date at `now` in `timeZone` (e.g. Africa/Douala, UTC+1). */
export function dateIn(timeZone: string, now: Date): IsoDate {
  let format = formats.get(timeZone);
  // en-CA formats as YYYY-MM-DD.
  if (format === undefined)
    formats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })),
    );
  return format.format(now);
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The dates the product handles, the one bound of every date and month it reads (api/modules/common.schemas.ts):
 * from the oldest birth dates to far beyond any loan or deadline. Beyond it a month's next day is not a date.
 */
export const firstHandledDate: IsoDate = '1900-01-01';
export const lastHandledDate: IsoDate = '2999-12-31';

/** The calendar year holding `date`, as an accounting year (OHADA: the civil year by default). */
export function civilYearOf(date: IsoDate): { code: string; startDate: IsoDate; endDate: IsoDate } {
  const year = date.slice(0, 4);
  return { code: year, startDate: `${year}-01-01`, endDate: `${year}-12-31` };
}

/** A calendar day split in its parts; month 1 to 12. */
export interface YearMonthDay {
  year: number;
  month: number;
  day: number;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Strict YYYY-MM-DD with a real calendar day; years from 1000 (Date.UTC maps years 0-99 to the 1900s). */
export function parseIsoDate(date: IsoDate): YearMonthDay {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const [year, month, day] = match === null ? [0, 0, 0] : [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    throw new Error(`not a calendar date YYYY-MM-DD: ${date}`);
  return { year, month, day };
}

function formatIsoDate({ year, month, day }: YearMonthDay): IsoDate {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** `months` later, on the same day of month clamped to a shorter month (31 Jan + 1 → 28/29 Feb). */
export function addMonthsClamped(start: YearMonthDay, months: number): IsoDate {
  const monthIndex = start.month - 1 + months;
  const year = start.year + Math.floor(monthIndex / 12);
  const month = (monthIndex % 12) + 1;
  return formatIsoDate({ year, month, day: Math.min(start.day, daysInMonth(year, month)) });
}

/** Explicit-argument UTC arithmetic: no clock and no time zone, so no daylight-saving hour to lose. */
export function addDaysTo(start: YearMonthDay, days: number): IsoDate {
  const moment = new Date(Date.UTC(start.year, start.month - 1, start.day + days));
  return formatIsoDate({ year: moment.getUTCFullYear(), month: moment.getUTCMonth() + 1, day: moment.getUTCDate() });
}

/** Calendar days from `from` to `to` (negative when `to` is earlier): actual days, as actual/365 counts them. */
export function daysBetween(from: IsoDate, to: IsoDate): number {
  const utc = ({ year, month, day }: YearMonthDay) => Date.UTC(year, month - 1, day);
  return Math.round((utc(parseIsoDate(to)) - utc(parseIsoDate(from))) / 86_400_000);
}

/** Days from `from` to `to` under 30E/360: every month counts 30 days (the 31st is the 30th). */
export function days30E360Between(from: IsoDate, to: IsoDate): number {
  const ordinal = ({ year, month, day }: YearMonthDay) => year * 360 + month * 30 + Math.min(day, 30);
  return ordinal(parseIsoDate(to)) - ordinal(parseIsoDate(from));
}

/** The business date in force: the one set by direction, or today in the enterprise's time zone. */
export function effectiveBusinessDate(
  configuration: { businessDate: IsoDate | null; timeZone: string },
  now: Date,
): IsoDate {
  return configuration.businessDate ?? dateIn(configuration.timeZone, now);
}
