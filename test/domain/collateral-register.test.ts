import test from 'ava';
import { collateralRegister, type CollateralLine } from '../../domain/loans/collateral-register';
import { countableValue, provisionFor } from '../../domain/loans/provisioning';
import { Money } from '../../domain/money';

/** What provisioning may count of a guarantee (docs/domain.md §14.4), figures worked by hand. */
test(
  'countableValue: a cash cover all of it, an eligible one less 25 % a whole year doubtful, a personal ' +
    'guarantee or a pledge of equipment nothing',
  (t) => {
    const value = new Money(800_000);
    const doubtful = { doubtfulSince: '2026-03-10' };
    t.is(countableValue('pledged_deposit', value, doubtful, '2029-03-10').toFixed(0), '800000');
    t.is(
      countableValue('mortgage', value, { doubtfulSince: null }, '2029-03-10').toFixed(0),
      '800000',
      'not doubtful: no minimum',
    );
    t.is(countableValue('mortgage', value, doubtful, '2027-03-09').toFixed(0), '800000', 'a day short of a year');
    t.is(countableValue('mortgage', value, doubtful, '2027-03-10').toFixed(0), '600000', 'one year: 800 000 - 200 000');
    t.is(
      countableValue('public_guarantee', value, doubtful, '2029-03-10').toFixed(0),
      '200000',
      'three years: 75 % provisioned',
    );
    t.is(
      countableValue('bank_guarantee', value, doubtful, '2031-01-01').toFixed(0),
      '0',
      'four years and more: all of it',
    );
    t.is(
      countableValue('mortgage', new Money(333_333), doubtful, '2027-03-10').toFixed(0),
      '250000',
      '333 333 - 83 333 (83 333.25 to the franc)',
    );
    t.is(countableValue('personal_guarantor', value, doubtful, '2027-03-10').toFixed(0), '0');
    t.is(countableValue('equipment_pledge', value, { doubtfulSince: null }, '2027-03-10').toFixed(0), '0');
    t.is(countableValue('mortgage', value, doubtful, '2026-01-01').toFixed(0), '800000', 'before the downgrade');
  },
);

test(
  'countableValue agrees with provisionFor: on a fully covered doubtful loan the provision is the value less ' +
    'what counts',
  (t) => {
    const value = new Money(1_000_000);
    for (const asOf of ['2026-06-01', '2027-03-10', '2028-04-01', '2029-12-31']) {
      const provision = provisionFor({
        outstanding: value,
        loanClass: 'doubtful',
        ageDays: 400,
        cashCover: new Money(0),
        eligibleCover: value,
        doubtfulSince: '2026-03-10',
        asOf,
        ladder: [{ days_from: 0, days_to: null, rate: '0' }],
      });
      t.is(
        provision.amount.toFixed(0),
        value.minus(countableValue('mortgage', value, { doubtfulSince: '2026-03-10' }, asOf)).toFixed(0),
        asOf,
      );
    }
  },
);

test("collateralRegister: the totals by kind in the kinds' order, and the whole", (t) => {
  const line = (kind: CollateralLine['kind'], value: number, countable: number): CollateralLine => ({
    guarantee: `${kind}-${value}`,
    loan: 'l',
    loanNumber: 'L1',
    branch: 'b',
    memberNumber: 'M1',
    memberName: 'Awa',
    classification: 'doubtful',
    outstanding: new Money(1),
    kind,
    value: new Money(value),
    valuationDate: '2026-01-01',
    documentReference: '',
    guarantor: null,
    guarantorName: null,
    account: null,
    countableValue: new Money(countable),
  });
  const register = collateralRegister([
    line('personal_guarantor', 300_000, 0),
    line('mortgage', 800_000, 600_000),
    line('mortgage', 100_000, 75_000),
  ]);
  t.deepEqual(
    register.byKind.map((row) => [row.kind, row.guarantees, row.value.toFixed(0), row.countableValue.toFixed(0)]),
    [
      ['mortgage', 2, '900000', '675000'],
      ['personal_guarantor', 1, '300000', '0'],
    ],
  );
  t.like(register.totals, { guarantees: 3 });
  t.is(register.totals.value.toFixed(0), '1200000');
  t.is(register.totals.countableValue.toFixed(0), '675000');
});
