import test from 'ava';
import type { AppError } from '../../domain/errors';
import {
  assertWithinProduct,
  ctaMaxMonths,
  loanFees,
  loanProductAccounts,
  penaltyFor,
  productTermProblems,
  termCategoryOf,
} from '../../domain/loans/loan-product';
import {
  accruePenalties,
  daysPastDue,
  isSettled,
  loanPosition,
  offsetDues,
  payableDues,
  waiveUnearnedInterest,
  type InstallmentState,
} from '../../domain/loans/position';
import { Money } from '../../domain/money';

const installment = (
  number: number,
  dueDate: string,
  principal: string,
  interest: string,
  paid: { principal?: string; interest?: string } = {},
): InstallmentState => ({
  number,
  dueDate,
  principalDue: new Money(principal),
  interestDue: new Money(interest),
  penaltyDue: new Money(0),
  principalPaid: new Money(paid.principal ?? 0),
  interestPaid: new Money(paid.interest ?? 0),
  penaltyPaid: new Money(0),
  penaltyThrough: dueDate,
});

const schedule = [
  installment(1, '2026-01-15', '90000', '15000', { principal: '90000', interest: '15000' }),
  installment(2, '2026-02-15', '91000', '14000', { interest: '14000', principal: '1000' }),
  installment(3, '2026-03-15', '92000', '13000'),
  installment(4, '2026-04-15', '93000', '12000'),
];

test('days past due: the age of the oldest unpaid installment; 0 on its due date and when all is paid', (t) => {
  t.is(daysPastDue(schedule, '2026-02-15'), 0, 'due today is not late');
  t.is(daysPastDue(schedule, '2026-02-16'), 1);
  t.is(daysPastDue(schedule, '2026-03-20'), 33, '15 Feb to 20 Mar');
  t.is(daysPastDue(schedule.slice(0, 1), '2026-12-31'), 0);
});

test(
  'penalties: annual rate, actual/365, on what is unpaid, ' + 'from the last accrual; accruing twice adds nothing',
  (t) => {
    // Installment 2 has 90 000 unpaid since 15 Feb.
    // To 17 Mar (30 days) at 12 %: 90 000 × 0.12 × 30 / 365 = 887.67 → 888.
    t.is(penaltyFor(new Money(90000), new Money('0.12'), '2026-02-15', '2026-03-17').toFixed(0), '888');
    const accrued = accruePenalties(schedule, '2026-03-17', new Money('0.12'));
    // Installment 3: 105 000 for 2 days → 69.04 → 69.
    t.deepEqual(
      accrued.map((row) => row.penaltyDue.toFixed(0)),
      ['0', '888', '69', '0'],
    );
    t.deepEqual(
      accruePenalties(accrued, '2026-03-17', new Money('0.12')).map((row) => row.penaltyDue.toFixed(0)),
      ['0', '888', '69', '0'],
    );
    t.is(accrued[3], schedule[3], 'an installment not yet due is untouched');
  },
);

test('payable: the installments due and the next one, never beyond; the position sums them', (t) => {
  t.deepEqual(
    payableDues(schedule, '2026-02-20').map((due) => due.number),
    [2, 3],
  );
  t.deepEqual(
    payableDues(schedule, '2026-01-01').map((due) => due.number),
    [2],
    'before any due date: the next unpaid installment',
  );
  const position = loanPosition(schedule, '2026-03-17', new Money('0.12'));
  t.is(position.outstandingPrincipal.toFixed(0), String(90000 + 92000 + 93000));
  t.is(position.overduePrincipal.toFixed(0), String(90000 + 92000));
  t.is(position.overdueInterest.toFixed(0), '13000');
  t.is(position.penalties.toFixed(0), '957');
  t.is(position.daysPastDue, 30);
  t.is(position.payable.toFixed(0), String(90000 + 888 + 105000 + 69 + 105000));
});

test('term category: CTA up to 24 months in any frequency; a product must agree with all its terms', (t) => {
  t.is(ctaMaxMonths, 24);
  t.is(termCategoryOf(24, 'monthly'), 'cta');
  t.is(termCategoryOf(25, 'monthly'), 'mlt');
  t.is(termCategoryOf(8, 'quarterly'), 'cta');
  t.is(termCategoryOf(9, 'quarterly'), 'mlt');
  t.is(termCategoryOf(104, 'weekly'), 'cta');
  t.is(termCategoryOf(105, 'weekly'), 'mlt');
  const base = { frequency: 'monthly' as const, minAmount: new Money(1), maxAmount: new Money(10), maxGracePeriods: 0 };
  t.deepEqual(productTermProblems({ ...base, termCategory: 'cta', minTermPeriods: 1, maxTermPeriods: 24 }), []);
  t.deepEqual(
    productTermProblems({ ...base, termCategory: 'cta', minTermPeriods: 1, maxTermPeriods: 36 }).map(
      (problem) => problem.field,
    ),
    ['max_term_periods'],
  );
  t.deepEqual(
    productTermProblems({ ...base, termCategory: 'mlt', minTermPeriods: 12, maxTermPeriods: 36 }).map(
      (problem) => problem.field,
    ),
    ['min_term_periods'],
  );
  t.deepEqual(
    productTermProblems({
      ...base,
      termCategory: 'mlt',
      minTermPeriods: 25,
      maxTermPeriods: 360,
      maxGracePeriods: 360,
    }).map((problem) => problem.field),
    ['max_grace_periods'],
  );
});

test(
  "a product's accounts: those it names, else its term category's (3221/713/7153/719/3291 short term, " +
    '3130/712/7152/719/319 medium and long)',
  (t) => {
    t.deepEqual(loanProductAccounts('cta', {}), {
      portfolioAccountCode: '3221',
      interestIncomeAccountCode: '713',
      feeIncomeAccountCode: '7153',
      penaltyIncomeAccountCode: '719',
      accruedInterestAccountCode: '3291',
    });
    t.deepEqual(loanProductAccounts('mlt', { penaltyIncomeAccountCode: '7181' }), {
      portfolioAccountCode: '3130',
      interestIncomeAccountCode: '712',
      feeIncomeAccountCode: '7152',
      penaltyIncomeAccountCode: '7181',
      accruedInterestAccountCode: '319',
    });
  },
);

test('fees: rate of the principal plus the fixed part, half-up to the franc', (t) => {
  t.is(
    loanFees(new Money(1234567), new Money('0.015'), new Money(2500)).toFixed(0),
    String(18519 + 2500),
    '18 518.505 → 18 519',
  );
  t.is(loanFees(new Money(100000), new Money(0), new Money(0)).toFixed(0), '0');
});

test(
  'requested terms within a product: bounds of amount, ' + 'term and grace, and an amount above the fees withheld',
  (t) => {
    const product = {
      code: 'P1',
      method: 'constant_annuity' as const,
      frequency: 'monthly' as const,
      annualRate: '0.18',
      minAmount: '10',
      maxAmount: '1000000',
      minTermPeriods: 1,
      maxTermPeriods: 12,
      maxGracePeriods: 2,
      feeRate: '0.01',
      feeFixed: '500',
    };
    const refusal = (amount: string, termPeriods = 6, gracePeriods = 0) => {
      try {
        assertWithinProduct(product, { amount: new Money(amount), termPeriods, gracePeriods });
        return undefined;
      } catch (error) {
        return (error as AppError).code;
      }
    };
    t.is(refusal('100000'), undefined);
    t.is(refusal('9'), 'amount_out_of_bounds');
    t.is(refusal('500'), 'amount_out_of_bounds', '500 XAF pays fees of 505: nothing would be lent');
    t.is(refusal('506'), undefined, 'fees of 505 leave 1 XAF');
    t.is(refusal('100000', 13), 'term_periods_out_of_bounds');
    t.is(refusal('100000', 2, 2), 'grace_periods_out_of_bounds', 'grace must leave an installment');
    t.is(refusal('100000', 6, 3), 'grace_periods_out_of_bounds');
  },
);

test(
  'what a share refund may take: the installments due in full; with the principal, the later ones without ' +
    'their interest',
  (t) => {
    const shown = (dues: ReturnType<typeof offsetDues>) =>
      dues.map((due) => [due.number, due.penalty.toFixed(0), due.interest.toFixed(0), due.principal.toFixed(0)]);
    t.deepEqual(
      shown(offsetDues(schedule, '2026-03-20', false)),
      [
        [2, '0', '0', '90000'],
        [3, '0', '13000', '92000'],
      ],
      'the paid first installment is left out',
    );
    t.deepEqual(shown(offsetDues(schedule, '2026-03-20', true)), [
      [2, '0', '0', '90000'],
      [3, '0', '13000', '92000'],
      [4, '0', '0', '93000'],
    ]);
    t.deepEqual(shown(offsetDues(schedule, '2026-01-20', false)), [], 'nothing due yet');
  },
);

test(
  'an installment not yet due whose principal is repaid ' + 'ahead owes no more interest; one due keeps its interest',
  (t) => {
    const waived = (installments: InstallmentState[], asOf: string) =>
      waiveUnearnedInterest(installments, asOf).map((installment) => installment.interestDue.toFixed(0));
    const prepaid = { ...schedule[3]!, principalPaid: new Money('93000') };
    t.deepEqual(waived([prepaid], '2026-03-20'), ['0']);
    t.deepEqual(
      waived([prepaid], '2026-04-15'),
      [prepaid.interestDue.toFixed(0)],
      'due on that date: its interest was earned',
    );
    const partly = { ...schedule[3]!, principalPaid: new Money('1') };
    t.deepEqual(
      waived([partly], '2026-03-20'),
      [partly.interestDue.toFixed(0)],
      'principal partly repaid: the interest stays',
    );
  },
);

test('a grace installment keeps its interest while the loan owes principal, and loses it once none is owed', (t) => {
  const grace = { ...schedule[3]!, principalDue: new Money(0), interestDue: new Money('15000') };
  const owing = { ...schedule[2]!, dueDate: '2026-05-15' };
  const [graceAfter] = waiveUnearnedInterest([grace, owing], '2026-03-20');
  t.true(
    graceAfter!.interestDue.eq('15000'),
    'principal still owed on a later installment: the grace interest is earned',
  );
  t.false(isSettled(graceAfter!));
  const repaidAhead = { ...owing, principalPaid: owing.principalDue };
  t.true(
    waiveUnearnedInterest([grace, repaidAhead], '2026-03-20')[0]!.interestDue.eq(0),
    'nothing owed any more: nothing earned',
  );
});
