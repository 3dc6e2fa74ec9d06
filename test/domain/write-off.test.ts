import test from 'ava';
import { dueForWriteOff, netLoss } from '../../domain/loans/write-off';
import { Money } from '../../domain/money';

// R-2017/07 Art. 10: irrecoverable after 3 years doubtful, counted in whole years from the downgrade (docs/domain.md
// §14.3).
test('a doubtful loan is due for write-off from the day it has been doubtful for three whole years', (t) => {
  t.false(dueForWriteOff('2026-04-02', '2029-04-01'));
  t.true(dueForWriteOff('2026-04-02', '2029-04-02'));
  t.true(dueForWriteOff('2026-04-02', '2031-01-01'));
  t.false(dueForWriteOff('2026-04-02', '2026-04-01'), 'a date before the downgrade');
  // Downgraded on 29 February: three years are over on 1 March of a year without one.
  t.false(dueForWriteOff('2028-02-29', '2031-02-28'));
  t.true(dueForWriteOff('2028-02-29', '2031-03-01'));
});

test('the net loss is what was written off less what was recovered, never below zero', (t) => {
  t.is(netLoss(new Money('1200000'), new Money('350000')).toFixed(0), '850000');
  t.is(netLoss(new Money('1200000'), new Money('1300000')).toFixed(0), '0');
});
