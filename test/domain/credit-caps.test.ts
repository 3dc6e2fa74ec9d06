import test from 'ava';
import {
  checkCreditCaps,
  shareCapitalLimit,
  type CreditCapInput,
  type CreditCapMode,
} from '../../domain/loans/credit-caps';
import { Money } from '../../domain/money';

/** Limits worked out by hand: 10 % of 123 456 789 = 12 345 678.9 → 12 345 678 (rounded down); 50 000 000. */

interface Case {
  requested: string;
  existing?: string;
  capital?: string;
  relatedParty?: boolean;
  mode?: CreditCapMode;
}

function check({ requested, existing = '0', capital = '123456789', relatedParty = false, mode = 'enforce' }: Case) {
  const input: CreditCapInput = {
    requested: new Money(requested),
    existingOutstanding: new Money(existing),
    paidUpCapital: new Money(capital),
    relatedParty,
    mode,
  };
  const result = checkCreditCaps(input);
  return {
    allowed: result.allowed,
    breaches: result.breaches.map((b) => [b.code, b.limit.toString(), b.total.toString()]),
  };
}

test('10 % of the paid-up capital is rounded down to the franc', (t) => {
  t.is(shareCapitalLimit(new Money('123456789')).toString(), '12345678');
  t.is(shareCapitalLimit(new Money('1000000000')).toString(), '100000000');
  t.is(shareCapitalLimit(new Money('9')).toString(), '0');
});

test('share-capital cap: just below, at and just above the limit (existing + requested)', (t) => {
  t.deepEqual(check({ existing: '2345678', requested: '9999999' }), { allowed: true, breaches: [] }, 'limit − 1');
  t.deepEqual(check({ existing: '2345678', requested: '10000000' }), { allowed: true, breaches: [] }, 'at the limit');
  t.deepEqual(
    check({ existing: '2345678', requested: '10000001' }),
    { allowed: false, breaches: [['cap_share_capital', '12345678', '12345679']] },
    'limit + 1',
  );
  // The unrounded 10 % (12 345 678.9) is not the limit: 12 345 679 already breaches.
  t.deepEqual(check({ requested: '12345679' }).breaches, [['cap_share_capital', '12345678', '12345679']]);
});

test('related-party cap: 50 000 000 XAF just below, at and just above, only for related parties', (t) => {
  const capital = '10000000000'; // 10 % = 1 000 000 000, far above: only the related-party cap can bite.
  t.deepEqual(check({ capital, existing: '20000000', requested: '29999999', relatedParty: true }), {
    allowed: true,
    breaches: [],
  });
  t.deepEqual(check({ capital, existing: '20000000', requested: '30000000', relatedParty: true }), {
    allowed: true,
    breaches: [],
  });
  t.deepEqual(check({ capital, existing: '20000000', requested: '30000001', relatedParty: true }), {
    allowed: false,
    breaches: [['cap_related_party', '50000000', '50000001']],
  });
  t.deepEqual(
    check({ capital, existing: '20000000', requested: '30000001', relatedParty: false }),
    { allowed: true, breaches: [] },
    'not a related party',
  );
});

test('both caps breached are both reported', (t) => {
  // Capital 400 000 000 → limit 40 000 000; total 60 000 000 breaches both.
  t.deepEqual(check({ capital: '400000000', existing: '10000000', requested: '50000000', relatedParty: true }), {
    allowed: false,
    breaches: [
      ['cap_share_capital', '40000000', '60000000'],
      ['cap_related_party', '50000000', '60000000'],
    ],
  });
});

test('warn mode reports the same breaches but allows', (t) => {
  t.deepEqual(check({ existing: '2345678', requested: '10000001', mode: 'warn' }), {
    allowed: true,
    breaches: [['cap_share_capital', '12345678', '12345679']],
  });
  t.deepEqual(check({ capital: '10000000000', requested: '50000001', relatedParty: true, mode: 'warn' }), {
    allowed: true,
    breaches: [['cap_related_party', '50000000', '50000001']],
  });
  t.deepEqual(check({ requested: '1', mode: 'warn' }), { allowed: true, breaches: [] });
  t.deepEqual(
    check({ capital: '0', requested: '1', mode: 'warn' }),
    { allowed: true, breaches: [['cap_share_capital', '0', '1']] },
    'no capital: any loan breaches',
  );
});

test('programming errors throw', (t) => {
  t.throws(() => check({ requested: '0' }), { message: /requested/ });
  t.throws(() => check({ requested: '-5' }), { message: /requested/ });
  t.throws(() => check({ requested: '10.5' }), { message: /requested/ });
  t.throws(() => check({ requested: '1', existing: '-1' }), { message: /existingOutstanding/ });
  t.throws(() => check({ requested: '1', capital: '0.5' }), { message: /paidUpCapital/ });
  t.throws(() => check({ requested: '1', mode: 'block' as CreditCapMode }), { message: /mode/ });
});
