import test from 'ava';
import {
  cycleStartOf,
  defaultInterestExpenseAccount,
  interestOver,
  interestWindow,
  isMonthEnd,
  maturityDateOf,
  postingDue,
  type InterestTerms,
} from '../../domain/members/savings-interest';
import { Money } from '../../domain/money';

/** Terms at one rate all along (annualRate), unless `rates` are given. */
const terms = ({
  annualRate = new Money('0.05'),
  ...overrides
}: Partial<InterestTerms> & { annualRate?: Money } = {}): InterestTerms => ({
  basis: 'daily_balance',
  dayCount: 'actual_365',
  rates: [{ from: '1900-01-01', annualRate }],
  withholdingTaxRate: new Money('0.165'),
  ...overrides,
});
const figures = (result: ReturnType<typeof interestOver>) => ({
  gross: result.gross.toFixed(0),
  tax: result.tax.toFixed(0),
  net: result.net.toFixed(0),
});

// March 2026: 100 000 at the start, 50 000 deposited on the 10th, 30 000 withdrawn on the 20th.
const march = { from: '2026-03-01', to: '2026-03-31' };
const marchHistory = {
  opening: new Money(100_000),
  movements: [
    { date: '2026-03-20', amount: new Money(-30_000) },
    { date: '2026-03-10', amount: new Money(50_000) },
  ],
};

test(
  'daily balance, actual/365: each end-of-day balance for its days over 365, rounded half up once; tax on the ' +
    'gross',
  (t) => {
    // 9 days at 100 000, 10 at 150 000, 12 at 120 000: 3 840 000 balance-days × 5 % / 365 = 526.03 → 526.
    // Tax 526 × 16.5 % = 86.79 → 87; net 439.
    t.deepEqual(figures(interestOver(marchHistory, march, terms())), { gross: '526', tax: '87', net: '439' });
  },
);

test('daily balance, 30/360: March counts 30 days, the 31st as the 30th', (t) => {
  // 9 days at 100 000, 10 at 150 000, 11 (20th to 30th) at 120 000: 3 720 000 × 5 % / 360 = 516.67 → 517.
  t.deepEqual(
    figures(interestOver(marchHistory, march, terms({ dayCount: '30_360', withholdingTaxRate: new Money(0) }))),
    { gross: '517', tax: '0', net: '517' },
  );
});

test('minimum monthly balance: the lowest end-of-day balance of the month, whatever came in later', (t) => {
  // 30/360: 100 000 × 30 × 5 % / 360 = 416.67 → 417. Actual/365: 100 000 × 31 × 5 % / 365 = 424.66 → 425.
  t.is(
    interestOver(marchHistory, march, terms({ basis: 'minimum_monthly_balance', dayCount: '30_360' })).gross.toFixed(0),
    '417',
  );
  t.is(interestOver(marchHistory, march, terms({ basis: 'minimum_monthly_balance' })).gross.toFixed(0), '425');
});

test('a quarter adds its three months, each at its own minimum; half a franc of tax rounds up', (t) => {
  // 200 000 in January; 50 000 withdrawn on 10 Feb (minimum 150 000); 100 000 deposited on 15 Mar (minimum still 150
  // 000). 30 × (200 000 + 150 000 + 150 000) × 6 % / 360 = 2 500; tax 412.5 → 413; net 2 087.
  const history = {
    opening: new Money(200_000),
    movements: [
      { date: '2026-02-10', amount: new Money(-50_000) },
      { date: '2026-03-15', amount: new Money(100_000) },
    ],
  };
  const quarter = interestOver(
    history,
    { from: '2026-01-01', to: '2026-03-31' },
    terms({ basis: 'minimum_monthly_balance', dayCount: '30_360', annualRate: new Money('0.06') }),
  );
  t.deepEqual(figures(quarter), { gross: '2500', tax: '413', net: '2087' });
  // The same quarter, by daily balances at actual/365: 40 days at 200 000, 33 at 150 000, 17 at 250 000 = 17 200 000 ×
  // 6 % / 365 = 2 827.40 → 2 827.
  t.is(
    interestOver(
      history,
      { from: '2026-01-01', to: '2026-03-31' },
      terms({ annualRate: new Money('0.06') }),
    ).gross.toFixed(0),
    '2827',
  );
});

test('an account opened mid-month earns from its first day; half a franc of interest goes to the member', (t) => {
  const opened = { opening: new Money(0), movements: [{ date: '2026-03-16', amount: new Money(100_000) }] };
  const window = { from: '2026-03-16', to: '2026-03-31' };
  // 30/360: 16th to the 30th = 15 days: 100 000 × 15 × 5 % / 360 = 208.33 → 208. Actual: 16 days → 219.18 → 219.
  t.is(
    interestOver(opened, window, terms({ basis: 'minimum_monthly_balance', dayCount: '30_360' })).gross.toFixed(0),
    '208',
  );
  t.is(interestOver(opened, window, terms()).gross.toFixed(0), '219');
  // 5 000 for one day at 3.65 % / 365 = 0.5 → 1.
  t.is(
    interestOver(
      { opening: new Money(5_000), movements: [] },
      { from: '2026-03-31', to: '2026-03-31' },
      terms({ annualRate: new Money('0.0365') }),
    ).gross.toFixed(0),
    '1',
  );
});

test('a zero rate or an empty account earns nothing', (t) => {
  t.true(interestOver(marchHistory, march, terms({ annualRate: new Money(0) })).gross.isZero());
  t.true(interestOver({ opening: new Money(0), movements: [] }, march, terms()).gross.isZero());
});

test('movements outside the period, or a period beyond ten years, are programming errors', (t) => {
  t.throws(() =>
    interestOver({ opening: new Money(0), movements: [{ date: '2026-04-01', amount: new Money(1) }] }, march, terms()),
  );
  t.throws(() =>
    interestOver({ opening: new Money(0), movements: [] }, { from: '2016-01-01', to: '2026-12-31' }, terms()),
  );
});

test('posting cycles: monthly every month end, quarterly at Mar/Jun/Sep/Dec, yearly at Dec', (t) => {
  t.true(postingDue('monthly', '2026-02-28'));
  t.deepEqual(
    ['2026-01-31', '2026-03-31', '2026-06-30', '2026-11-30', '2026-12-31'].map((end) => postingDue('quarterly', end)),
    [false, true, true, false, true],
  );
  t.deepEqual(
    ['2026-06-30', '2026-12-31'].map((end) => postingDue('yearly', end)),
    [false, true],
  );
  t.is(cycleStartOf('monthly', '2026-02-28'), '2026-02-01');
  t.is(cycleStartOf('quarterly', '2026-06-30'), '2026-04-01');
  t.is(cycleStartOf('quarterly', '2026-02-09'), '2026-01-01');
  t.is(cycleStartOf('yearly', '2026-12-31'), '2026-01-01');
  t.deepEqual(['2026-02-28', '2028-02-28', '2026-04-30', '2026-04-29'].map(isMonthEnd), [true, false, true, false]);
});

test(
  'the interest window: from the opening, the cycle or ' + 'the day after what was paid; to the day before maturity',
  (t) => {
    const base = {
      openedOn: '2026-01-15',
      cycleStart: '2026-03-01',
      paidThrough: null,
      maturityDate: null,
      through: '2026-03-31',
    };
    t.deepEqual(interestWindow(base), { from: '2026-03-01', to: '2026-03-31' });
    t.deepEqual(interestWindow({ ...base, openedOn: '2026-03-16' }), { from: '2026-03-16', to: '2026-03-31' });
    t.deepEqual(interestWindow({ ...base, paidThrough: '2026-03-09' }), { from: '2026-03-10', to: '2026-03-31' });
    t.deepEqual(interestWindow({ ...base, maturityDate: '2026-03-15' }), { from: '2026-03-01', to: '2026-03-14' });
    t.is(interestWindow({ ...base, paidThrough: '2026-03-31' }), null, 'nothing left to pay');
    // The final interest of a term deposit: no cycle bound, from the day after the last posting to the day before
    // maturity.
    t.deepEqual(interestWindow({ ...base, cycleStart: null, paidThrough: '2026-01-31', maturityDate: '2026-03-15' }), {
      from: '2026-02-01',
      to: '2026-03-14',
    });
  },
);

test('maturities and the default expense accounts of docs/domain.md §9', (t) => {
  t.is(maturityDateOf('2026-01-31', 1), '2026-02-28');
  t.is(maturityDateOf('2026-03-15', 12), '2027-03-15');
  t.deepEqual(['36100', '361', '373', '3711', '355', '3741', '39'].map(defaultInterestExpenseAccount), [
    '612',
    '612',
    '613',
    '614',
    '6115',
    '614',
    '619',
  ]);
});

test(
  'a rate cut on 15 December applies from that day: a year of 1 000 000 at 3 %, then 2 %, ' +
    'pays 29 556 (30/360), not 20 000',
  (t) => {
    const year = { from: '2026-01-01', to: '2026-12-31' };
    const cut = terms({
      basis: 'minimum_monthly_balance',
      dayCount: '30_360',
      withholdingTaxRate: new Money(0),
      rates: [
        { from: '1900-01-01', annualRate: new Money('0.03') },
        { from: '2026-12-15', annualRate: new Money('0.02') },
      ],
    });
    // Hand-computed: 344 days (11 months of 30 and 14) at 3 %, 16 days (15 to 30 December, 30E) at 2 %, over 360.
    const expected = new Money(1_000_000)
      .times('0.03')
      .times(344)
      .plus(new Money(1_000_000).times('0.02').times(16))
      .div(360)
      .toDecimalPlaces(0, Money.ROUND_HALF_UP);
    t.is(expected.toFixed(0), '29556');
    t.is(
      interestOver({ opening: new Money(1_000_000), movements: [] }, year, cut).gross.toFixed(0),
      expected.toFixed(0),
    );
    // Daily balances and actual days: 348 days at 3 %, 17 at 2 %, over 365.
    const daily = terms({ withholdingTaxRate: new Money(0), rates: cut.rates });
    const actual = new Money(1_000_000)
      .times('0.03')
      .times(348)
      .plus(new Money(1_000_000).times('0.02').times(17))
      .div(365)
      .toDecimalPlaces(0, Money.ROUND_HALF_UP);
    t.is(
      interestOver({ opening: new Money(1_000_000), movements: [] }, year, daily).gross.toFixed(0),
      actual.toFixed(0),
    );
    t.throws(
      () =>
        interestOver(
          { opening: new Money(1), movements: [] },
          year,
          terms({ rates: [{ from: '2026-06-01', annualRate: new Money('0.03') }] }),
        ),
      { message: /no rate in force on 2026-01-01/ },
    );
  },
);
