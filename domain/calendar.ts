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
  if (format === undefined) formats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
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

/** The calendar year holding `date`, as an accounting year (OHADA: the civil year by default). */
export function civilYearOf(date: IsoDate): { code: string; startDate: IsoDate; endDate: IsoDate } {
  const year = date.slice(0, 4);
  return { code: year, startDate: `${year}-01-01`, endDate: `${year}-12-31` };
}
