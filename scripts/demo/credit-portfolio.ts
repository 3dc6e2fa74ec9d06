import type { Cooperative } from './cooperative';

/** What the loan officers' part of the demo shows, for the summary and the test. */
export interface CreditPortfolioOutcome {
  /** The doubtful loan the branch head took over from the teller who submitted it. */
  reassignedLoan: string;
  officer: string;
  /** PAR 30 of the whole portfolio at the business date: loans and ratio. */
  par30: { loans: number; ratio: string };
}

interface ParAnswer {
  total: { buckets: { threshold: number; loans: number; ratio: string }[] };
}

/**
 * Loan officers and the portfolio at risk (docs/domain.md §14.5): the Akwa branch head takes over the loan that
 * was never repaid from the teller who submitted it, with a reason, and direction reads the portfolio at risk.
 */
export async function showCreditPortfolio(
  cooperative: Cooperative,
  doubtfulLoan: string,
  date: string,
  log: (line: string) => void,
): Promise<CreditPortfolioOutcome> {
  const { branchHead, direction } = cooperative.staff;
  const officer = (await branchHead.session.get<{ id: string }>('who am I', '/api/v1/auth/users/me/')).id;
  await branchHead.session.post(
    `the branch head takes over loan ${doubtfulLoan}`,
    `/api/v1/loans/loans/${doubtfulLoan}/officer/`,
    { officer, reason: 'Recovery follow-up by the branch head' },
  );
  const par = await direction.session.get<ParAnswer>('read the portfolio at risk', '/api/v1/loans/portfolio-at-risk/', {
    enterprise: cooperative.enterpriseId,
    date,
  });
  const par30 = par.total.buckets.find((bucket) => bucket.threshold === 30)!;
  log(
    `${date}: the branch head follows the doubtful loan; PAR 30 is ${par30.loans} loan(s), ${par30.ratio} of the ` +
      `portfolio`,
  );
  return { reassignedLoan: doubtfulLoan, officer, par30: { loans: par30.loans, ratio: par30.ratio } };
}
