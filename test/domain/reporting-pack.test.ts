import test from 'ava';
import { packRefusal } from '../../domain/accounts/reporting-pack';
import { reportingPackWorkflowId } from '../../workflows/identities';

test('a pack is made once its month is over by the business date, in an accounting year', (t) => {
  t.is(
    packRefusal({ period: '2026-11', businessDate: '2026-11-30', yearCoversLastDay: true }),
    null,
    'on the last day itself (the month end)',
  );
  t.is(
    packRefusal({ period: '2026-11', businessDate: '2026-11-29', yearCoversLastDay: true })?.code,
    'period_not_ended',
  );
  t.is(
    packRefusal({ period: '2026-11', businessDate: '2027-01-10', yearCoversLastDay: false })?.code,
    'no_exercice_for_period',
  );
  t.is(reportingPackWorkflowId('e1', '2026-11'), 'reporting-pack-e1-2026-11');
});
