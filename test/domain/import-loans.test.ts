import test from 'ava';
import {
  borrowerProblems,
  classificationProblems,
  daysPastDueOf,
  installmentProblems,
  installmentsOf,
  loanDetailParts,
  loanProblems,
  scheduleProblems,
} from '../../domain/imports/loan-rules';

/** The pure rules of the loans in progress of an import (docs/domain.md §15.2); every figure written by hand. */

const cutOver = '2026-10-31';
const product = { minTermPeriods: 1, maxTermPeriods: 24, realEstate: false };
const loan = (cells: Record<string, string> = {}): Record<string, string> => ({
  loan_number: 'P-1',
  member_number: 'M1',
  product_code: 'CRT',
  original_amount: '300 000',
  annual_rate: '0.18',
  term_periods: '3',
  disbursement_date: '2026-06-30',
  principal_paid: '100 000',
  interest_paid: '4 500',
  classification: 'performing',
  ...cells,
});
const installment = (
  due_date: string,
  principal: string,
  interest: string,
  principal_paid = '0',
  interest_paid = '0',
) => ({ loan_number: 'P-1', due_date, principal, interest, principal_paid, interest_paid });
const schedule = [
  installment('2026-07-31', '100000', '4500', '100000', '4500'),
  installment('2026-08-31', '100000', '3000'),
  installment('2026-09-30', '100000', '1500'),
];

test(
  'a loan row alone: payments over the amount, a term outside the product, a doubtful date, a provision over ' +
    'the outstanding principal, a guarantor',
  (t) => {
    t.deepEqual(loanProblems(loan(), cutOver, product), []);
    t.deepEqual(
      loanProblems(loan({ principal_paid: '300 001' }), cutOver, product).map((problem) => problem.problem),
      ["payments exceed the loan's amount (300 000)"],
    );
    t.deepEqual(
      loanProblems(loan({ principal_paid: '300 000' }), cutOver, product).map((problem) => problem.problem),
      ['the whole amount: a loan repaid is not in progress'],
    );
    t.deepEqual(
      loanProblems(loan({ term_periods: '36', disbursement_date: '2026-11-01' }), cutOver, product).map(
        (problem) => problem.column,
      ),
      ['disbursement_date', 'term_periods'],
    );
    t.deepEqual(loanProblems(loan({ term_periods: '36' }), cutOver, undefined), [], 'no product: no bounds to judge');
    t.deepEqual(loanProblems(loan({ classification: 'doubtful' }), cutOver, product), [
      { column: 'doubtful_since', value: '', problem: 'required for a doubtful loan' },
    ]);
    t.deepEqual(
      loanProblems(loan({ classification: 'litigious', doubtful_since: '2026-11-02' }), cutOver, product).map(
        (problem) => problem.problem,
      ),
      ['after the cut-over date (2026-10-31)'],
    );
    t.deepEqual(
      loanProblems(loan({ doubtful_since: '2026-09-01' }), cutOver, product).map((problem) => problem.column),
      ['doubtful_since'],
    );
    // Outstanding 300 000 − 100 000 = 200 000: a provision of 200 000 is the most.
    t.deepEqual(loanProblems(loan({ provision: '200 000' }), cutOver, product), []);
    t.deepEqual(
      loanProblems(loan({ provision: '200 001' }), cutOver, product).map((problem) => problem.problem),
      ['over the outstanding principal (200000)'],
    );
    t.deepEqual(
      loanProblems(loan({ guarantor_member_number: 'M2' }), cutOver, product).map((problem) => problem.problem),
      ['required with a guarantor'],
    );
    t.deepEqual(
      loanProblems(loan({ guarantor_member_number: 'M1', guarantee_value: '1' }), cutOver, product).map(
        (problem) => problem.column,
      ),
      ['guarantor_member_number'],
    );
    t.deepEqual(
      loanProblems(loan({ guarantee_held_account: 'A-1' }), cutOver, product).map((problem) => problem.problem),
      ['a held account without a guarantor'],
    );
  },
);

test('accrued interest only on a performing loan: a loan not performing may carry none, or 0', (t) => {
  t.deepEqual(loanProblems(loan({ accrued_interest: '1 500' }), cutOver, product), []);
  t.deepEqual(loanProblems(loan({ classification: 'overdue', accrued_interest: '0' }), cutOver, product), []);
  t.deepEqual(loanProblems(loan({ classification: 'overdue', accrued_interest: '1 500' }), cutOver, product), [
    {
      column: 'accrued_interest',
      value: '1 500',
      problem: 'only a performing loan accrues interest (this one is overdue)',
    },
  ]);
  t.deepEqual(
    loanProblems(
      loan({ classification: 'litigious', doubtful_since: '2026-09-01', accrued_interest: '1' }),
      cutOver,
      product,
    ).map((problem) => problem.column),
    ['accrued_interest'],
  );
});

test(
  "a schedule: its principal sums to the amount, its payments to the loan's, one installment a date, after the " +
    'disbursement',
  (t) => {
    const installments = installmentsOf(schedule)!;
    t.deepEqual(scheduleProblems(loan(), installments), []);
    t.deepEqual(
      scheduleProblems(loan({ original_amount: '350 000', interest_paid: '4 000' }), installments).map(
        (problem) => `${problem.column}: ${problem.problem}`,
      ),
      [
        "original_amount: the schedule's principal sums to 300000",
        "interest_paid: the schedule's interest paid sums to 4500",
      ],
    );
    t.deepEqual(
      scheduleProblems(
        loan(),
        installmentsOf([...schedule.slice(0, 2), installment('2026-08-31', '100000', '0')])!,
      ).map((problem) => problem.problem),
      ['two installments fall due on 2026-08-31'],
    );
    t.deepEqual(
      scheduleProblems(loan({ term_periods: '4', disbursement_date: '2026-07-31' }), installments).map(
        (problem) => problem.column,
      ),
      ['term_periods', 'disbursement_date'],
    );
    t.deepEqual(
      scheduleProblems(loan(), []).map((problem) => problem.problem),
      ['no installment in the loan-installments file'],
    );
    t.is(installmentsOf([installment('31/13/2026', '1', '1')]), null);
    t.deepEqual(installmentProblems(installment('2026-07-31', '100000', '4500', '100001', '4500')), [
      { column: 'principal_paid', value: '100001', problem: 'over the principal due (100000)' },
    ]);
  },
);

test('days past due from the oldest installment due before the cut-over and not wholly paid', (t) => {
  const installments = installmentsOf(schedule)!;
  // 31 August unpaid: September's 30 days and October's 31.
  t.is(daysPastDueOf(installments, cutOver), 61);
  t.is(daysPastDueOf(installments, '2026-08-31'), 0, 'due on the cut-over date: not yet late');
  t.is(
    daysPastDueOf(installmentsOf([installment('2026-09-30', '100000', '1500', '100000', '1499')])!, cutOver),
    31,
    'interest short by one franc',
  );
});

test(
  "the class R-2017/07 gives is compared with the file's: a difference reported, contagion across a borrower's " +
    'loans',
  (t) => {
    t.deepEqual(
      classificationProblems([{ rowNumber: 2, classCode: 'overdue', daysPastDue: 45, realEstate: false }]),
      [],
    );
    t.deepEqual(
      classificationProblems([{ rowNumber: 2, classCode: 'overdue', daysPastDue: 46, realEstate: false }]).map(
        (problem) => problem.problem,
      ),
      ["COBAC R-2017/07 gives doubtful: 46 days past due, the borrower's oldest arrears 46 days"],
    );
    t.deepEqual(
      classificationProblems([{ rowNumber: 2, classCode: 'overdue', daysPastDue: 90, realEstate: true }]),
      [],
      'a real-estate loan is overdue up to 90 days',
    );
    t.deepEqual(
      classificationProblems([{ rowNumber: 2, classCode: 'litigious', daysPastDue: 0, realEstate: false }]),
      [],
      'litigious: doubtful whatever its arrears',
    );
    // The borrower's other loan is 100 days late: the one up to date is doubtful too.
    t.deepEqual(
      classificationProblems([
        { rowNumber: 2, classCode: 'doubtful', daysPastDue: 100, realEstate: false },
        { rowNumber: 3, classCode: 'performing', daysPastDue: 0, realEstate: false },
      ]).map((problem) => `${problem.rowNumber} ${problem.problem}`),
      ["3 COBAC R-2017/07 gives doubtful: 0 days past due, the borrower's oldest arrears 100 days"],
    );
    // A borrower with a wrong schedule is not classified: only the schedule is reported.
    const staged = (rowNumber: number, cells: Record<string, string>) => ({
      rowNumber,
      data: loan(cells),
      installments: installmentsOf(schedule),
      refused: false,
      realEstate: false,
    });
    t.deepEqual(
      borrowerProblems(
        [
          staged(2, { original_amount: '400 000' }),
          staged(3, { classification: 'doubtful', doubtful_since: '2026-01-01' }),
        ],
        cutOver,
      ).map((problem) => problem.rowNumber),
      [2],
    );
    t.deepEqual(
      borrowerProblems(
        [staged(2, {}), { ...staged(3, { classification: 'doubtful', doubtful_since: '2026-01-01' }), refused: true }],
        cutOver,
      ),
      [],
    );
  },
);

test(
  "a loan's detail: its principal on its class's account, its provision a credit on the account of its cover " +
    'and years doubtful',
  (t) => {
    const accounts = { performing: '3221', overdue: '3312' };
    const parts = (cells: Record<string, string>) =>
      loanDetailParts(loan(cells), accounts, '3291', cutOver).map(
        (part) => `${part.accountCode} ${part.balance.toFixed(0)}`,
      );
    t.deepEqual(parts({}), ['3221 200000']);
    t.deepEqual(
      parts({ accrued_interest: '1 500' }),
      ['3221 200000', '3291 1500'],
      "accrued interest a debit on the accrual's account",
    );
    t.deepEqual(parts({ classification: 'overdue', provision: '10 000' }), ['3312 200000', '3931 -10000']);
    t.deepEqual(
      parts({ classification: 'litigious', doubtful_since: '2025-10-31', provision: '200 000' }),
      ['3352 200000', '3932 -200000'],
      'a full year doubtful: 3932',
    );
  },
);
