import test from 'ava';
import { countTotal, differenceLines, fullCount } from '../../domain/cash/till-counts';
import { Money } from '../../domain/money';

/** The cash count (billetage) and the lines of its difference (docs/domain.md §13.1), figures by hand. */

test('a count adds each note and coin at its face value, the 500 note and coin apart', (t) => {
  // 3 × 10 000 + 1 × 5 000 + 2 × 500 (notes) + 3 × 500 (coins) + 4 × 25 + 7 × 1 = 37 607.
  const count = { note_10000: 3, note_5000: 1, note_500: 2, coin_500: 3, coin_25: 4, coin_1: 7 };
  t.is(countTotal(count).toFixed(0), '37607');
  t.is(countTotal({}).toFixed(0), '0');
  t.is(countTotal({ note_10000: 100_000_000 }).toFixed(0), '1000000000000', 'no float rounding on large counts');
  t.is(
    Object.values(fullCount({ coin_2: 5 })).reduce((sum, pieces) => sum + pieces, 0),
    5,
  );
  t.is(Object.keys(fullCount({})).length, 13, 'five notes and eight coins');
});

test(
  'a shortage debits 4631 and credits the till; an excess ' + 'debits the till and credits 4632; none posts nothing',
  (t) => {
    const simple = (lines: ReturnType<typeof differenceLines>) =>
      lines.map((line) => [line.account, line.debit.toFixed(0), line.credit.toFixed(0)]);
    t.deepEqual(simple(differenceLines('5712001', new Money(-1000))), [
      ['4631', '1000', '0'],
      ['5712001', '0', '1000'],
    ]);
    t.deepEqual(simple(differenceLines('5712001', new Money(500))), [
      ['5712001', '500', '0'],
      ['4632', '0', '500'],
    ]);
    t.deepEqual(differenceLines('5712001', new Money(0)), []);
  },
);
