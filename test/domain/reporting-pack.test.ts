import test from 'ava';
import { monthBounds, packRefusal, reportingPackWorkflowId } from '../../domain/accounts/reporting-pack';

test('a month’s bounds: 28, 29, 30 or 31 days, December into the next year', (t) => {
  t.deepEqual(monthBounds('2026-02'), { first: '2026-02-01', last: '2026-02-28' });
  t.deepEqual(monthBounds('2028-02'), { first: '2028-02-01', last: '2028-02-29' });
  t.deepEqual(monthBounds('2026-04'), { first: '2026-04-01', last: '2026-04-30' });
  t.deepEqual(monthBounds('2026-12'), { first: '2026-12-01', last: '2026-12-31' });
  t.throws(() => monthBounds('2026-13'));
  t.throws(() => monthBounds('2026-1'));
});

test('a pack is made once its month is over by the business date, in an accounting year', (t) => {
  t.is(packRefusal({ period: '2026-11', businessDate: '2026-11-30', yearCoversLastDay: true }), null, 'on the last day itself (the month end)');
  t.is(packRefusal({ period: '2026-11', businessDate: '2026-11-29', yearCoversLastDay: true })?.code, 'period_not_ended');
  t.is(packRefusal({ period: '2026-11', businessDate: '2027-01-10', yearCoversLastDay: false })?.code, 'no_exercice_for_period');
  t.is(reportingPackWorkflowId('e1', '2026-11'), 'reporting-pack-e1-2026-11');
});
