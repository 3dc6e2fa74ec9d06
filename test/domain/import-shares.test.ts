import test from 'ava';
import { branchUserProblems } from '../../domain/imports/branch-user-rules';
import { shareProblems, subscriptionBalances } from '../../domain/imports/share-rules';
import type { RoleAccounts } from '../../domain/events/rules';
import { Money } from '../../domain/money';
import type { ShareTypeTerms } from '../../domain/shares/share-type';
import fixture from '../../fixtures/accounting-rules.json';

/** The go-live import's rules of shares and branches-users rows (docs/domain.md §15.3), pure. */

const defaults = fixture.role_accounts as unknown as RoleAccounts;
const terms = (partialPaymentAllowed: boolean): ShareTypeTerms => ({
  code: '001',
  nominalValue: new Money(10000),
  minShares: 1,
  maxShares: 100,
  seniorityYears: 5,
  partialPaymentAllowed,
  minimumInitialPaymentRate: new Money('0.25'),
  paymentPeriodMonths: 36,
});
const rule = (kind: string) => ({ legs: fixture.rules.find((one) => one.kind === kind)!.legs as never, active: true });

test('a shares row: at least one share, paid within the nominal value, unpaid only when the type allows it', (t) => {
  t.deepEqual(shareProblems({ shares: '3', amount_paid: '30 000' }, terms(false)), []);
  t.deepEqual(
    shareProblems({ shares: '3', amount_paid: '7500' }, terms(true)),
    [],
    'a quarter paid is history, not refused',
  );
  t.deepEqual(
    shareProblems({ shares: '0', amount_paid: '0' }, terms(true)).map((problem) => problem.problem),
    ['at least one share'],
  );
  t.deepEqual(
    shareProblems({ shares: '3', amount_paid: '30001' }, terms(true)).map((problem) => problem.problem),
    ["above the 3 shares' value, 30000 XAF (10000 XAF each)"],
  );
  t.deepEqual(
    shareProblems({ shares: '3', amount_paid: '20000' }, terms(false)).map((problem) => problem.problem),
    ['share type 001 is paid in full at subscription: 10000 XAF left unpaid'],
  );
  t.deepEqual(
    shareProblems({ shares: '3', amount_paid: '20000' }, undefined),
    [],
    'an unknown type is reported on its own column',
  );
});

test(
  'what subscriptions leave in the books follows the rules: the default accounts, an inactive rule posting ' +
    'nothing, the cash side left out',
  (t) => {
    const show = (balances: Map<string, Money>) =>
      [...balances].map(([code, balance]) => `${code} ${balance.toFixed(0)}`).sort();
    const rules = { subscription: rule('share_subscription'), payment: rule('share_payment') };
    // 100 000 subscribed, 25 000 paid: 4411 owes 75 000, 10010 the unpaid 75 000, 10000 the paid 25 000.
    t.deepEqual(show(subscriptionBalances(rules, new Money(100000), new Money(25000), defaults)), [
      '10000 -25000',
      '10010 -75000',
      '4411 75000',
    ]);
    t.deepEqual(
      show(
        subscriptionBalances(
          { ...rules, payment: { ...rules.payment, active: false } },
          new Money(100000),
          new Money(25000),
          defaults,
        ),
      ),
      ['10010 -100000', '4411 100000'],
    );
    const fixed = { legs: [{ debit: { account: '4412' }, credit: { account: '10011' } }] as never, active: true };
    t.deepEqual(
      show(subscriptionBalances({ ...rules, subscription: fixed }, new Money(100), new Money(100), defaults)),
      ['10000 -100', '10010 100', '10011 -100', '4411 -100', '4412 100'],
    );
  },
);

test('a branches-users row: a user with a valid name, a full name and a role, or none of them', (t) => {
  t.deepEqual(branchUserProblems({ branch_code: 'AG01', branch_name: 'A', username: '', full_name: '', role: '' }), []);
  t.deepEqual(
    branchUserProblems({
      branch_code: 'AG01',
      branch_name: 'A',
      username: 'M.Kamga',
      full_name: 'Marie Kamga',
      role: 'cashier',
    }),
    [],
  );
  t.deepEqual(
    branchUserProblems({
      branch_code: 'A'.repeat(21),
      branch_name: 'A',
      username: 'mk',
      full_name: '',
      role: 'cashier',
    }).map((problem) => `${problem.column}: ${problem.problem}`),
    [
      'branch_code: longer than 20 characters',
      'username: not a username: 3 to 150 letters, digits, dots, dashes or underscores',
      'full_name: required with a username',
    ],
  );
  t.deepEqual(
    branchUserProblems({ branch_code: 'AG01', branch_name: 'A', username: '', full_name: 'X', role: 'cashier' }).map(
      (problem) => problem.column,
    ),
    ['full_name', 'role'],
  );
});
