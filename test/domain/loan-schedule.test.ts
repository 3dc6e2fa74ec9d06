import test from 'ava';
import {
  buildSchedule,
  type Frequency,
  type Installment,
  type ScheduleInput,
  type ScheduleMethod,
} from '../../domain/loans/schedule';
import { Money } from '../../domain/money';

/**
 * Expected figures come from the formula evaluated here with exact Decimal arithmetic, and from literal
 * rows computed independently (Python decimal, 50 digits) — never from the code under test.
 */

const round = (amount: Money): Money => amount.toDecimalPlaces(0, Money.ROUND_HALF_UP);
/** A = P·i / (1 − (1+i)^−n), written out again on purpose. */
const expectedAnnuity = (principal: string, annualRate: string, periods: number, perYear = 12): Money => {
  const i = new Money(annualRate).div(perYear);
  return new Money(principal).mul(i).div(new Money(1).minus(new Money(1).div(new Money(1).plus(i).pow(periods))));
};

function schedule(
  overrides: Partial<Omit<ScheduleInput, 'principal' | 'annualRate'>> & { principal: string; annualRate: string },
): Installment[] {
  return buildSchedule({
    method: 'constant_annuity',
    termPeriods: 12,
    frequency: 'monthly',
    firstDueDate: '2026-01-15',
    principalGracePeriods: 0,
    ...overrides,
    principal: new Money(overrides.principal),
    annualRate: new Money(overrides.annualRate),
  }).installments;
}

/** [number, principal, interest, total, outstandingAfter] as strings, for t.deepEqual on literal rows. */
const row = (installment: Installment): string[] =>
  [
    installment.number,
    installment.principal,
    installment.interest,
    installment.total,
    installment.outstandingAfter,
  ].map(String);
const sum = (installments: Installment[], pick: (installment: Installment) => Money): Money =>
  installments.reduce((total, installment) => total.plus(pick(installment)), new Money(0));

test('a 1-period loan repays principal plus one period of interest', (t) => {
  const [only, ...rest] = schedule({ principal: '500000', annualRate: '0.12', termPeriods: 1 });
  t.deepEqual(rest, []);
  t.deepEqual(row(only!), ['1', '500000', '5000', '505000', '0']);
  t.true(only!.total.eq(round(expectedAnnuity('500000', '0.12', 1))), 'A = P(1+i) for n = 1');
  t.is(only!.dueDate, '2026-01-15');
});

test('12 months at 18 %: annuity 91 680, rows as computed independently', (t) => {
  const installments = schedule({ principal: '1000000', annualRate: '0.18' });
  const annuity = round(expectedAnnuity('1000000', '0.18', 12));
  t.is(annuity.toString(), '91680');
  for (const installment of installments.slice(0, 11))
    t.true(installment.total.eq(annuity), `installment ${installment.number}`);
  t.deepEqual(row(installments[0]!), ['1', '76680', '15000', '91680', '923320']);
  t.deepEqual(row(installments[1]!), ['2', '77830', '13850', '91680', '845490']);
  t.deepEqual(row(installments[10]!), ['11', '88990', '2690', '91680', '90326']);
  t.deepEqual(row(installments[11]!), ['12', '90326', '1355', '91681', '0'], 'the last takes the rounding remainder');
  t.is(sum(installments, (i) => i.interest).toString(), '100161');
  t.deepEqual(installments.map((i) => i.dueDate).slice(0, 3), ['2026-01-15', '2026-02-15', '2026-03-15']);
  t.is(installments[11]!.dueDate, '2026-12-15');
});

test('360 months at 12 %: annuity 102 861 and the principal repaid exactly', (t) => {
  const installments = schedule({ principal: '10000000', annualRate: '0.12', termPeriods: 360 });
  const annuity = round(expectedAnnuity('10000000', '0.12', 360));
  t.is(annuity.toString(), '102861');
  t.is(installments.length, 360);
  for (const installment of installments.slice(0, 359)) t.true(installment.total.eq(annuity));
  t.deepEqual(row(installments[0]!), ['1', '2861', '100000', '102861', '9997139']);
  // Rounding the annuity down by 0.26 F compounds over 30 years: the last installment carries 817 F more.
  t.deepEqual(row(installments[359]!), ['360', '102651', '1027', '103678', '0']);
  t.is(sum(installments, (i) => i.interest).toString(), '27030777');
  t.is(installments[359]!.dueDate, '2055-12-15');
});

test('zero rate: P/n per period, no interest, no division by zero', (t) => {
  const installments = schedule({ principal: '100000', annualRate: '0', termPeriods: 7 });
  t.true(
    expectedAnnuity('100000', '0.0000000001', 7).minus(new Money(100000).div(7)).abs().lt('0.001'),
    'P/n is the limit of A as i → 0',
  );
  t.deepEqual(
    installments.map((i) => i.total.toString()),
    ['14286', '14286', '14286', '14286', '14286', '14286', '14284'],
  );
  t.true(installments.every((i) => i.interest.isZero()));
  t.is(installments[6]!.outstandingAfter.toString(), '0');
  const flat = buildSchedule({
    method: 'constant_principal',
    principal: new Money(90),
    annualRate: new Money(0),
    termPeriods: 3,
    frequency: 'weekly',
    firstDueDate: '2026-01-01',
    principalGracePeriods: 0,
  });
  t.deepEqual(flat.installments.map(row), [
    ['1', '30', '0', '30', '60'],
    ['2', '30', '0', '30', '30'],
    ['3', '30', '0', '30', '0'],
  ]);
});

test('a 3-period principal grace: interest only, then the annuity over the remaining 9 periods', (t) => {
  const installments = schedule({ principal: '1200000', annualRate: '0.18', principalGracePeriods: 3 });
  for (const installment of installments.slice(0, 3))
    t.deepEqual(row(installment).slice(1), ['0', '18000', '18000', '1200000']);
  const annuity = round(expectedAnnuity('1200000', '0.18', 9));
  t.is(annuity.toString(), '143532');
  for (const installment of installments.slice(3, 11)) t.true(installment.total.eq(annuity));
  t.deepEqual(row(installments[3]!), ['4', '125532', '18000', '143532', '1074468']);
  t.deepEqual(row(installments[11]!), ['12', '141409', '2121', '143530', '0']);
  t.is(sum(installments, (i) => i.interest).toString(), '145786');
});

test('constant principal: equal principal, decreasing installments, remainder on the last', (t) => {
  const installments = schedule({ method: 'constant_principal', principal: '1000000', annualRate: '0.18' });
  t.true(installments.slice(0, 11).every((i) => i.principal.eq(83333)));
  t.deepEqual(row(installments[0]!), ['1', '83333', '15000', '98333', '916667']);
  t.deepEqual(row(installments[1]!), ['2', '83333', '13750', '97083', '833334']);
  t.deepEqual(row(installments[11]!), ['12', '83337', '1250', '84587', '0']);
  t.is(sum(installments, (i) => i.interest).toString(), '97500');
  for (let k = 1; k < 12; k += 1)
    t.true(installments[k]!.total.lt(installments[k - 1]!.total), 'installments decrease');
});

test('constant principal with grace: P/(n − g) after the interest-only periods', (t) => {
  const installments = schedule({
    method: 'constant_principal',
    principal: '600000',
    annualRate: '0.24',
    termPeriods: 8,
    frequency: 'quarterly',
    principalGracePeriods: 2,
  });
  // i = 6 % a quarter.
  t.deepEqual(installments.slice(0, 3).map(row), [
    ['1', '0', '36000', '36000', '600000'],
    ['2', '0', '36000', '36000', '600000'],
    ['3', '100000', '36000', '136000', '500000'],
  ]);
  t.deepEqual(row(installments[7]!), ['8', '100000', '6000', '106000', '0']);
  t.deepEqual(
    installments.map((i) => i.dueDate),
    ['2026-01-15', '2026-04-15', '2026-07-15', '2026-10-15', '2027-01-15', '2027-04-15', '2027-07-15', '2027-10-15'],
  );
});

test('due dates: month ends clamp without drifting, quarters add 3 months, weeks 7 days across years', (t) => {
  const dates = (frequency: Frequency, firstDueDate: string, termPeriods: number): string[] =>
    schedule({ principal: '100000', annualRate: '0.1', frequency, firstDueDate, termPeriods }).map((i) => i.dueDate);
  t.deepEqual(dates('monthly', '2024-01-31', 4), ['2024-01-31', '2024-02-29', '2024-03-31', '2024-04-30']);
  t.deepEqual(dates('monthly', '2025-12-31', 3), ['2025-12-31', '2026-01-31', '2026-02-28']);
  t.deepEqual(dates('quarterly', '2023-11-30', 3), ['2023-11-30', '2024-02-29', '2024-05-30']);
  t.deepEqual(dates('weekly', '2024-12-30', 3), ['2024-12-30', '2025-01-06', '2025-01-13']);
  t.deepEqual(dates('weekly', '2024-02-22', 2), ['2024-02-22', '2024-02-29']);
});

test('impossible input is refused', (t) => {
  const base: ScheduleInput = {
    method: 'constant_annuity',
    principal: new Money(1000),
    annualRate: new Money('0.1'),
    termPeriods: 12,
    frequency: 'monthly',
    firstDueDate: '2026-01-15',
    principalGracePeriods: 0,
  };
  const refused: [Partial<ScheduleInput>, RegExp][] = [
    [{ principal: new Money(0) }, /principal/],
    [{ principal: new Money('100.5') }, /principal/],
    [{ principal: new Money(-5) }, /principal/],
    [{ annualRate: new Money('-0.01') }, /annualRate/],
    [{ annualRate: new Money(Number.NaN) }, /annualRate/],
    [{ termPeriods: 0 }, /termPeriods/],
    [{ termPeriods: 1.5 }, /termPeriods/],
    [{ principalGracePeriods: 12 }, /principalGracePeriods/],
    [{ principalGracePeriods: -1 }, /principalGracePeriods/],
    [{ firstDueDate: '2026-02-30' }, /calendar date/],
    [{ firstDueDate: '2026-1-15' }, /calendar date/],
    [{ frequency: 'daily' as Frequency }, /frequency/],
    [{ method: 'balloon' as ScheduleMethod }, /method/],
  ];
  for (const [override, message] of refused)
    t.throws(() => buildSchedule({ ...base, ...override }), { message }, JSON.stringify(override));
});

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Any calendar day, month ends (29-31) included, so the clamping is exercised. */
function randomDate(integer: (low: number, high: number) => number): string {
  const [year, month] = [integer(2000, 2040), integer(1, 12)];
  const day = Math.min(integer(1, 31), new Date(Date.UTC(year, month, 0)).getUTCDate());
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

test('properties over 400 pseudo-random loans', (t) => {
  const next = prng(20260115);
  const integer = (low: number, high: number): number => low + Math.floor(next() * (high - low + 1));
  const frequencies: Frequency[] = ['monthly', 'quarterly', 'weekly'];
  const perYear: Record<Frequency, number> = { monthly: 12, quarterly: 4, weekly: 52 };
  for (let run = 0; run < 400; run += 1) {
    // Principals from 1 F (the degenerate tiny loans) to 10^10 F; rates 0 to 60 % with 4 decimals.
    const principal = new Money(integer(1, 10 ** integer(0, 10)));
    const annualRate = new Money(integer(0, 6000)).div(10000);
    const termPeriods = integer(1, 240);
    const input: ScheduleInput = {
      method: next() < 0.5 ? 'constant_annuity' : 'constant_principal',
      principal,
      annualRate,
      termPeriods,
      frequency: frequencies[integer(0, 2)]!,
      firstDueDate: randomDate(integer),
      principalGracePeriods: next() < 0.5 ? 0 : integer(0, termPeriods - 1),
    };
    const label = `run ${run}: ${JSON.stringify(input)}`;
    const { installments } = buildSchedule(input);
    const periodRate = annualRate.div(perYear[input.frequency]);
    t.is(installments.length, termPeriods, label);
    t.true(sum(installments, (i) => i.principal).eq(principal), `${label}: principal column sums to the principal`);
    let before = principal;
    installments.forEach((installment, index) => {
      t.is(installment.number, index + 1);
      t.true(
        installment.principal.gte(0) && installment.outstandingAfter.gte(0),
        `${label}: no negative amount at ${index + 1}`,
      );
      t.true(installment.interest.eq(round(periodRate.mul(before))), `${label}: interest at ${index + 1}`);
      t.true(installment.total.eq(installment.principal.plus(installment.interest)), label);
      t.true(installment.outstandingAfter.eq(before.minus(installment.principal)), label);
      if (index < input.principalGracePeriods) t.true(installment.principal.isZero(), `${label}: grace`);
      for (const amount of [installment.principal, installment.interest])
        t.true(amount.isInteger(), `${label}: whole francs`);
      if (index > 0) t.true(installment.dueDate > installments[index - 1]!.dueDate, `${label}: dates increase`);
      before = installment.outstandingAfter;
    });
    t.true(before.isZero(), `${label}: ends at zero`);
  }
});
