import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { intermediateBalanceFormulas, intermediateBalances } from '../../domain/accounts/intermediate-balances';
import { intermediateBalancesDocument } from '../../domain/accounts/intermediate-balances.document';
import {
  prudentialRatios,
  loanFigures,
  type LoanFacts,
  type PrudentialRatios,
  type Ratio,
} from '../../domain/accounts/prudential-ratios';
import { prudentialRatiosDocument } from '../../domain/accounts/prudential-ratios.document';
import {
  defaultPrudentialSettings,
  prudentialSettingsOf,
  prudentialSettingsProblems,
} from '../../domain/accounts/prudential-settings';
import type { AccountBalance } from '../../domain/accounts/statements';
import { arrearsStatement, ledgerAgreement, type LoanPositionAt } from '../../domain/loans/arrears-statement';
import { arrearsStatementDocument } from '../../domain/loans/arrears-statement.document';
import { Money } from '../../domain/money';
import { defaultProvisioningLadder } from '../../domain/provisioning-ladder';

const rows = (balances: Record<string, number>): AccountBalance[] =>
  Object.entries(balances).map(([account, balance]) => ({ account, balance: new Money(balance) }));
const header = { enterprise: { code: 'C1', name: 'Coop C1' }, generatedAt: '2026-12-31T18:00:00.000Z' };
const amountsOf = (lines: { code: string; amount: Money }[]) =>
  Object.fromEntries(lines.map((line) => [line.code, line.amount.toNumber()]));

test(
  'SIG: every two-digit group of classes 6 and 7 is in ' + 'exactly one formula, so 87 is always income minus expenses',
  (t) => {
    const groups = intermediateBalanceFormulas.flatMap((formula) => [...formula.income, ...formula.expenses]);
    const expected = [
      ...Array.from({ length: 10 }, (_, index) => `6${index}`),
      ...Array.from({ length: 10 }, (_, index) => `7${index}`),
    ];
    t.deepEqual([...groups].sort(), expected);
  },
);

test('SIG of hand-made movements: each balance by its formula (income as a credit, negative)', (t) => {
  // (Numeric keys: the rows come in account order.)
  // Income: 713 interest 100 000, 7153 fees 5 000, 741 10 000, 77 exceptional 3 000, 79 reversal 2 000.
  // Expenses: 611 deposit interest 20 000, 64 4 000, 6511 30 000, 661 taxes 1 000, 6913 provisions 8 000, 67 7 000.
  const flows = rows({
    713: -100_000,
    7153: -5_000,
    741: -10_000,
    771: -3_000,
    791: -2_000,
    611: 20_000,
    641: 4_000,
    6511: 30_000,
    661: 1_000,
    6913: 8_000,
    671: 7_000,
  });
  const balances = intermediateBalances(flows);
  t.deepEqual(amountsOf(balances), {
    80: 85_000,
    81: 91_000,
    82: 54_000,
    83: 54_000,
    84: -4_000,
    85: 50_000,
    86: 0,
    87: 50_000,
  });
  t.deepEqual(
    balances.find((line) => line.code === '80')!.accounts.map((row) => [row.account, row.amount.toNumber()]),
    [
      ['611', -20_000],
      ['713', 100_000],
      ['7153', 5_000],
    ],
  );
  const result = flows.reduce((sum, row) => sum.minus(row.balance), new Money(0));
  t.is(balances.at(-1)!.amount.toNumber(), result.toNumber());

  const document = intermediateBalancesDocument(
    header,
    { from: '2026-01-01', to: '2026-12-31' },
    balances.map((line) => ({ ...line, prior: new Money(0) })),
  );
  t.like(document, { title: 'Soldes intermédiaires de gestion', period: { from: '2026-01-01', to: '2026-12-31' } });
  t.deepEqual([...(document.sheets[0]!.rows as Iterable<Record<string, string | null>>)].at(-1), {
    code: '87',
    label: 'Résultat net avant certification',
    amount: '50000',
    prior_amount: '0',
  });
});

const loan = (overrides: Partial<LoanFacts>): LoanFacts => ({
  member: 'm1',
  memberNumber: 'M-1',
  memberName: 'Awa',
  relatedParty: false,
  classification: 'performing',
  outstanding: new Money(0),
  provisions: new Money(0),
  principalDueWithinThreeMonths: new Money(0),
  ...overrides,
});

/** Hand-made balances: equity items and fixed assets, loans, deposits, treasury and an interim loss. */
const handMadeBalances = () =>
  rows({
    10000: -50_000_000,
    1111: -4_000_000,
    122: 1_000_000,
    2024: 600_000,
    2801: -200_000,
    2311: 2_000_000, // equity items and fixed assets
    3221: 30_000_000,
    3352: 4_000_000,
    3931: -2_000_000,
    3711: -40_000_000,
    361: -5_000_000,
    5710: 10_000_000,
    5611: 3_000_000, // loans, deposits, treasury
    713: -6_000_000,
    6511: 7_000_000, // an interim loss of 1 000 000
  });

/** Two loans of M-1, one of them doubtful, and one of M-2, a related party. */
const handMadeLoans = (): LoanFacts[] => [
  loan({
    member: 'm1',
    memberNumber: 'M-1',
    outstanding: new Money(20_000_000),
    principalDueWithinThreeMonths: new Money(2_500_000),
  }),
  loan({
    member: 'm1',
    memberNumber: 'M-1',
    outstanding: new Money(4_000_000),
    provisions: new Money(2_000_000),
    classification: 'doubtful',
    principalDueWithinThreeMonths: new Money(900_000),
  }),
  loan({
    member: 'm2',
    memberNumber: 'M-2',
    memberName: 'Binta',
    relatedParty: true,
    outstanding: new Money(10_000_000),
    principalDueWithinThreeMonths: new Money(1_000_000),
  }),
];

/** Solvency, liquidity and the coverage of fixed assets of the hand-made balances. */
function assertHandMadeRatios(t: ExecutionContext, byCode: Record<string, Ratio>, equity: number): void {
  // Risks: loans net of provisions 32 000 000 at 100 %, the other assets at 0 %.
  t.deepEqual(
    [
      byCode.solvency!.numerator.toNumber(),
      byCode.solvency!.denominator.toNumber(),
      byCode.solvency!.value!.toFixed(6),
      byCode.solvency!.met,
    ],
    [equity, 32_000_000, '1.612500', true],
  );
  // Liquid: cash 10 000 000 + correspondents 3 000 000 + performing installments 3 500 000.
  // Due: term deposits 5 000 000 + half the demand deposits.
  t.deepEqual(
    [
      byCode.liquidity!.numerator.toNumber(),
      byCode.liquidity!.denominator.toNumber(),
      byCode.liquidity!.value!.toFixed(6),
      byCode.liquidity!.met,
    ],
    [16_500_000, 25_000_000, '0.660000', false],
  );
  // Permanent funds: class 1 in credit 53 000 000 less the loss of 1 000 000; fixed assets 2 400 000.
  const coverage = byCode.fixed_asset_coverage!;
  t.deepEqual(
    [coverage.numerator.toNumber(), coverage.denominator.toNumber(), coverage.cobacEmfNorm],
    [52_000_000, 2_400_000, false],
  );
}

/** The hand-made borrowers over the concentration limit, the insiders' and the credit cap of R-2017/08. */
function assertHandMadeBorrowers(t: ExecutionContext, report: PrudentialRatios, byCode: Record<string, Ratio>): void {
  // M-1's exposure: 24 000 000 − 2 000 000 of provisions, 42.6 % of net equity, above 15 %; M-2 19.4 %, above too.
  t.deepEqual(
    byCode.concentration!.borrowers!.map((borrower) => [
      borrower.memberNumber,
      borrower.exposure.toNumber(),
      borrower.ratio!.toFixed(6),
      borrower.exceeds,
    ]),
    [
      ['M-1', 22_000_000, '0.426356', true],
      ['M-2', 10_000_000, '0.193798', true],
    ],
  );
  t.deepEqual(
    [
      byCode.insiders!.numerator.toNumber(),
      byCode.insiders!.met,
      byCode.insiders!.borrowers!.map((borrower) => borrower.memberNumber),
    ],
    [10_000_000, true, ['M-2']],
  );
  // R-2017/08: 10 % of 50 000 000 is 5 000 000, which both borrowers exceed.
  t.deepEqual(
    report.creditCaps.breaches.map(({ exposure, breach }) => [
      exposure.memberNumber,
      breach.code,
      breach.limit.toNumber(),
    ]),
    [
      ['M-1', 'cap_share_capital', 5_000_000],
      ['M-2', 'cap_share_capital', 5_000_000],
    ],
  );
}

test(
  'prudential ratios of hand-made balances: net equity with its deductions, each ratio to the franc, breaches ' +
    'named',
  (t) => {
    const balances = handMadeBalances();
    const loans = handMadeLoans();
    // M-2's 10 000 000 is 19.4 % of net equity: deducted at the default 5 % (the next test), not at 25 %.
    const report = prudentialRatios({
      balances,
      settings: { ...defaultPrudentialSettings, insider_deduction_max: '0.25' },
      ...loanFigures(loans),
    });
    // 50 000 000 + 4 000 000 − 1 000 000 (122) − 400 000 (intangibles net) − 1 000 000 (interim loss).
    const equity = 51_600_000;
    t.is(report.netEquity.amount.toNumber(), equity);
    const byCode = Object.fromEntries(report.ratios.map((ratio) => [ratio.code, ratio]));
    assertHandMadeRatios(t, byCode, equity);
    assertHandMadeBorrowers(t, report, byCode);

    const document = prudentialRatiosDocument(header, '2026-12-31', report);
    t.deepEqual(
      document.sheets.map((sheet) => sheet.name),
      ['Ratios', 'Composantes', 'Bénéficiaires', 'Plafonds R-2017-08'],
    );
    t.like([...(document.sheets[0]!.rows as Iterable<Record<string, string | null>>)][1], {
      code: 'liquidity',
      numerator: '16500000',
      denominator: '25000000',
      value: '0.660000',
      met: 'non',
    });
  },
);

test(
  "unpaid capital is no permanent fund; an insider's exposure above 5 % of net equity is deducted from it, " +
    'whole (EMF 2002/04 Art. 2, 2002/10 Art. 3)',
  (t) => {
    // 50 000 000 subscribed, 10 000 000 of it unpaid (10010, owed by the members in 4411); fixed assets 8 000 000; a
    // director owes 20 000 000.
    const balances = rows({
      10000: -40_000_000,
      10010: -10_000_000,
      4411: 10_000_000,
      2311: 8_000_000,
      3221: 21_500_000,
      3711: -21_500_000,
      5710: 32_000_000,
    });
    const loans = [
      loan({
        member: 'm2',
        memberNumber: 'M-2',
        memberName: 'Directeur',
        relatedParty: true,
        outstanding: new Money(20_000_000),
      }),
      loan({
        member: 'm3',
        memberNumber: 'M-3',
        memberName: 'Agent',
        relatedParty: true,
        outstanding: new Money(1_500_000),
      }),
    ];
    const report = prudentialRatios({ balances, settings: defaultPrudentialSettings, ...loanFigures(loans) });
    const coverage = report.ratios.find((ratio) => ratio.code === 'fixed_asset_coverage')!;
    t.deepEqual(
      [coverage.numerator.toNumber(), coverage.denominator.toNumber(), coverage.value!.toFixed(6)],
      [40_000_000, 8_000_000, '5.000000'],
      'the paid-up 40 000 000 only',
    );
    // Before the deduction: 40 000 000; 5 % of it is 2 000 000: M-2's 20 000 000 goes, M-3's 1 500 000 stays.
    const deduction = report.netEquity.parts.find((part) => part.key === 'insider_exposures')!;
    t.is(deduction.amount.toNumber(), -20_000_000);
    t.regex(deduction.label, /M-2$/);
    t.is(report.netEquity.amount.toNumber(), 20_000_000);
    const insiders = report.ratios.find((ratio) => ratio.code === 'insiders')!;
    t.deepEqual(
      [insiders.numerator.toNumber(), insiders.denominator.toNumber(), insiders.met],
      [21_500_000, 20_000_000, false],
    );
  },
);

test(
  'concentration: every borrower above the limit and the largest others, ten in all at least, largest first, ' +
    'ties by member number, whatever the loans',
  (t) => {
    const member = fc.integer({ min: 1, max: 40 });
    const loans = fc.array(
      fc.record({
        member,
        // Few distinct amounts, so that ties are common.
        outstanding: fc.constantFrom(0, 1_000_000, 2_500_000, 4_000_000, 9_000_000),
        provisions: fc.constantFrom(0, 500_000, 1_000_000),
      }),
      { minLength: 10, maxLength: 60, size: 'max' },
    );
    fc.assert(
      fc.property(loans, fc.constantFrom('0.05', '0.15', '0.5'), (drawn, limit) => {
        const facts = drawn.map((one) =>
          loan({
            member: `m${one.member}`,
            memberNumber: `M-${one.member}`,
            outstanding: new Money(one.outstanding),
            provisions: new Money(one.provisions),
          }),
        );
        const settings = { ...defaultPrudentialSettings, concentration_max: limit };
        const report = prudentialRatios({ balances: handMadeBalances(), settings, ...loanFigures(facts) });
        const ratio = report.ratios.find((one) => one.code === 'concentration')!;
        // The expected list, computed apart: each member's loans netted, sorted whole, then cut.
        const net = new Map<number, number>();
        for (const one of drawn) net.set(one.member, (net.get(one.member) ?? 0) + one.outstanding - one.provisions);
        const ceiling = Number(limit) * report.netEquity.amount.toNumber();
        const sorted = [...net]
          .filter(([, amount]) => amount > 0)
          .sort(([a, x], [b, y]) => y - x || (`M-${a}` < `M-${b}` ? -1 : 1));
        const cut = Math.max(10, sorted.filter(([, amount]) => amount > ceiling).length);
        t.deepEqual(
          ratio.borrowers!.map((one) => [one.memberNumber, one.exposure.toNumber(), one.exceeds]),
          sorted.slice(0, cut).map(([number, amount]) => [`M-${number}`, amount, amount > ceiling]),
        );
      }),
      { numRuns: 200 },
    );
  },
);

test('prudential settings: defaults with overrides, problems named by field', (t) => {
  t.like(prudentialSettingsOf({ insiders_max: '0.30', risk_weights: { treasury: '0.2' } }), {
    insiders_max: '0.30',
    concentration_max: '0.15',
    risk_weights: { treasury: '0.2', customer_loans: '1' },
  });
  const problems = prudentialSettingsProblems({
    solvency_min: '0',
    concentration_max: '1.5',
    liquidity_min: '12',
    fixed_asset_coverage_min: '1.00001',
    risk_weights: { customer_loans: '2', fixed_assets: 'x' },
  });
  t.deepEqual(
    problems.map((problem) => problem.field),
    [
      'solvency_min',
      'liquidity_min',
      'fixed_asset_coverage_min',
      'concentration_max',
      'risk_weights.customer_loans',
      'risk_weights.fixed_assets',
    ],
  );
  t.deepEqual(
    prudentialSettingsProblems({ solvency_min: '0.12', insiders_max: '0.3', risk_weights: { treasury: '0' } }),
    [],
  );
});

const position = (overrides: Partial<LoanPositionAt>): LoanPositionAt => ({
  loan: 'l',
  loanNumber: 'L-1',
  branch: 'b',
  member: 'm',
  memberNumber: 'M-1',
  memberName: 'Awa',
  classification: 'performing',
  litigious: false,
  daysPastDue: 0,
  outstanding: new Money(0),
  uncovered: new Money(0),
  provisions: new Money(0),
  arrears: new Money(0),
  ...overrides,
});

/** One loan in each group: performing, overdue, doubtful from 91 days, and litigious from 366 days. */
const arrearsPositions = (): LoanPositionAt[] => [
  position({ loanNumber: 'L-1', outstanding: new Money(900_000), uncovered: new Money(900_000) }),
  position({
    loanNumber: 'L-2',
    classification: 'overdue',
    daysPastDue: 20,
    outstanding: new Money(500_000),
    uncovered: new Money(500_000),
    arrears: new Money(60_000),
  }),
  position({
    loanNumber: 'L-3',
    classification: 'doubtful',
    daysPastDue: 100,
    outstanding: new Money(400_000),
    uncovered: new Money(300_000),
    provisions: new Money(150_000),
    arrears: new Money(200_000),
  }),
  position({
    loanNumber: 'L-4',
    classification: 'doubtful',
    litigious: true,
    daysPastDue: 400,
    outstanding: new Money(100_000),
    uncovered: new Money(100_000),
    provisions: new Money(100_000),
    arrears: new Money(100_000),
  }),
];

test('arrears statement: groups by class and ladder band, totals, the ledger beside it; a difference is shown', (t) => {
  const positions = arrearsPositions();
  const statement = arrearsStatement(positions, defaultProvisioningLadder);
  t.deepEqual(
    statement.groups.map((group) => [
      group.classification,
      group.band.days_from,
      group.loans,
      group.outstanding.toNumber(),
      group.provisions.toNumber(),
    ]),
    [
      ['performing', 0, 1, 900_000, 0],
      ['overdue', 0, 1, 500_000, 0],
      ['doubtful', 91, 1, 400_000, 150_000],
      ['doubtful', 366, 1, 100_000, 100_000],
    ],
  );
  t.like(statement.totals, { loans: 4, litigious: 1 });
  t.deepEqual(
    [
      statement.totals.outstanding.toNumber(),
      statement.totals.arrears.toNumber(),
      statement.totals.guaranteed.toNumber(),
    ],
    [1_900_000, 360_000, 100_000],
  );
  t.deepEqual(
    statement.loans.map((loan) => loan.loanNumber),
    ['L-1', 'L-2', 'L-4', 'L-3'],
  );

  const balances = rows({ 3221: 900_000, 3312: 500_000, 3352: 450_000, 3931: -250_000 });
  const agreement = ledgerAgreement(statement, balances, {
    performing: ['3221'],
    overdue: ['3312'],
    doubtful: ['3352'],
    provisions: ['3931'],
  });
  t.deepEqual(
    agreement.map((row) => [row.figure, row.ledger.toNumber(), row.agrees]),
    [
      ['performing', 900_000, true],
      ['overdue', 500_000, true],
      ['doubtful', 450_000, false],
      ['provisions', 250_000, true],
    ],
  );

  const document = arrearsStatementDocument(header, '2026-12-31', statement, agreement);
  const summary = [...(document.sheets[0]!.rows as Iterable<Record<string, string | null>>)];
  t.like(summary.at(-1), { classification: 'total', loans: '4', outstanding: '1900000', provisions: '250000' });
});

test(
  'a cooperative without net equity: every borrower over the limit, no share of nothing, and the document ' +
    'holds only decimal strings',
  (t) => {
    const loans = [
      loan({
        member: 'm1',
        memberNumber: 'M-1',
        outstanding: new Money(1_000_000),
        principalDueWithinThreeMonths: new Money(0),
      }),
    ];
    const report = prudentialRatios({
      balances: rows({ 3221: 1_000_000, 3711: -1_000_000 }),
      settings: defaultPrudentialSettings,
      ...loanFigures(loans),
    });
    const concentration = report.ratios.find((ratio) => ratio.code === 'concentration')!;
    t.like(concentration.borrowers![0], { memberNumber: 'M-1', ratio: null, exceeds: true });
    t.is(concentration.value, null);
    const cells = prudentialRatiosDocument(header, '2026-12-31', report).sheets.flatMap((sheet) =>
      [...(sheet.rows as Iterable<Record<string, string | null>>)].flatMap((row) => Object.values(row)),
    );
    t.false(cells.some((cell) => cell !== null && /Infinity|NaN/.test(cell)));
  },
);
