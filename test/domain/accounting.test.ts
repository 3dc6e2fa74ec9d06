import test from 'ava';
import { assertBalanced, linesForEvent, reversalOf, totals } from '../../domain/events/journal';
import { eventKinds } from '../../domain/events/rules';
import { Money, formatAmount, parseAmount } from '../../domain/money';
import { defaultRoleAccounts, defaultRules } from '../../activities/events/default-rules';

// What docs/domain.md §2 says each operation posts, as [debit, credit] pairs of PCEMF accounts.
const expected: Record<string, [string, string][]> = {
  deposit: [['5710', '3711']],
  withdrawal: [['3711', '5710']],
  loan_disbursement: [['3221', '3711']],
  repayment_principal: [['5710', '3221']],
  repayment_interest: [['5710', '713']],
  repayment_penalty: [['5710', '719']],
  loan_fee: [['5710', '7153']],
  interest_accrual: [['3291', '713']],
  reclassification_overdue: [['3312', '3221']],
  reclassification_doubtful: [['3352', '3221']],
  reclassification_performing: [['3221', '3352']],
  provision_charge: [['6913', '3931']],
  provision_reversal: [['3931', '7913']],
  provision_transfer: [['3931', '3932']],
  write_off: [['6921', '3352']],
  share_subscription: [['4411', '10010']],
  share_payment: [
    ['5710', '4411'],
    ['10010', '10000'],
  ],
  share_cancellation: [['10000', '4417']],
  share_unpaid_cancellation: [['10010', '4411']],
  share_refund: [['4417', '5710']],
  savings_interest: [['613', '3711']],
  withholding_tax: [['3711', '4302']],
  term_deposit_maturity: [['3711', '459']],
  term_deposit_payout: [['459', '3711']],
  savings_interest_accrual: [['613', '37800']],
  term_deposit_early_closure: [['3711', '459']],
  savings_interest_recovery: [['3711', '613']],
  withholding_tax_refund: [['4302', '3711']],
  repayment_interest_unearned: [['5710', '47220']],
  unearned_interest_recognition: [['47220', '713']],
  // Issue 29: a transfer between members, each side in its branch; 459 within a branch (45200 between two, by the
  // product accounts).
  member_transfer_debit: [['3711', '459']],
  member_transfer_credit: [['459', '3711']],
  // Issue 29: a deposit or a withdrawal at another branch's counter, the account's side and the cash side (45200 by the
  // product accounts).
  inter_branch_deposit: [['459', '3711']],
  inter_branch_deposit_cash: [['5710', '459']],
  inter_branch_withdrawal: [['3711', '459']],
  inter_branch_withdrawal_cash: [['459', '5710']],
  // Issue 30: money recovered on a written-off loan, income on 792 Récupération sur créances abandonnées.
  loan_recovery: [['5710', '792']],
  // Issue 30: a credit insurance premium, withheld at disbursement or paid with an installment, is the insurer's (461).
  loan_insurance_premium: [['5710', '461']],
  repayment_insurance: [['5710', '461']],
};

test('there is exactly one default rule per event kind, thirty-nine in all', (t) => {
  t.is(defaultRules.length, 39);
  t.deepEqual(defaultRules.map((rule) => rule.kind).sort(), [...eventKinds].sort());
});

for (const rule of defaultRules) {
  test(`rule ${rule.kind} posts the accounts of docs/domain.md, balanced`, (t) => {
    const lines = linesForEvent(rule.legs, new Money('150000'), defaultRoleAccounts);
    const pairs: [string, string][] = [];
    for (let index = 0; index < lines.length; index += 2)
      pairs.push([lines[index]!.account, lines[index + 1]!.account]);
    t.deepEqual(pairs, expected[rule.kind]);
    const sums = totals(lines);
    t.is(formatAmount(sums.debit), String(150000 * rule.legs.length));
    t.true(sums.debit.eq(sums.credit));
  });
}

test("a product's account for a role wins over the default", (t) => {
  const deposit = defaultRules.find((rule) => rule.kind === 'deposit')!;
  const lines = linesForEvent(deposit.legs, new Money('5000'), defaultRoleAccounts, { member_deposits: '373' });
  t.deepEqual(
    lines.map((line) => line.account),
    ['5710', '373'],
  );
});

test('a reversal swaps the sides and stays balanced', (t) => {
  const lines = linesForEvent(defaultRules[0]!.legs, new Money('7'), defaultRoleAccounts);
  const reversed = reversalOf(lines);
  t.notThrows(() => assertBalanced(reversed));
  t.true(reversed[0]!.credit.eq(lines[0]!.debit));
});

test('unbalanced, one-sided or single lines are refused before anything is written', (t) => {
  const one = new Money(1);
  const zero = new Money(0);
  t.throws(
    () =>
      assertBalanced([
        { account: 'a', debit: one, credit: zero },
        { account: 'b', debit: zero, credit: new Money(2) },
      ]),
    { message: /unbalanced/ },
  );
  t.throws(
    () =>
      assertBalanced([
        { account: 'a', debit: one, credit: one },
        { account: 'b', debit: one, credit: one },
      ]),
    { message: /exactly one positive side/ },
  );
  t.throws(() => assertBalanced([{ account: 'a', debit: zero, credit: zero }]), { message: /at least two lines/ });
  t.throws(() => linesForEvent(defaultRules[0]!.legs, zero, defaultRoleAccounts), { message: /positive/ });
});

test('amounts are whole positive francs within bounds', (t) => {
  t.is(formatAmount(parseAmount('150000')!), '150000');
  for (const bad of ['0', '-5', '12.5', '1e6', ' 5', 'abc', '1000000000000000', ''])
    t.is(parseAmount(bad), undefined, bad);
  t.is(formatAmount(new Money('1e20')), '100000000000000000000', 'never an exponent');
});
