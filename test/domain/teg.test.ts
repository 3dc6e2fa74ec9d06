import test from 'ava';
import { buildSchedule, type Frequency, type ScheduleMethod } from '../../domain/loans/schedule';
import { effectiveGlobalRate } from '../../domain/loans/teg';
import { Money } from '../../domain/money';

const money = (amount: string | number): Money => new Money(amount);

function totals(
  principal: string,
  annualRate: string,
  termPeriods: number,
  frequency: Frequency = 'monthly',
  method: ScheduleMethod = 'constant_annuity',
  principalGracePeriods = 0,
): Money[] {
  const { installments } = buildSchedule({
    method,
    principal: money(principal),
    annualRate: money(annualRate),
    termPeriods,
    frequency,
    firstDueDate: '2026-01-31',
    principalGracePeriods,
  });
  return installments.map((installment) => installment.total);
}

test('no fees: the TEG is the nominal rate (18 % monthly annuity, 12 % over 30 years)', (t) => {
  t.is(
    effectiveGlobalRate({
      principal: money(1000000),
      fees: money(0),
      installments: totals('1000000', '0.18', 12),
      periodsPerYear: 12,
    }),
    '18.00',
  );
  t.is(
    effectiveGlobalRate({
      principal: money(10000000),
      fees: money(0),
      installments: totals('10000000', '0.12', 360),
      periodsPerYear: 12,
    }),
    '12.00',
  );
  t.is(
    effectiveGlobalRate({
      principal: money(800000),
      fees: money(0),
      installments: totals('800000', '0.2475', 10, 'quarterly', 'constant_principal', 2),
      periodsPerYear: 4,
    }),
    '24.75',
  );
});

test('a zero-rate loan without fees costs 0.00 %', (t) => {
  t.is(
    effectiveGlobalRate({
      principal: money(100000),
      fees: money(0),
      installments: totals('100000', '0', 7),
      periodsPerYear: 12,
    }),
    '0.00',
  );
});

test('fees raise the TEG, the more so the larger they are', (t) => {
  const installments = totals('1000000', '0.18', 12);
  const teg = (fees: number): number =>
    Number(effectiveGlobalRate({ principal: money(1000000), fees: money(fees), installments, periodsPerYear: 12 }));
  t.true(teg(0) < teg(10000));
  t.true(teg(10000) < teg(20000));
  // Independently computed (Python decimal, bisection at 50 digits): 21.9100558…
  t.is(
    effectiveGlobalRate({ principal: money(1000000), fees: money(20000), installments, periodsPerYear: 12 }),
    '21.91',
  );
  // 10 000 000 F over 30 years at 12 % with 150 000 F of fees: 12.2031466…
  t.is(
    effectiveGlobalRate({
      principal: money(10000000),
      fees: money(150000),
      installments: totals('10000000', '0.12', 360),
      periodsPerYear: 12,
    }),
    '12.20',
  );
});

test('known cases with a closed form: one payment, and two equal payments (a quadratic)', (t) => {
  // One quarterly payment: 99 000 = 110 000 / (1+r) → r = 1/9, 4r = 44.44 %.
  t.is(
    effectiveGlobalRate({
      principal: money(100000),
      fees: money(1000),
      installments: [money(110000)],
      periodsPerYear: 4,
    }),
    '44.44',
  );
  // Two monthly payments T: net = T·x + T·x², x = 1/(1+r) → x = (−T + √(T² + 4·T·net)) / (2T).
  const [payment, net] = [money(55000), money(98000)];
  const x = payment
    .negated()
    .plus(payment.pow(2).plus(payment.mul(net).mul(4)).sqrt())
    .div(payment.mul(2));
  const expected = new Money(1).div(x).minus(1).mul(1200).toFixed(2, Money.ROUND_HALF_UP);
  t.is(expected, '96.71');
  t.is(
    effectiveGlobalRate({
      principal: money(100000),
      fees: money(2000),
      installments: [payment, payment],
      periodsPerYear: 12,
    }),
    expected,
  );
});

test('impossible input is refused', (t) => {
  const base = { principal: money(1000), fees: money(0), installments: [money(1100)], periodsPerYear: 12 };
  t.throws(() => effectiveGlobalRate({ ...base, principal: money(0) }), { message: /principal/ });
  t.throws(() => effectiveGlobalRate({ ...base, fees: money(1000) }), { message: /fees/ });
  t.throws(() => effectiveGlobalRate({ ...base, fees: money(-1) }), { message: /fees/ });
  t.throws(() => effectiveGlobalRate({ ...base, installments: [] }), { message: /installment/ });
  t.throws(() => effectiveGlobalRate({ ...base, installments: [money(-1), money(2000)] }), { message: /installments/ });
  t.throws(() => effectiveGlobalRate({ ...base, installments: [money(999)] }), { message: /negative/ });
  t.throws(() => effectiveGlobalRate({ ...base, periodsPerYear: 0 }), { message: /periodsPerYear/ });
});
