import test from 'ava';
import { clearingAccount, liaisonMovements, liaisonPairs } from '../../domain/cash/liaison';
import { afterShortFunds, latestDueDate } from '../../domain/cash/standing-orders';
import { formatAmount, Money } from '../../domain/money';

test('the liaison: 45200 between two branches, 459 within one; the giver credits, the receiver debits', (t) => {
  t.is(clearingAccount('a', 'b'), '45200');
  t.is(clearingAccount('a', 'a'), '459');
  t.is(liaisonMovements('a', 'a', new Money(100)), null);
  const moved = liaisonMovements('b', 'a', new Money(100))!;
  t.deepEqual(
    [moved.from.branchId, moved.from.counterpartBranchId, formatAmount(moved.from.amount)],
    ['b', 'a', '-100'],
  );
  t.deepEqual([moved.to.branchId, moved.to.counterpartBranchId, formatAmount(moved.to.amount)], ['a', 'b', '100']);
});

test(
  "liaison pairs: each pair once, in id order, each side's balance, their difference; the total of everything " +
    'shown',
  (t) => {
    const m = (branchId: string, counterpartBranchId: string, amount: number) => ({
      branchId,
      counterpartBranchId,
      amount: new Money(amount),
    });
    const { pairs, total } = liaisonPairs([
      m('b', 'a', -300),
      m('a', 'b', 300),
      m('c', 'a', 50),
      m('a', 'c', -50),
      m('b', 'c', 7),
    ]);
    const shown = pairs.map((pair) => [
      pair.branchA,
      pair.branchB,
      formatAmount(pair.balanceA),
      formatAmount(pair.balanceB),
      formatAmount(pair.difference),
    ]);
    t.deepEqual(shown, [
      ['a', 'b', '300', '-300', '0'],
      ['a', 'c', '-50', '50', '0'],
      ['b', 'c', '7', '0', '7'],
    ]);
    t.is(formatAmount(total), '7', 'a side missing (a branch not read) leaves its difference');
  },
);

test(
  'standing orders: the latest due date by a day, monthly clamped to short months, weekly on its weekday, ' +
    'within start and end',
  (t) => {
    const monthly = (day: number, startDate = '2026-01-01', endDate: string | null = null) => ({
      frequency: 'monthly' as const,
      day,
      startDate,
      endDate,
    });
    t.is(latestDueDate(monthly(31), '2026-04-30'), '2026-04-30', 'day 31 is the last day of April');
    t.is(latestDueDate(monthly(31), '2026-03-15'), '2026-02-28', 'before the day: the month before, clamped');
    t.is(latestDueDate(monthly(5), '2026-03-05'), '2026-03-05');
    t.is(latestDueDate(monthly(5), '2026-01-04'), null, 'nothing before the start');
    t.is(latestDueDate(monthly(5, '2026-01-01', '2026-02-10'), '2026-06-20'), '2026-02-05', 'nothing after the end');
    t.is(latestDueDate(monthly(10), '2027-01-09'), '2026-12-10', 'across the year');
    // 2026-11-26 is a Thursday (4).
    const weekly = (day: number) => ({ frequency: 'weekly' as const, day, startDate: '2026-11-01', endDate: null });
    t.is(latestDueDate(weekly(4), '2026-11-26'), '2026-11-26');
    t.is(latestDueDate(weekly(1), '2026-11-26'), '2026-11-23');
    t.is(latestDueDate(weekly(5), '2026-11-26'), '2026-11-20');
    t.is(latestDueDate(weekly(7), '2026-11-29'), '2026-11-29');
  },
);

test('short of funds: tried again while fewer than the retry days have passed since the due date', (t) => {
  t.is(afterShortFunds('2026-11-26', '2026-11-26', 0), 'failed', 'no retry days: failed at once');
  t.is(afterShortFunds('2026-11-26', '2026-11-26', 2), 'retrying');
  t.is(afterShortFunds('2026-11-26', '2026-11-27', 2), 'retrying');
  t.is(afterShortFunds('2026-11-26', '2026-11-28', 2), 'failed');
});
