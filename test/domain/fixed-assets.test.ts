import test from 'ava';
import fc from 'fast-check';
import { depreciatedThrough, depreciationSchedule } from '../../domain/accounting/depreciation';
import { disposalEntry, misclassifiedAccounts } from '../../domain/accounting/fixed-assets';
import { Money } from '../../domain/money';

/**
 * Straight-line depreciation, prorated by days in the months of acquisition and of disposal (docs/domain.md
 * §12.4). The expected figures are written out here: cost ÷ months × the fraction of the month used, half-up.
 */
const francs = (amount: Money) => amount.toFixed(0);

test(
  'a motorcycle of 1 500 000 over 36 months bought on 17 March 2026: March counts 15 days of 31, then whole ' +
    'months',
  (t) => {
    const asset = { cost: new Money(1_500_000), months: 36, acquisitionDate: '2026-03-17' };
    const schedule = depreciationSchedule(asset);
    const march = new Money(1_500_000)
      .times(15)
      .div(31 * 36)
      .toDecimalPlaces(0, Money.ROUND_HALF_UP); // 20 161
    const byApril = new Money(1_500_000)
      .times(new Money(15).div(31).plus(1))
      .div(36)
      .toDecimalPlaces(0, Money.ROUND_HALF_UP); // 61 828
    t.is(francs(march), '20161');
    t.deepEqual(
      schedule.slice(0, 2).map((month) => [month.period, francs(month.charge), francs(month.accumulated)]),
      [
        ['2026-03', '20161', '20161'],
        ['2026-04', francs(byApril.minus(march)), francs(byApril)],
      ],
    );
    // 36 months of use end on 16 March 2029: the 37th month holds the 16 remaining days.
    t.is(schedule.length, 37);
    t.is(schedule.at(-1)!.period, '2029-03');
    t.is(francs(schedule.at(-1)!.accumulated), '1500000');
    t.is(francs(schedule.at(-1)!.netBookValue), '0');
  },
);

test('a disposal on 10 June stops the schedule at 9 June: 9 days of 30 in June', (t) => {
  const asset = { cost: new Money(1_200_000), months: 24, acquisitionDate: '2026-04-01' };
  const schedule = depreciationSchedule(asset, '2026-06-10');
  const monthly = new Money(1_200_000).div(24); // 50 000
  t.deepEqual(
    schedule.map((month) => [month.period, month.through, francs(month.charge)]),
    [
      ['2026-04', '2026-04-30', francs(monthly)],
      ['2026-05', '2026-05-31', francs(monthly)],
      ['2026-06', '2026-06-09', francs(monthly.times(9).div(30))],
    ],
  );
  t.is(
    francs(depreciationSchedule(asset, '2026-04-01').reduce((sum, month) => sum.plus(month.charge), new Money(0))),
    '0',
    'sold the day it was bought: nothing',
  );
});

const dates = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));

test(
  'property: the charges are whole, never negative, and sum to the cost exactly; the schedule lasts the period ' +
    '(one month more when bought after the 1st)',
  (t) => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 999_999_999_999n }),
        fc.integer({ min: 1, max: 240 }),
        dates,
        (cost, months, acquisitionDate) => {
          const asset = { cost: new Money(cost.toString()), months, acquisitionDate };
          const schedule = depreciationSchedule(asset);
          const total = schedule.reduce((sum, month) => sum.plus(month.charge), new Money(0));
          if (!total.eq(asset.cost)) return false;
          if (!schedule.every((month) => month.charge.isInteger() && month.charge.gt(0))) return false;
          const expectedMonths = acquisitionDate.endsWith('-01') ? months : months + 1;
          // A tiny cost (under 100 francs a month) may round its last days to nothing.
          // Never more months than the period then.
          return (
            schedule.length <= expectedMonths && (asset.cost.lt(months * 100) || schedule.length === expectedMonths)
          );
        },
      ),
      { numRuns: 500 },
    );
    t.pass();
  },
);

test(
  'property: a disposal depreciates to the day before it, what the full schedule had reached by then, and ' +
    'never more than the cost',
  (t) => {
    const costs = fc.bigInt({ min: 1n, max: 999_999_999n });
    fc.assert(
      fc.property(
        costs,
        fc.integer({ min: 1, max: 120 }),
        dates,
        fc.integer({ min: 0, max: 4000 }),
        (cost, months, acquisitionDate, daysLater) => {
          const asset = { cost: new Money(cost.toString()), months, acquisitionDate };
          const disposal = new Date(Date.parse(`${acquisitionDate}T00:00:00Z`) + daysLater * 86_400_000)
            .toISOString()
            .slice(0, 10);
          const dayBefore = new Date(Date.parse(`${disposal}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
          const schedule = depreciationSchedule(asset, disposal);
          const total = schedule.reduce((sum, month) => sum.plus(month.charge), new Money(0));
          return (
            total.eq(depreciatedThrough(asset, dayBefore)) &&
            total.lte(asset.cost) &&
            schedule.every((month) => month.through < disposal)
          );
        },
      ),
      { numRuns: 500 },
    );
    t.pass();
  },
);

const accounts = { asset: '225', depreciation: '2825', charge: '6824', disposalValue: '6762', disposalProceeds: '775' };
const lines = (entry: ReturnType<typeof disposalEntry>) =>
  entry.lines.map((line) => [line.account, francs(line.debit), francs(line.credit)]);

test(
  'a disposal removes cost and depreciation, charges the ' + 'net book value to 6762 and credits the price to 775',
  (t) => {
    const gain = disposalEntry(
      {
        cost: new Money(1_000_000),
        accumulated: new Money(400_000),
        proceeds: new Money(700_000),
        proceedsAccount: '5710',
      },
      accounts,
    );
    t.deepEqual(lines(gain), [
      ['2825', '400000', '0'],
      ['6762', '600000', '0'],
      ['5710', '700000', '0'],
      ['775', '0', '700000'],
      ['225', '0', '1000000'],
    ]);
    t.is(francs(gain.gain), '100000');
    const loss = disposalEntry(
      { cost: new Money(1_000_000), accumulated: new Money(400_000), proceeds: new Money(0), proceedsAccount: '5710' },
      accounts,
    );
    t.deepEqual(
      lines(loss),
      [
        ['2825', '400000', '0'],
        ['6762', '600000', '0'],
        ['225', '0', '1000000'],
      ],
      'scrapped: no price, the whole net book value lost',
    );
    t.is(francs(loss.gain), '-600000');
    const written = disposalEntry(
      {
        cost: new Money(1_000_000),
        accumulated: new Money(1_000_000),
        proceeds: new Money(0),
        proceedsAccount: '5710',
      },
      accounts,
    );
    t.deepEqual(
      lines(written),
      [
        ['2825', '1000000', '0'],
        ['225', '0', '1000000'],
      ],
      'fully depreciated: nothing to charge',
    );
  },
);

test('each account of a category, a funding and a proceeds account must be of its class', (t) => {
  t.deepEqual(
    misclassifiedAccounts([
      { field: 'asset_account', role: 'asset', code: '2825' },
      { field: 'depreciation_account', role: 'depreciation', code: '2825' },
      { field: 'charge_account', role: 'charge', code: '6521' },
      { field: 'funding_account', role: 'funding', code: '40110' },
      { field: 'proceeds_account', role: 'proceeds', code: '46600' },
    ]).map((misfit) => misfit.field),
    ['asset_account', 'charge_account'],
  );
});
