/**
 * Calendar dates (`YYYY-MM-DD`) of the enterprise. "Now" is always an argument: this module reads no clock.
 */
export type IsoDate = string;

/** The calendar date at `now` in `timeZone` (e.g. Africa/Douala, UTC+1). */
export function dateIn(timeZone: string, now: Date): IsoDate {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
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
