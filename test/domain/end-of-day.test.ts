import test from 'ava';
import { monthEndingOn, nextWorkingDay } from '../../domain/enterprise/end-of-day';

/**
 * The end of day's calendar (docs/domain.md §13.3): Monday to Friday, a month's last day starting its month end.
 * Weekdays checked on a 2026 calendar.
 */

test('the next working day skips Saturday and Sunday, across a month and a year', (t) => {
  t.is(nextWorkingDay('2026-04-15'), '2026-04-16', 'Wednesday to Thursday');
  t.is(nextWorkingDay('2026-07-31'), '2026-08-03', 'Friday 31 July to Monday 3 August');
  t.is(nextWorkingDay('2026-10-31'), '2026-11-02', 'a Saturday (a day closed by hand) to the Monday');
  t.is(nextWorkingDay('2026-12-31'), '2027-01-01', 'Thursday 31 December to Friday 1 January');
  t.is(nextWorkingDay('2027-01-01'), '2027-01-04');
  t.is(nextWorkingDay('2028-02-28'), '2028-02-29', 'a leap day is a Tuesday');
});

test("a month's last day names its month; any other day none", (t) => {
  t.is(monthEndingOn('2026-07-31'), '2026-07');
  t.is(monthEndingOn('2026-02-28'), '2026-02');
  t.is(monthEndingOn('2028-02-28'), null, 'February 2028 has 29 days');
  t.is(monthEndingOn('2026-04-15'), null);
});
