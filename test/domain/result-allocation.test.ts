import test, { type ExecutionContext } from 'ava';
import {
  allocationEntries,
  allocationFields,
  allocationLines,
  allocationProblems,
  defaultAllocationPolicy,
  reserveFloor,
  type AllocationAmounts,
  type AllocationFacts,
} from '../../domain/enterprise/result-allocation';
import { assertBalanced } from '../../domain/events/journal';
import { Money } from '../../domain/money';

const money = (amount: number | string) => new Money(amount);
const noReserves = {
  general_reserve: money(0),
  training_reserve: money(0),
  statutory_reserves: money(0),
  optional_reserves: money(0),
};

/** A decision: every field zero but those given. */
function decision(amounts: Partial<Record<keyof AllocationAmounts, number>>): AllocationAmounts {
  return Object.fromEntries(allocationFields.map((field) => [field, money(amounts[field] ?? 0)])) as AllocationAmounts;
}

// A surplus of 1 000 001: 20 % is 200 000.2, so each compulsory reserve takes 200 001 at least (rounded up).
const profit: AllocationFacts = {
  result: money(1_000_001),
  reserves: noReserves,
  subscribedCapital: money(50_000_000),
  paidUpCapital: money(40_000_000),
  priorLosses: money(0),
  policy: defaultAllocationPolicy(),
};
const codes = (amounts: AllocationAmounts, facts: AllocationFacts) =>
  allocationProblems(amounts, facts).map((problem) => `${problem.field}:${problem.code}`);

test(
  'a profit: the two compulsory reserves take 20 % at ' + 'least, rounded up, and the amounts add up to the result',
  (t) => {
    t.deepEqual(
      codes(
        decision({
          general_reserve: 200_001,
          training_reserve: 200_001,
          ristournes: 300_000,
          retained_earnings: 299_999,
        }),
        profit,
      ),
      [],
    );
    t.deepEqual(
      codes(decision({ general_reserve: 200_000, training_reserve: 200_001, retained_earnings: 600_000 }), profit),
      ['general_reserve:reserve_floor_not_met'],
    );
    t.deepEqual(
      codes(decision({ general_reserve: 200_001, training_reserve: 200_001, retained_earnings: 599_998 }), profit),
      ['retained_earnings:allocation_not_equal_to_result'],
    );
    t.deepEqual(
      codes(decision({ general_reserve: 200_001, training_reserve: 200_001, retained_earnings: 600_000 }), profit),
      ['retained_earnings:allocation_not_equal_to_result'],
    );
  },
);

test(
  'the floor stops at the statutory capital: a reserve that has reached it needs nothing more, one near it ' +
    'only the gap',
  (t) => {
    t.is(reserveFloor(money('0.2'), money(1_000_001), money(0), money(50_000_000)).toFixed(0), '200001');
    t.is(reserveFloor(money('0.2'), money(1_000_001), money(49_900_000), money(50_000_000)).toFixed(0), '100000');
    t.is(reserveFloor(money('0.2'), money(1_000_001), money(50_000_000), money(50_000_000)).toFixed(0), '0');
    t.is(
      reserveFloor(money('0.2'), money(1_000_001), money(60_000_000), money(50_000_000)).toFixed(0),
      '0',
      'above the capital: no floor, never negative',
    );
    const reached: AllocationFacts = {
      ...profit,
      reserves: { ...noReserves, general_reserve: money(50_000_000), training_reserve: money(49_950_000) },
    };
    t.deepEqual(codes(decision({ training_reserve: 50_000, retained_earnings: 950_001 }), reached), []);
    t.deepEqual(codes(decision({ training_reserve: 49_999, retained_earnings: 950_002 }), reached), [
      'training_reserve:reserve_floor_not_met',
    ]);
  },
);

test('optional reserves and interest on shares stay within their caps, rounded down', (t) => {
  const base = { general_reserve: 200_001, training_reserve: 200_001 };
  // 20 % of 1 000 001 is 200 000.2: at most 200 000. 4.75 % of 40 000 000 is 1 900 000.
  t.deepEqual(codes(decision({ ...base, optional_reserves: 200_000, retained_earnings: 399_999 }), profit), []);
  t.deepEqual(codes(decision({ ...base, optional_reserves: 200_001, retained_earnings: 399_998 }), profit), [
    'optional_reserves:optional_reserves_above_cap',
  ]);
  const rich: AllocationFacts = { ...profit, result: money(10_000_000), subscribedCapital: money(0) };
  t.deepEqual(codes(decision({ share_interest: 1_900_000, retained_earnings: 8_100_000 }), rich), []);
  t.deepEqual(codes(decision({ share_interest: 1_900_001, retained_earnings: 8_099_999 }), rich), [
    'share_interest:share_interest_above_cap',
  ]);
  const capped: AllocationFacts = { ...rich, policy: { ...rich.policy, shareInterestRateMax: money('0.01') } };
  t.deepEqual(
    codes(decision({ share_interest: 400_001, retained_earnings: 9_599_999 }), capped),
    ['share_interest:share_interest_above_cap'],
    "the enterprise's own cap",
  );
});

test('a loss: charged to the report à nouveau débiteur or to reserves holding enough; nothing distributed', (t) => {
  const loss: AllocationFacts = {
    ...profit,
    result: money(-300_000),
    reserves: { ...noReserves, general_reserve: money(100_000) },
  };
  t.deepEqual(codes(decision({ general_reserve: 100_000, retained_earnings: 200_000 }), loss), []);
  t.deepEqual(codes(decision({ general_reserve: 100_001, retained_earnings: 199_999 }), loss), [
    'general_reserve:reserve_insufficient',
  ]);
  t.deepEqual(codes(decision({ ristournes: 1, retained_earnings: 299_999 }), loss), [
    'ristournes:nothing_to_distribute',
  ]);
  t.deepEqual(codes(decision({ retained_earnings: 300_001 }), loss), [
    'retained_earnings:allocation_not_equal_to_result',
  ]);
  t.deepEqual(allocationLines(decision({ general_reserve: 100_000, retained_earnings: 200_000 }), loss.result), [
    { account: '111', amount: money(100_000) },
    { account: '122', amount: money(200_000) },
  ]);
  t.deepEqual(codes(decision({}), { ...profit, result: money(0) }), ['retained_earnings:no_result_to_allocate']);
});

const signed = (lines: { account: string; debit: Money; credit: Money }[]) =>
  Object.fromEntries(lines.map((line) => [line.account, line.debit.minus(line.credit).toFixed(0)]));

test(
  'the entries: one per branch holding the result, pro ' + 'rata, each balanced, adding up to the decision exactly',
  (t) => {
    const lines = allocationLines(
      decision({
        general_reserve: 200_001,
        training_reserve: 200_001,
        ristournes: 300_000,
        retained_earnings: 299_999,
      }),
      profit.result,
    );
    // 131 holds 666 667 at A and 333 334 at B (credits): a third of a franc to round in every column.
    const entries = allocationEntries(
      '131',
      [
        { branchId: 'A', balance: money(-666_667) },
        { branchId: 'B', balance: money(-333_334) },
      ],
      lines,
    );
    for (const entry of entries) assertBalanced(entry.lines);
    // A: 2/3 of each rounded half-up (133 333.93 → 133 334, 199 999.9 → 200 000).
    // The report à nouveau balances it: 666 667 − 466 668.
    t.deepEqual(signed(entries[0]!.lines), {
      131: '666667',
      111: '-133334',
      112: '-133334',
      44400: '-200000',
      121: '-199999',
    });
    t.deepEqual(signed(entries[1]!.lines), {
      131: '333334',
      111: '-66667',
      112: '-66667',
      44400: '-100000',
      121: '-100000',
    });
    const loss = allocationEntries(
      '132',
      [{ branchId: 'A', balance: money(300_000) }],
      allocationLines(decision({ general_reserve: 100_000, retained_earnings: 200_000 }), money(-300_000)),
    );
    t.deepEqual(signed(loss[0]!.lines), { 132: '-300000', 111: '100000', 122: '200000' });
  },
);

test('a branch with a loss in a profitable year: its entry runs the other way, the totals still exact', (t) => {
  const lines = allocationLines(
    decision({ general_reserve: 20_000, training_reserve: 20_000, retained_earnings: 60_000 }),
    money(100_000),
  );
  const entries = allocationEntries(
    '131',
    [
      { branchId: 'A', balance: money(-125_000) },
      { branchId: 'B', balance: money(25_000) },
    ],
    lines,
  );
  t.deepEqual(signed(entries[0]!.lines), { 131: '125000', 111: '-25000', 112: '-25000', 121: '-75000' });
  t.deepEqual(signed(entries[1]!.lines), { 131: '-25000', 111: '5000', 112: '5000', 121: '15000' });
});

/** Losses smaller than the profit: cleared, then the reserves take their share of what remains (2 000 000). */
function assertSmallerLossesCleared(t: ExecutionContext, facts: AllocationFacts): void {
  const smaller: AllocationFacts = { ...facts, priorLosses: money(1_000_000) };
  t.deepEqual(
    codes(
      decision({
        prior_losses: 1_000_000,
        general_reserve: 400_000,
        training_reserve: 400_000,
        ristournes: 1_200_000,
      }),
      smaller,
    ),
    [],
  );
  t.deepEqual(
    codes(
      decision({
        prior_losses: 1_000_000,
        general_reserve: 399_999,
        training_reserve: 400_000,
        ristournes: 1_200_001,
      }),
      smaller,
    ),
    ['general_reserve:reserve_floor_not_met'],
  );
}

test(
  'a profit first clears the report à nouveau débiteur: 122 holds 5 000 000 of prior losses, ' +
    'the year made 3 000 000',
  (t) => {
    const facts: AllocationFacts = { ...profit, result: money(3_000_000), priorLosses: money(5_000_000) };
    // The decision that ignored the losses: 20 % and 20 % to the reserves, the rest to the members.
    t.deepEqual(
      codes(decision({ general_reserve: 600_000, training_reserve: 600_000, ristournes: 1_800_000 }), facts),
      ['prior_losses:prior_losses_first'],
    );
    t.deepEqual(
      codes(decision({ prior_losses: 3_000_000 }), facts),
      [],
      'all of it clears 122 (2 000 000 of losses remain): no surplus, no reserve floor',
    );
    t.deepEqual(allocationLines(decision({ prior_losses: 3_000_000 }), facts.result), [
      { account: '122', amount: money(3_000_000) },
    ]);
    t.true(
      codes(decision({ prior_losses: 5_000_001, retained_earnings: 999_999 }), {
        ...facts,
        result: money(6_000_000),
      }).includes('prior_losses:prior_losses_above_balance'),
    );

    assertSmallerLossesCleared(t, facts);

    // The policy may leave the losses to a later decision: then nothing is paid to members while they remain.
    const later: AllocationFacts = {
      ...facts,
      policy: { ...defaultAllocationPolicy(), absorbPriorLossesFirst: false },
    };
    t.deepEqual(
      codes(decision({ general_reserve: 600_000, training_reserve: 600_000, retained_earnings: 1_800_000 }), later),
      [],
    );
    t.deepEqual(
      codes(decision({ general_reserve: 600_000, training_reserve: 600_000, ristournes: 1_800_000 }), later),
      ['ristournes:prior_losses_not_cleared'],
    );
    t.deepEqual(
      codes(
        decision({ prior_losses: 1, general_reserve: 200_000, training_reserve: 200_000, retained_earnings: 599_999 }),
        { ...profit, result: money(1_000_000) },
      ),
      ['prior_losses:prior_losses_above_balance'],
      'nothing to clear: no prior loss',
    );
  },
);

test('a loss clears no prior loss', (t) => {
  const loss: AllocationFacts = { ...profit, result: money(-100_000), priorLosses: money(50_000) };
  t.deepEqual(codes(decision({ prior_losses: 100_000 }), loss), ['prior_losses:nothing_to_distribute']);
});
