import type { JournalLine } from '../events/journal';
import { Money, toFrancs } from '../money';
import type { BranchEntry } from './year-end-closing';
import type { ErrorCode } from '../error-catalogue';

/**
 * The allocation of a closed year's result by the general assembly (docs/domain.md §7; AUSCOOP Arts 113–116).
 * The result waits in 131 (profit) or 132 (loss), carried into the next year by the closing; the assembly's
 * decision empties it into reserves, amounts owed to members and the report à nouveau, in one entry per branch
 * holding a share of it.
 */

/** What the assembly decides, each an amount in whole francs (zero: nothing to that destination). */
export const allocationFields = [
  'prior_losses',
  'general_reserve',
  'training_reserve',
  'statutory_reserves',
  'optional_reserves',
  'ristournes',
  'share_interest',
  'solidarity_fund',
  'retained_earnings',
] as const;
export type AllocationField = (typeof allocationFields)[number];
export type AllocationAmounts = Record<AllocationField, Money>;

/** The reserves, which may also absorb a loss. */
const reserveFields = ['general_reserve', 'training_reserve', 'statutory_reserves', 'optional_reserves'] as const;
type ReserveField = (typeof reserveFields)[number];

/**
 * PCEMF accounts of each destination. The general reserve of AUSCOOP is the legal reserve (111), its training
 * and education reserve the other compulsory one (112); ristournes and interest on shares are owed to the
 * members (444 ristournes à verser, and 443 dividendes à payer by analogy), outside the network (leaf 00).
 */
const accountOf: Record<AllocationField, { profit: string; loss: string | null }> = {
  prior_losses: { profit: '122', loss: null },
  general_reserve: { profit: '111', loss: '111' },
  training_reserve: { profit: '112', loss: '112' },
  statutory_reserves: { profit: '113', loss: '113' },
  optional_reserves: { profit: '114', loss: '114' },
  ristournes: { profit: '44400', loss: null },
  share_interest: { profit: '44300', loss: null },
  solidarity_fund: { profit: '160', loss: null },
  retained_earnings: { profit: '121', loss: '122' },
};

/** The enterprise's percentages and caps (configuration, docs/domain.md §7), rates from 0 to 1. */
export interface AllocationPolicy {
  generalReserveRateMin: Money;
  trainingReserveRateMin: Money;
  optionalReservesRateMax: Money;
  shareInterestRateMax: Money;
  /**
   * Whether a profit first clears the report à nouveau débiteur (122) before the reserves take their share and
   * anything is paid to members: AUSCOOP is silent on prior losses [NOT FOUND]; the default follows the OHADA
   * pattern (AUSCGIE Arts 143, 346: "le bénéfice de l'exercice diminué des pertes antérieures").
   */
  absorbPriorLossesFirst: boolean;
}

/**
 * AUSCOOP: each of the two compulsory reserves takes 20 % of the surplus at least, optional reserves 20 % at most.
 * Interest on shares: at most the central bank's rate (AUSCOOP Art. 209 for the simplified cooperative; no article
 * was found for the cooperative with a board): BEAC's TIAO, 4.75 % since December 2025, which the enterprise
 * updates when BEAC changes it.
 */
export const defaultAllocationPolicy = (): AllocationPolicy => ({
  generalReserveRateMin: new Money('0.2'),
  trainingReserveRateMin: new Money('0.2'),
  optionalReservesRateMax: new Money('0.2'),
  shareInterestRateMax: new Money('0.0475'),
  absorbPriorLossesFirst: true,
});

/** What the rules read at the assembly's date: credit balances (credit minus debit) of the reserves and the capital. */
export interface AllocationFacts {
  /** The closed year's result: positive a profit, negative a loss. */
  result: Money;
  reserves: Record<ReserveField, Money>;
  /** The statutory capital: the share capital the members subscribed (account 100, paid or not). */
  subscribedCapital: Money;
  /** The paid-up share capital (account 1000), on which interest may be paid. */
  paidUpCapital: Money;
  /**
   * The report à nouveau débiteur: the debit balance of 122 (zero when none), the losses of earlier years still
   * carried.
   */
  priorLosses: Money;
  policy: AllocationPolicy;
}

export interface AllocationProblem {
  field: AllocationField;
  code: ErrorCode;
  message: string;
}

const zero = new Money(0);

/**
 * The least a compulsory reserve must take: its rate of the surplus (rounded up to the franc: "at least"), but no
 * more than brings the reserve up to the statutory capital; nothing once it has reached it.
 */
export function reserveFloor(rate: Money, surplus: Money, reserve: Money, capital: Money): Money {
  const share = surplus.times(rate).toDecimalPlaces(0, Money.ROUND_CEIL);
  return Money.max(zero, Money.min(share, capital.minus(reserve)));
}

/** The most a capped destination may take: its rate of the base, rounded down to the franc ("at most"). */
const capOf = (rate: Money, base: Money): Money =>
  Money.max(zero, base.times(rate).toDecimalPlaces(0, Money.ROUND_FLOOR));

/** What a profit must clear of the prior losses first (all it can, when the policy says so), and what it may. */
function priorLossProblems(amounts: AllocationAmounts, facts: AllocationFacts): AllocationProblem[] {
  const cleared = amounts.prior_losses;
  if (cleared.gt(facts.priorLosses)) {
    return [
      {
        field: 'prior_losses',
        code: 'prior_losses_above_balance',
        message:
          `prior_losses must be at most ${toFrancs(facts.priorLosses, Money.ROUND_HALF_UP)}, ` +
          `what the report à nouveau débiteur holds.`,
      },
    ];
  }
  const due = Money.min(facts.result, facts.priorLosses);
  if (facts.policy.absorbPriorLossesFirst && !cleared.eq(due)) {
    return [
      {
        field: 'prior_losses',
        code: 'prior_losses_first',
        message:
          `prior_losses must be ${toFrancs(due, Money.ROUND_HALF_UP)}: ` +
          `a profit first clears the report à nouveau débiteur.`,
      },
    ];
  }
  if (facts.priorLosses.gt(cleared)) {
    return (['ristournes', 'share_interest'] as const)
      .filter((field) => !amounts[field].isZero())
      .map((field) => ({
        field,
        code: 'prior_losses_not_cleared',
        message:
          `${field} must be 0 while ${toFrancs(facts.priorLosses.minus(cleared), Money.ROUND_HALF_UP)} of ` +
          `prior losses remain in the report à nouveau débiteur.`,
      }));
  }
  return [];
}

function profitProblems(amounts: AllocationAmounts, facts: AllocationFacts): AllocationProblem[] {
  const { policy } = facts;
  const problems = priorLossProblems(amounts, facts);
  // The net surplus on which the reserves' shares are taken: the profit less the prior losses it clears.
  const surplus = facts.result.minus(amounts.prior_losses);
  const floors = [
    [
      'general_reserve',
      reserveFloor(policy.generalReserveRateMin, surplus, facts.reserves.general_reserve, facts.subscribedCapital),
    ],
    [
      'training_reserve',
      reserveFloor(policy.trainingReserveRateMin, surplus, facts.reserves.training_reserve, facts.subscribedCapital),
    ],
  ] as const;
  for (const [field, floor] of floors) {
    if (amounts[field].lt(floor))
      problems.push({
        field,
        code: 'reserve_floor_not_met',
        message:
          `${field} must be at least ${toFrancs(floor, Money.ROUND_HALF_UP)} (its share of the surplus, ` +
          `until the reserve equals the statutory capital).`,
      });
  }
  const optionalMax = capOf(policy.optionalReservesRateMax, surplus);
  if (amounts.optional_reserves.gt(optionalMax))
    problems.push({
      field: 'optional_reserves',
      code: 'optional_reserves_above_cap',
      message: `optional_reserves must be at most ${toFrancs(optionalMax, Money.ROUND_HALF_UP)}.`,
    });
  const interestMax = capOf(policy.shareInterestRateMax, facts.paidUpCapital);
  if (amounts.share_interest.gt(interestMax)) {
    problems.push({
      field: 'share_interest',
      code: 'share_interest_above_cap',
      message:
        `share_interest must be at most ${toFrancs(interestMax, Money.ROUND_HALF_UP)} (the cap rate on the ` +
        `paid-up capital of ${toFrancs(facts.paidUpCapital, Money.ROUND_HALF_UP)}).`,
    });
  }
  return problems;
}

function lossProblems(amounts: AllocationAmounts, facts: AllocationFacts): AllocationProblem[] {
  const problems: AllocationProblem[] = [];
  for (const field of ['prior_losses', 'ristournes', 'share_interest', 'solidarity_fund'] as const) {
    if (!amounts[field].isZero())
      problems.push({ field, code: 'nothing_to_distribute', message: `${field} must be 0: the year made a loss.` });
  }
  for (const field of reserveFields) {
    const held = facts.reserves[field];
    if (amounts[field].gt(held))
      problems.push({
        field,
        code: 'reserve_insufficient',
        message:
          `${field} must be at most ${toFrancs(Money.max(zero, held), Money.ROUND_HALF_UP)}, ` +
          `what the reserve holds.`,
      });
  }
  return problems;
}

/**
 * What is wrong with the assembly's decision, field by field (empty: it may be posted). The amounts add up to the
 * result exactly (the remainder is the report à nouveau's); a profit clears the prior losses first (by policy), then
 * meets the floors and caps on what remains, a loss is charged to the report à nouveau débiteur or to reserves that
 * hold enough.
 */
export function allocationProblems(amounts: AllocationAmounts, facts: AllocationFacts): AllocationProblem[] {
  if (facts.result.isZero())
    return [
      {
        field: 'retained_earnings',
        code: 'no_result_to_allocate',
        message: "The year's result is zero: there is nothing to allocate.",
      },
    ];
  const magnitude = facts.result.abs();
  const problems = facts.result.isPositive() ? profitProblems(amounts, facts) : lossProblems(amounts, facts);
  const total = allocationFields.reduce((sum, field) => sum.plus(amounts[field]), zero);
  if (!total.eq(magnitude)) {
    problems.push({
      field: 'retained_earnings',
      code: 'allocation_not_equal_to_result',
      message:
        `The amounts add up to ${toFrancs(total, Money.ROUND_HALF_UP)}, ` +
        `the result to allocate is ${toFrancs(magnitude, Money.ROUND_HALF_UP)}: retained_earnings takes the remainder.`,
    });
  }
  return problems;
}

/** The destinations with an amount, as (account, amount), in the fields' order. */
export function allocationLines(amounts: AllocationAmounts, result: Money): { account: string; amount: Money }[] {
  const side = result.isPositive() ? 'profit' : 'loss';
  return allocationFields
    .filter((field) => !amounts[field].isZero())
    .map((field) => {
      const account = accountOf[field][side];
      if (account === null) throw new Error(`${field} cannot take a loss`);
      return { account, amount: amounts[field] };
    });
}

/** A branch's balance (debit minus credit) of the result account. */
export interface BranchResult {
  branchId: string | null;
  balance: Money;
}

const signedLine = (account: string, signed: Money): JournalLine => ({
  account,
  debit: signed.isPositive() ? signed : zero,
  credit: signed.isNegative() ? signed.abs() : zero,
});

/**
 * The entries, one per branch holding part of the result: the branch's result account back to zero against its
 * share of each destination, pro rata its share of the result, rounded half-up to the franc. Each branch's last
 * destination takes what balances its entry, and the last branch what the others left of each destination, so the
 * entries add up to the decision exactly (the two remainders agree: both totals are the result).
 */
export function allocationEntries(
  resultAccount: string,
  branches: readonly BranchResult[],
  lines: readonly { account: string; amount: Money }[],
): BranchEntry[] {
  const held = branches.filter((branch) => !branch.balance.isZero());
  const total = held.reduce((sum, branch) => sum.plus(branch.balance), zero);
  if (total.isZero() || lines.length === 0) throw new Error('nothing to allocate');
  // A profit is a credit of 131 (total < 0) and credits the destinations; a loss a debit of 132 and debits them.
  const sign = total.isNegative() ? -1 : 1;
  const given = lines.map(() => zero);
  return held.map((branch, index) => {
    const shares =
      index === held.length - 1
        ? lines.map((line, column) => line.amount.minus(given[column]!))
        : branchShares(lines, branch.balance.times(sign), branch.balance.div(total));
    shares.forEach((share, column) => (given[column] = given[column]!.plus(share)));
    const destinationLines = lines.map((line, column) => signedLine(line.account, shares[column]!.times(sign)));
    const entryLines = [signedLine(resultAccount, branch.balance.negated()), ...destinationLines];
    return {
      branchId: branch.branchId,
      lines: entryLines.filter((line) => !line.debit.isZero() || !line.credit.isZero()),
    };
  });
}

/** A branch's share of each destination (`weight` of it), the last taking what makes them add up to `branchTotal`. */
function branchShares(lines: readonly { amount: Money }[], branchTotal: Money, weight: Money): Money[] {
  const shares = lines.slice(0, -1).map((line) => line.amount.times(weight).toDecimalPlaces(0, Money.ROUND_HALF_UP));
  return [...shares, branchTotal.minus(shares.reduce((sum, share) => sum.plus(share), zero))];
}
