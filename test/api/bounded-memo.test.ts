import test from 'ava';
import { BoundedMemo } from '../../api/bounded-memo';

test('a bounded memo forgets its oldest entry beyond its capacity, and what it is told to forget', (t) => {
  const memo = new BoundedMemo<number>(2);
  memo.remember('a', 1);
  memo.remember('b', 2);
  memo.remember('c', 3);
  t.is(memo.get('a'), undefined, 'the oldest went first');
  t.is(memo.get('b'), 2);
  t.is(memo.get('c'), 3);
  memo.forget('b');
  t.is(memo.get('b'), undefined);
  memo.remember('d', 4);
  t.is(memo.get('c'), 3, 'room was left by the forgotten entry');
  t.is(memo.get('d'), 4);
});
