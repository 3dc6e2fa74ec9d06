import test from 'ava';
import {
  balanceRefusal,
  classMixRefusal,
  linesByBranch,
  openingLines,
  reversedLines,
  type DraftLine,
} from '../../domain/accounting/manual-entries';
import { rulesLiftingFourEyes } from '../../domain/approvals/policy';
import { Money } from '../../domain/money';

const zero = new Money(0);
const debit = (account: string, amount: number, branchId = 'hq'): DraftLine => ({
  account,
  branchId,
  debit: new Money(amount),
  credit: zero,
  label: null,
});
const credit = (account: string, amount: number, branchId = 'hq'): DraftLine => ({
  account,
  branchId,
  debit: zero,
  credit: new Money(amount),
  label: null,
});

test('class 9 lines stand apart: the first line of the other side is named', (t) => {
  t.is(classMixRefusal([debit('9311', 10), credit('9321', 10)]), null, 'all off-balance');
  t.is(classMixRefusal([debit('65234', 10), credit('5603', 10)]), null, 'none off-balance');
  t.like(classMixRefusal([debit('65234', 10), credit('5603', 5), credit('9311', 5)]), {
    code: 'off_balance_mixed',
    field: 'lines[2].account',
  });
  t.like(classMixRefusal([debit('9311', 10), credit('5603', 10)]), {
    code: 'off_balance_mixed',
    field: 'lines[1].account',
  });
});

test('an entry balances in total and within each branch, else the refusal says by how much and where', (t) => {
  t.is(balanceRefusal([debit('65234', 150_000), debit('65211', 45_500), credit('5603', 195_500)]), null);
  t.like(balanceRefusal([debit('65234', 1000)]), { code: 'manual_entry_unbalanced', field: 'lines' });
  const short = balanceRefusal([debit('65234', 1000), credit('5603', 900)]);
  t.like(short, { code: 'manual_entry_unbalanced', field: 'lines' });
  t.regex(short!.message, /differ by 100\./);
  const acrossBranches = balanceRefusal([credit('5603', 1000), debit('65234', 1000, 'b2')]);
  t.like(acrossBranches, { code: 'manual_entry_unbalanced', field: 'lines[0].branch' });
  t.is(
    balanceRefusal([
      debit('65234', 1000, 'b2'),
      credit('45200', 1000, 'b2'),
      debit('45200', 1000),
      credit('5603', 1000),
    ]),
    null,
    'liaison accounts balance each branch',
  );
});

test('a reversal swaps each line; the lines group by branch in the order they first appear', (t) => {
  const lines = [debit('65234', 7), credit('5603', 7, 'b2')];
  t.deepEqual(
    reversedLines(lines).map((line) => [line.account, line.debit.toFixed(0), line.credit.toFixed(0)]),
    [
      ['65234', '0', '7'],
      ['5603', '7', '0'],
    ],
  );
  t.deepEqual([...linesByBranch([...lines, debit('65211', 1)]).keys()], ['hq', 'b2']);
});

test(
  "an opening entry: each branch's difference on the suspense account, on the side that balances it; none when " +
    'it balances',
  (t) => {
    const opened = openingLines(
      [
        debit('5603', 2_000_000),
        credit('46800', 300_000),
        credit('46800', 50_000, 'b2'),
        debit('5602', 20_000, 'b2'),
        debit('5602', 5, 'b3'),
        credit('46800', 5, 'b3'),
      ],
      '4780',
    );
    const suspense = opened
      .slice(6)
      .map((line) => [line.account, line.branchId, line.debit.toFixed(0), line.credit.toFixed(0)]);
    t.deepEqual(suspense, [
      ['4780', 'hq', '0', '1700000'],
      ['4780', 'b2', '30000', '0'],
    ]);
    t.is(balanceRefusal(opened), null);
  },
);

test("no policy lifts the four eyes of a manual entry's posting; other operations may", (t) => {
  t.is(
    rulesLiftingFourEyes([
      { operation: 'business_date.move', fourEyes: false },
      { operation: 'manual_entry.post', fourEyes: true },
    ]),
    -1,
  );
  t.is(
    rulesLiftingFourEyes([
      { operation: 'business_date.move', fourEyes: false },
      { operation: 'manual_entry.post', fourEyes: false },
    ]),
    1,
  );
});
