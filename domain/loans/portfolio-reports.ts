import { Money } from '../money';

/**
 * The portfolio reports of issue 30 (docs/domain.md §14.5): portfolio at risk, the officers' portfolios and the
 * maturity ladder, computed from each loan's figures at a date. Pure: activities/loans/portfolio-reports.ts reads
 * the figures.
 */

/** The PAR thresholds every microfinance board reads: a loan is in PAR n when its days past due exceed n. */
export const parThresholds = [1, 30, 90, 180, 365] as const;

/** The maturity ladder's periods, by months after the date (upper bound included; null: open-ended). */
export const ladderPeriods = [
  { key: 'up_to_1_month', months: 1 },
  { key: 'from_1_to_3_months', months: 3 },
  { key: 'from_3_to_6_months', months: 6 },
  { key: 'from_6_to_12_months', months: 12 },
  { key: 'from_1_to_2_years', months: 24 },
  { key: 'from_2_to_5_years', months: 60 },
  { key: 'over_5_years', months: null },
] as const;
export type LadderPeriod = (typeof ladderPeriods)[number]['key'];

export interface Named {
  id: string;
  /** The product's or branch's code, the officer's username. */
  code: string;
  name: string;
}

/** One loan at a date. */
export interface PortfolioLoan {
  loan: string;
  loanNumber: string;
  branch: Named;
  product: Named;
  /** Its loan officer at the date (the reassignments made after it undone). */
  officer: Named;
  /** In the portfolio at the date: disbursed by then, neither closed nor written off by then. */
  inPortfolio: boolean;
  /** Age of the oldest installment unpaid at the date and due before it (the provisioning run's rule); 0 when none. */
  daysPastDue: number;
  /** Principal of its installments unpaid at the date. */
  outstanding: Money;
  /** Principal and interest due on or before the date and unpaid at it. */
  arrears: Money;
  /** Principal due on or before the date, unpaid at it. */
  principalPastDue: Money;
  /** Principal unpaid at the date falling due in each period after it. */
  principalFallingDue: Record<LadderPeriod, Money>;
  /** Principal disbursed in the period asked for (the officers' portfolio); zero otherwise. */
  disbursed: Money;
  /** What the borrower paid in the period asked for: principal, interest and penalties. */
  collected: Money;
}

const zero = new Money(0);
const sum = (amounts: readonly Money[]) => amounts.reduce((total, amount) => total.plus(amount), zero);

/** outstanding at risk ÷ total outstanding, six decimals rounded half-up; zero for an empty portfolio. */
const parRatio = (atRisk: Money, total: Money): Money =>
  total.isZero() ? zero : atRisk.div(total).toDecimalPlaces(6, Money.ROUND_HALF_UP);

export interface ParBucket {
  threshold: (typeof parThresholds)[number];
  loans: number;
  outstanding: Money;
  ratio: Money;
}

export interface ParFigures {
  loans: number;
  outstanding: Money;
  buckets: ParBucket[];
}

/** PAR 1 to 365 of a set of loans of the portfolio, by count and outstanding principal, with the ratio of each. */
function parFigures(loans: readonly PortfolioLoan[]): ParFigures {
  const outstanding = sum(loans.map((loan) => loan.outstanding));
  const buckets = parThresholds.map((threshold) => {
    const late = loans.filter((loan) => loan.daysPastDue > threshold);
    const atRisk = sum(late.map((loan) => loan.outstanding));
    return { threshold, loans: late.length, outstanding: atRisk, ratio: parRatio(atRisk, outstanding) };
  });
  return { loans: loans.length, outstanding, buckets };
}

/** The groups of `loans` by a key, ordered by code. */
function groupsOf(
  loans: readonly PortfolioLoan[],
  key: (loan: PortfolioLoan) => Named,
): { group: Named; loans: PortfolioLoan[] }[] {
  const groups = new Map<string, { group: Named; loans: PortfolioLoan[] }>();
  for (const loan of loans) {
    const group = key(loan);
    const found = groups.get(group.id) ?? { group, loans: [] };
    found.loans.push(loan);
    groups.set(group.id, found);
  }
  return [...groups.values()].sort(
    (a, b) => a.group.code.localeCompare(b.group.code) || a.group.id.localeCompare(b.group.id),
  );
}

export type ParGrouping = 'product' | 'branch' | 'officer';

export interface PortfolioAtRisk {
  total: ParFigures;
  groups: Record<ParGrouping, { group: Named; figures: ParFigures }[]>;
}

/** The portfolio at risk at a date: the whole, and per product, branch and loan officer. */
export function portfolioAtRisk(loans: readonly PortfolioLoan[]): PortfolioAtRisk {
  const portfolio = loans.filter((loan) => loan.inPortfolio);
  const by = (grouping: ParGrouping) =>
    groupsOf(portfolio, (loan) => loan[grouping]).map(({ group, loans: members }) => ({
      group,
      figures: parFigures(members),
    }));
  return {
    total: parFigures(portfolio),
    groups: { product: by('product'), branch: by('branch'), officer: by('officer') },
  };
}

export interface OfficerPortfolio {
  officer: Named;
  loans: number;
  outstanding: Money;
  arrears: Money;
  par30: { loans: number; outstanding: Money; ratio: Money };
  disbursed: Money;
  collected: Money;
}

/** Each officer's portfolio at the end of a period, and what they disbursed and collected over it. */
export function officerPortfolios(loans: readonly PortfolioLoan[]): {
  officers: OfficerPortfolio[];
  total: Omit<OfficerPortfolio, 'officer'>;
} {
  const figures = (members: readonly PortfolioLoan[]) => {
    const portfolio = members.filter((loan) => loan.inPortfolio);
    const outstanding = sum(portfolio.map((loan) => loan.outstanding));
    const late = portfolio.filter((loan) => loan.daysPastDue > 30);
    const atRisk = sum(late.map((loan) => loan.outstanding));
    return {
      loans: portfolio.length,
      outstanding,
      arrears: sum(portfolio.map((loan) => loan.arrears)),
      par30: { loans: late.length, outstanding: atRisk, ratio: parRatio(atRisk, outstanding) },
      disbursed: sum(members.map((loan) => loan.disbursed)),
      collected: sum(members.map((loan) => loan.collected)),
    };
  };
  return {
    officers: groupsOf(loans, (loan) => loan.officer).map(({ group, loans: members }) => ({
      officer: group,
      ...figures(members),
    })),
    total: figures(loans),
  };
}

export interface MaturityLadder {
  pastDue: Money;
  periods: { period: LadderPeriod; principal: Money }[];
  /** Falling due within three months: what the liquidity ratio reads (loansAt's principalDueWithinThreeMonths). */
  withinThreeMonths: Money;
  /** Past due and every period: the outstanding principal. */
  total: Money;
}

/** The principal of the portfolio falling due by period after the date, and what is past due. */
export function maturityLadder(loans: readonly PortfolioLoan[]): MaturityLadder {
  const portfolio = loans.filter((loan) => loan.inPortfolio);
  const periods = ladderPeriods.map(({ key }) => ({
    period: key,
    principal: sum(portfolio.map((loan) => loan.principalFallingDue[key])),
  }));
  const pastDue = sum(portfolio.map((loan) => loan.principalPastDue));
  return {
    pastDue,
    periods,
    withinThreeMonths: periods[0]!.principal.plus(periods[1]!.principal),
    total: pastDue.plus(sum(periods.map((row) => row.principal))),
  };
}
