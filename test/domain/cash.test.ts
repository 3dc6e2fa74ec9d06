import test from 'ava';
import { differenceOf, modeAllowed, settlementAccount, settlementLines } from '../../domain/cash/settlements';
import { cashMove, overCashLimit, transferSides } from '../../domain/cash/till-transfers';
import { Money } from '../../domain/money';

/**
 * The pure rules of cash between the vault and the tills and of the settlement of differences (docs/domain.md §13.2).
 */

const plain = (lines: { account: string; debit: Money; credit: Money }[]) =>
  lines.map((line) => [line.account, line.debit.toFixed(0), line.credit.toFixed(0)]);

test(
  'a transfer: the vault gives for an approvisionnement, the till for a dégagement; a move debits where the ' +
    'cash enters',
  (t) => {
    t.deepEqual(transferSides('to_till', '5712001'), { giver: '5710', receiver: '5712001' });
    t.deepEqual(transferSides('to_vault', '5712001'), { giver: '5712001', receiver: '5710' });
    t.deepEqual(plain(cashMove('5710', '459', new Money(50000))), [
      ['459', '50000', '0'],
      ['5710', '0', '50000'],
    ]);
  },
);

test(
  'the settlements: a shortage recovered or written off, an excess written off or returned, each closing its ' +
    'error account',
  (t) => {
    t.true(modeAllowed('shortage', 'recovered'));
    t.true(modeAllowed('shortage', 'written_off'));
    t.false(modeAllowed('shortage', 'returned'));
    t.true(modeAllowed('excess', 'returned'));
    t.false(modeAllowed('excess', 'recovered'));
    t.is(settlementAccount('shortage', 'recovered', null), '5710');
    t.is(settlementAccount('shortage', 'written_off', null), '6798');
    t.is(settlementAccount('shortage', 'written_off', '6793'), '6793');
    t.is(settlementAccount('excess', 'written_off', null), '7786');
    t.is(settlementAccount('excess', 'returned', null), '5710');
    t.deepEqual(plain(settlementLines('shortage', '5710', new Money(1000))), [
      ['5710', '1000', '0'],
      ['4631', '0', '1000'],
    ]);
    t.deepEqual(plain(settlementLines('excess', '7786', new Money(500))), [
      ['4632', '500', '0'],
      ['7786', '0', '500'],
    ]);
  },
);

test("a difference read from its entry's lines, and the cash limit", (t) => {
  const zero = new Money(0);
  t.like(
    differenceOf([
      { account: '4631', debit: new Money(1000), credit: zero },
      { account: '5712001', debit: zero, credit: new Money(1000) },
    ]),
    { kind: 'shortage' },
  );
  t.is(
    differenceOf([
      { account: '5710', debit: new Money(500), credit: zero },
      { account: '4632', debit: zero, credit: new Money(500) },
    ])!.amount.toFixed(0),
    '500',
  );
  t.is(
    differenceOf([
      { account: '5710', debit: new Money(500), credit: zero },
      { account: '459', debit: zero, credit: new Money(500) },
    ]),
    null,
  );
  t.true(overCashLimit('10001', '10000'));
  t.false(overCashLimit('10000', '10000'));
  t.false(overCashLimit('99999999', null));
});
