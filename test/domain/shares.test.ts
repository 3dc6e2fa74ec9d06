import test from 'ava';
import { Money } from '../../domain/money';
import { shareTypeProblems, votesOf, type ShareTypeTerms } from '../../domain/shares/share-type';
import {
  minimumInitialPayment,
  paymentDueOn,
  paymentRefusal,
  subscriptionRefusal,
} from '../../domain/shares/subscription';
import {
  cancellationSplit,
  plannedEffectiveDate,
  refundDueOn,
  refundOffsets,
  withdrawableFrom,
  withdrawalRefusal,
  type WithdrawalRequest,
} from '../../domain/shares/withdrawal';

const founder: ShareTypeTerms = {
  code: '001',
  nominalValue: new Money('10001'),
  minShares: 1,
  maxShares: 10,
  seniorityYears: 5,
  partialPaymentAllowed: true,
  minimumInitialPaymentRate: new Money('0.25'),
  paymentPeriodMonths: 36,
};
const ordinary: ShareTypeTerms = { ...founder, code: '002', seniorityYears: 0, partialPaymentAllowed: false };

test('a sound type has no problem; each broken legal bound names its field', (t) => {
  t.deepEqual(shareTypeProblems(founder), []);
  const fields = (terms: Partial<ShareTypeTerms>) =>
    shareTypeProblems({ ...founder, ...terms }).map((problem) => problem.field);
  t.deepEqual(fields({ seniorityYears: 4 }), ['seniority_years'], 'founder shares: 5 years at least (the seed)');
  t.deepEqual(shareTypeProblems({ ...ordinary, seniorityYears: 0 }), [], 'other types may be withdrawn at once');
  t.deepEqual(
    fields({ minimumInitialPaymentRate: new Money('0.2499') }),
    ['minimum_initial_payment_rate'],
    'AUSCOOP: a quarter at least',
  );
  t.deepEqual(fields({ minimumInitialPaymentRate: new Money('1.01') }), ['minimum_initial_payment_rate']);
  t.deepEqual(fields({ paymentPeriodMonths: 37 }), ['payment_period_months'], 'AUSCOOP: the rest within three years');
  t.deepEqual(fields({ minShares: 11 }), ['min_shares']);
});

test('the first payment: a quarter rounded up to the franc when partial payment is allowed, else everything', (t) => {
  t.is(minimumInitialPayment(new Money('30003'), founder).toFixed(0), '7501', '30 003 × 0.25 = 7 500.75, rounded up');
  t.is(minimumInitialPayment(new Money('30003'), ordinary).toFixed(0), '30003');
  t.is(paymentDueOn('2026-11-30', founder), '2029-11-30');
  t.is(
    paymentDueOn('2026-01-31', { ...founder, paymentPeriodMonths: 1 }),
    '2026-02-28',
    'a shorter month clamps the day',
  );
  t.is(paymentDueOn('2026-11-30', ordinary), '2026-11-30', 'paid in full: due at once');
});

test(
  'subscriptions: founder shares for founders, the holding ' + 'within the bounds, the first payment within its range',
  (t) => {
    const refusal = (request: Partial<Parameters<typeof subscriptionRefusal>[0]>) =>
      subscriptionRefusal({
        terms: founder,
        heldShares: 0,
        shares: 2,
        initialPayment: new Money('20002'),
        founder: true,
        ...request,
      });
    t.is(refusal({}), null);
    t.like(refusal({ founder: false }), { kind: 'conflict', code: 'not_a_founder' });
    t.is(
      refusal({ terms: ordinary, founder: false, initialPayment: new Money('20002') }),
      null,
      'ordinary shares are for every member',
    );
    t.like(
      refusal({ heldShares: 9 }),
      { kind: 'conflict', code: 'above_maximum_shares', field: 'shares' },
      '9 held + 2 > 10',
    );
    t.is(refusal({ heldShares: 8 }), null, '8 held + 2 = 10: the bound itself is allowed');
    t.like(refusal({ terms: { ...founder, minShares: 3 }, shares: 2 }), {
      kind: 'unprocessable',
      code: 'below_minimum_shares',
    });
    t.is(
      refusal({ terms: { ...founder, minShares: 3 }, heldShares: 1, shares: 2 }),
      null,
      'the minimum counts what is held already',
    );
    t.like(
      refusal({ initialPayment: new Money('5000') }),
      { code: 'initial_payment_out_of_bounds', field: 'initial_payment' },
      'below a quarter of 20 002',
    );
    t.is(refusal({ initialPayment: new Money('5001') }), null, 'a quarter of 20 002 rounded up');
    t.like(
      refusal({ initialPayment: new Money('20003') }),
      { code: 'initial_payment_out_of_bounds' },
      'more than the amount',
    );
    t.like(
      refusal({ terms: ordinary, initialPayment: new Money('20001') }),
      { code: 'initial_payment_out_of_bounds' },
      'ordinary shares are paid in full',
    );
    t.like(
      refusal({ terms: { ...founder, nominalValue: new Money('999999999999999'), maxShares: 1000 }, shares: 10 }),
      {
        code: 'amount_out_of_bounds',
        field: 'shares',
      },
    );
  },
);

test('payments: never above what is unpaid, nothing on a paid-up subscription', (t) => {
  t.is(paymentRefusal(new Money(100), new Money(100)), null);
  t.like(paymentRefusal(new Money(101), new Money(100)), { code: 'exceeds_unpaid', field: 'amount' });
  t.like(paymentRefusal(new Money(1), new Money(0)), { code: 'subscription_paid_up' });
});

const withdrawal = (request: Partial<WithdrawalRequest>) =>
  withdrawalRefusal({
    terms: { code: '002', minShares: 1, seniorityYears: 0, withdrawable: true },
    subscribedOn: '2021-03-01',
    businessDate: '2026-11-30',
    shares: 2,
    subscriptionHeld: 5,
    subscriptionPending: 0,
    typeHeld: 5,
    typePending: 0,
    leaving: false,
    ...request,
  });

test('withdrawals: withdrawable shares only, of what is held and not already in notice', (t) => {
  t.is(withdrawal({}), null);
  t.like(withdrawal({ terms: { code: '003', minShares: 0, seniorityYears: 0, withdrawable: false } }), {
    code: 'shares_not_withdrawable',
  });
  t.like(
    withdrawal({ shares: 4, subscriptionPending: 2 }),
    { code: 'not_enough_shares', field: 'shares' },
    '5 held, 2 in notice: 3 left',
  );
  t.is(withdrawal({ shares: 3, subscriptionPending: 2, typePending: 2, leaving: true }), null);
});

test('founder shares: refused the day before 5 years of seniority, accepted on the day', (t) => {
  const terms = { code: '001' as const, minShares: 0, seniorityYears: 5, withdrawable: true };
  t.is(withdrawableFrom('2021-03-01', 5), '2026-03-01');
  t.like(withdrawal({ terms, businessDate: '2026-02-28' }), { code: 'seniority_not_reached' });
  t.is(withdrawal({ terms, businessDate: '2026-03-01' }), null);
  t.is(withdrawableFrom('2024-02-29', 5), '2029-02-28', 'from 29 February, the last day of February');
});

test("a member who stays keeps the type's minimum; a member who leaves withdraws everything", (t) => {
  t.like(withdrawal({ shares: 5 }), { code: 'below_minimum_shares' }, '0 would remain, 1 is the minimum');
  t.is(withdrawal({ shares: 4 }), null, '1 remains');
  t.like(
    withdrawal({ shares: 3, typePending: 2 }),
    { code: 'below_minimum_shares' },
    'shares already in notice count as gone',
  );
  t.is(withdrawal({ shares: 5, leaving: true }), null);
});

test('cancelled shares: the unpaid part is cancelled first, the paid part is owed to the member', (t) => {
  const split = (shares: number, unpaid: string) => {
    const result = cancellationSplit({
      shares,
      nominalValue: new Money('10000'),
      subscriptionUnpaid: new Money(unpaid),
    });
    return [result.value, result.unpaid, result.paid].map((amount) => amount.toFixed(0));
  };
  t.deepEqual(split(3, '0'), ['30000', '0', '30000']);
  t.deepEqual(split(3, '45000'), ['30000', '30000', '0'], 'nothing paid on these shares: nothing owed');
  t.deepEqual(split(3, '12000'), ['30000', '12000', '18000']);
});

test('dates: the effective date after the notice, the refund due a year later, two when the board extends it', (t) => {
  t.is(plannedEffectiveDate('2026-11-30', 90), '2027-02-28');
  t.is(plannedEffectiveDate('2026-11-30', 0), '2026-11-30');
  t.is(refundDueOn('2027-02-28', false), '2028-02-28');
  t.is(refundDueOn('2028-02-29', false), '2029-02-28');
  t.is(refundDueOn('2027-02-28', true), '2029-02-28');
});

test('the refund pays the overdue installments of every loan first, the principal only when the member leaves', (t) => {
  const debts = [
    { loanId: 'a', overdue: new Money(3000), outstandingPrincipal: new Money(50000) },
    { loanId: 'b', overdue: new Money(2000), outstandingPrincipal: new Money(10000) },
  ];
  const shown = (result: ReturnType<typeof refundOffsets>) => ({
    byLoan: Object.fromEntries([...result.byLoan].map(([id, amount]) => [id, amount.toFixed(0)])),
    offset: result.offset.toFixed(0),
    net: result.net.toFixed(0),
  });
  t.deepEqual(shown(refundOffsets(new Money(20000), debts, false)), {
    byLoan: { a: '3000', b: '2000' },
    offset: '5000',
    net: '15000',
  });
  t.deepEqual(
    shown(refundOffsets(new Money(4000), debts, false)),
    { byLoan: { a: '3000', b: '1000' }, offset: '4000', net: '0' },
    'the oldest loan first',
  );
  t.deepEqual(
    shown(refundOffsets(new Money(20000), debts, true)),
    { byLoan: { a: '18000', b: '2000' }, offset: '20000', net: '0' },
    "b's arrears before a's principal",
  );
  t.deepEqual(shown(refundOffsets(new Money(100000), debts, true)), {
    byLoan: { a: '53000', b: '12000' },
    offset: '65000',
    net: '35000',
  });
  t.deepEqual(shown(refundOffsets(new Money(7000), [], true)), { byLoan: {}, offset: '0', net: '7000' });
});

test('one member, one vote: voting shares and payments up to date', (t) => {
  t.is(votesOf({ holdsVotingShares: true, paymentOverdue: false }), 1);
  t.is(votesOf({ holdsVotingShares: true, paymentOverdue: true }), 0);
  t.is(votesOf({ holdsVotingShares: false, paymentOverdue: false }), 0);
});
