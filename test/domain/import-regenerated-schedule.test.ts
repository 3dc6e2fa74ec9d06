import test from 'ava';
import { daysPastDueOf, installmentsOf, scheduleProblems } from '../../domain/imports/loan-rules';
import { loanSchedule, regeneratedInstallments } from '../../domain/imports/regenerated-schedule';

/** A loan the loan-installments file leaves out: its schedule regenerated from its terms (docs/domain.md §15.2). */

const loan = (cells: Record<string, string> = {}): Record<string, string> => ({
  loan_number: 'P-9',
  member_number: 'M1',
  product_code: 'CRT',
  original_amount: '120 000',
  annual_rate: '0.12',
  term_periods: '12',
  disbursement_date: '2026-01-15',
  principal_paid: '14 462',
  interest_paid: '1 700',
  classification: 'overdue',
  ...cells,
});
const annuity = { method: 'constant_annuity', frequency: 'monthly' } as const;

test(
  'a constant annuity regenerated: twelve monthly installments from one month after the disbursement, the ' +
    'level annuity, the principal whole',
  (t) => {
    const installments = regeneratedInstallments(loan(), annuity)!;
    t.is(installments.length, 12);
    t.deepEqual(
      [installments[0]!.dueDate, installments[1]!.dueDate, installments[11]!.dueDate],
      ['2026-02-15', '2026-03-15', '2027-01-15'],
    );
    // A = P·i / (1 − (1 + i)^−n) at i = 12 % / 12, rounded once to the franc; the first interest is P·i.
    const level = Math.round((120_000 * 0.01) / (1 - 1.01 ** -12));
    t.is(installments[0]!.interest.toNumber(), 1200);
    t.is(installments[0]!.principal.toNumber(), level - 1200);
    t.is(
      installments.reduce((sum, installment) => sum + installment.principal.toNumber(), 0),
      120_000,
    );
  },
);

test(
  'what the row says was paid is spread oldest first: the first installment paid, the second in part, the rest ' +
    'due',
  (t) => {
    const installments = regeneratedInstallments(loan(), annuity)!;
    const firstPrincipal = installments[0]!.principal.toNumber();
    t.is(installments[0]!.principalPaid.toNumber(), firstPrincipal);
    t.is(installments[1]!.principalPaid.toNumber(), 14_462 - firstPrincipal);
    t.is(installments[0]!.interestPaid.toNumber(), 1200);
    t.is(installments[1]!.interestPaid.toNumber(), 500);
    t.true(
      installments
        .slice(2)
        .every((installment) => installment.principalPaid.isZero() && installment.interestPaid.isZero()),
    );
    t.deepEqual(scheduleProblems(loan(), installments), [], 'the schedule ties to the row: its amount and payments');
    // Past due from the second installment, 15 March, the oldest not wholly paid.
    t.is(daysPastDueOf(installments, '2026-10-31'), (Date.UTC(2026, 9, 31) - Date.UTC(2026, 2, 15)) / 86_400_000);
  },
);

test('constant principal, quarterly: equal principal parts a quarter apart, interest on what is left', (t) => {
  const installments = regeneratedInstallments(loan({ term_periods: '4', principal_paid: '0', interest_paid: '0' }), {
    method: 'constant_principal',
    frequency: 'quarterly',
  })!;
  t.deepEqual(
    installments.map((installment) => installment.dueDate),
    ['2026-04-15', '2026-07-15', '2026-10-15', '2027-01-15'],
  );
  t.deepEqual(
    installments.map((installment) => installment.principal.toNumber()),
    [30_000, 30_000, 30_000, 30_000],
  );
  // 3 % a quarter on 120 000, 90 000, 60 000, 30 000.
  t.deepEqual(
    installments.map((installment) => installment.interest.toNumber()),
    [3600, 2700, 1800, 900],
  );
});

test(
  "interest paid beyond the schedule's is reported on interest_paid; unreadable or absurd terms regenerate " +
    'nothing',
  (t) => {
    const overpaid = loan({ interest_paid: '50 000' });
    t.deepEqual(
      scheduleProblems(overpaid, regeneratedInstallments(overpaid, annuity)!).map((problem) => problem.column),
      ['interest_paid'],
    );
    t.is(regeneratedInstallments(loan({ term_periods: 'twelve' }), annuity), null);
    t.is(regeneratedInstallments(loan({ term_periods: '1000000' }), annuity), null);
    t.is(regeneratedInstallments(loan({ annual_rate: '12%' }), annuity), null);
  },
);

test(
  "the file's rows win over regeneration; without rows nor product, the schedule check reports the missing " +
    'installments',
  (t) => {
    const rows = [
      {
        loan_number: 'P-9',
        due_date: '2026-02-15',
        principal: '120000',
        interest: '1200',
        principal_paid: '0',
        interest_paid: '0',
      },
    ];
    t.deepEqual(loanSchedule(loan(), rows, annuity), installmentsOf(rows));
    t.is(loanSchedule(loan(), [], annuity)!.length, 12);
    t.deepEqual(
      scheduleProblems(loan(), loanSchedule(loan(), [], undefined)!).map((problem) => problem.problem),
      ['no installment in the loan-installments file'],
    );
  },
);
