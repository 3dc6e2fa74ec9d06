import test from 'ava';
import { assertTransferSides, isBankParentAccount, nextSubAccountCode } from '../../domain/accounting/banks';

test('a bank account opens under a leaf of 560 only', (t) => {
  t.true(isBankParentAccount('5603'));
  t.true(isBankParentAccount('56090'));
  t.false(isBankParentAccount('5609'), '5609 has leaves of its own');
  t.false(isBankParentAccount('5710'), 'the till is no bank');
  t.false(isBankParentAccount('561'), "lori: the correspondents' accounts with the cooperative");
});

test('the next sub-account follows the highest of three digits under its parent', (t) => {
  t.is(nextSubAccountCode('5603', []), '5603001');
  t.is(nextSubAccountCode('5603', ['5603001', '5603009']), '5603010');
  t.is(nextSubAccountCode('5603', ['56031', '5602007']), '5603001', 'other lengths and other parents are not numbered');
  t.is(nextSubAccountCode('5603', ['5603999']), null);
});

test('a transfer has two different sides, null being the till', (t) => {
  t.notThrows(() => assertTransferSides(null, 'a'));
  t.notThrows(() => assertTransferSides('a', 'b'));
  t.like(
    t.throws(() => assertTransferSides(null, null)),
    { code: 'treasury_transfer_same_account' },
  );
  t.like(
    t.throws(() => assertTransferSides('a', 'a')),
    { code: 'treasury_transfer_same_account' },
  );
});
