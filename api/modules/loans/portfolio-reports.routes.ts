import type { Knex } from 'knex';
import * as yup from 'yup';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { assertReportDate, portfolioLoans } from '../../../activities/loans/portfolio-reports';
import {
  maturityLadder,
  officerPortfolios,
  portfolioAtRisk,
  type OfficerPortfolio,
  type ParFigures,
} from '../../../domain/loans/portfolio-reports';
import {
  maturityLadderDocument,
  officerPortfoliosDocument,
  portfolioAtRiskDocument,
} from '../../../domain/loans/portfolio-reports.document';
import { formatAmount } from '../../../domain/money';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { isoDate } from '../common.schemas';
import { branchesOf } from './arrears-statement.routes';
import { maturityLadderSchema, officerPortfoliosSchema, portfolioAtRiskSchema } from './portfolio-reports.schemas';

const branchParameter = yup
  .string()
  .uuid()
  .optional()
  .meta({ description: 'One branch; default: consolidated over the branches the caller sees.' });

const headingOf = (
  deps: { knex: Knex; clock: () => Date },
  query: { enterprise: string; branch?: string | undefined },
) => reportHeading(deps.knex, { enterpriseId: query.enterprise, branch: query.branch ?? null }, deps.clock());

const parAnswer = (figures: ParFigures) => ({
  loans: figures.loans,
  outstanding: formatAmount(figures.outstanding),
  buckets: figures.buckets.map((bucket) => ({
    threshold: bucket.threshold,
    loans: bucket.loans,
    outstanding: formatAmount(bucket.outstanding),
    ratio: bucket.ratio.toFixed(6),
  })),
});

const officerAnswer = (row: Omit<OfficerPortfolio, 'officer'>) => ({
  loans: row.loans,
  outstanding: formatAmount(row.outstanding),
  arrears: formatAmount(row.arrears),
  par30_loans: row.par30.loans,
  par30_outstanding: formatAmount(row.par30.outstanding),
  par30_ratio: row.par30.ratio.toFixed(6),
  disbursed: formatAmount(row.disbursed),
  collected: formatAmount(row.collected),
});

/**
 * The portfolio reports (docs/domain.md §14.5): portfolio at risk, the loan officers' portfolios, the maturity ladder.
 */
export const portfolioReportRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/portfolio-at-risk/',
    module: 'loans',
    operationId: 'getPortfolioAtRisk',
    summary:
      'Portfolio at risk at a date: PAR 1, 30, 90, 180 and 365 by count and outstanding ' +
      'principal, with the ratio; the whole and per product, branch and loan officer',
    description:
      'A loan is in PAR n when its oldest installment unpaid at the date, due before ' +
      "it, is more than n days late then (the provisioning run's days past due, " +
      'computed at the date). Outstanding: the principal of its installments ' +
      'unpaid at the date. The date may not be after the business date.',
    access: 'authenticated',
    query: yup.object({
      enterprise: yup.string().uuid().required(),
      date: isoDate().required(),
      branch: branchParameter,
      product: yup.string().uuid().optional(),
      officer: yup.string().uuid().optional().meta({ description: 'The loans this user followed at the date.' }),
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 404],
    response: portfolioAtRiskSchema,
    handler: async ({ query, principal, deps, ctx }) => {
      const scope = {
        enterpriseId: query.enterprise,
        branches: await branchesOf(deps.knex, principal, query.enterprise, query.branch),
        asOf: query.date,
      };
      await assertReportDate(deps.knex, deps.clock(), query.enterprise, query.date, 'date');
      const filters = {
        ...(query.product === undefined ? {} : { product: query.product }),
        ...(query.officer === undefined ? {} : { officer: query.officer }),
      };
      const par = portfolioAtRisk(await portfolioLoans(deps.knex, { ...scope, ...filters }));
      const grouped = (grouping: keyof typeof par.groups) =>
        par.groups[grouping].map(({ group, figures }) => ({ ...group, ...parAnswer(figures) }));
      const answer = {
        enterprise: query.enterprise,
        branch: query.branch ?? null,
        product: query.product ?? null,
        officer: query.officer ?? null,
        date: query.date,
        total: parAnswer(par.total),
        by_product: grouped('product'),
        by_branch: grouped('branch'),
        by_officer: grouped('officer'),
      };
      const document = async () => portfolioAtRiskDocument(await headingOf(deps, query), answer);
      return answerReport(ctx, query.format, answer, { report: 'portfolio-at-risk', document });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/officer-portfolios/',
    module: 'loans',
    operationId: 'getOfficerPortfolios',
    summary:
      "Each loan officer's portfolio: loans, outstanding, arrears and PAR " +
      '30 at the end of the period; disbursements and collections over it',
    description: 'A loan counts for its officer at the end of the period. `to` may not be after the business date.',
    access: 'authenticated',
    query: yup.object({
      enterprise: yup.string().uuid().required(),
      from: isoDate().required(),
      to: isoDate().required(),
      branch: branchParameter,
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 404],
    response: officerPortfoliosSchema,
    handler: async ({ query, principal, deps, ctx }) => {
      const branches = await branchesOf(deps.knex, principal, query.enterprise, query.branch);
      await assertReportDate(deps.knex, deps.clock(), query.enterprise, query.to, 'to', query.from);
      const period = { from: query.from, to: query.to };
      const portfolios = officerPortfolios(
        await portfolioLoans(deps.knex, { enterpriseId: query.enterprise, branches, asOf: query.to, period }),
      );
      const answer = {
        enterprise: query.enterprise,
        branch: query.branch ?? null,
        from: query.from,
        to: query.to,
        officers: portfolios.officers.map((row) => ({
          officer: row.officer.id,
          username: row.officer.code,
          name: row.officer.name,
          ...officerAnswer(row),
        })),
        total: officerAnswer(portfolios.total),
      };
      const document = async () => officerPortfoliosDocument(await headingOf(deps, query), answer);
      return answerReport(ctx, query.format, answer, { report: 'officer-portfolios', document });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/maturity-ladder/',
    module: 'loans',
    operationId: 'getMaturityLadder',
    summary:
      'Maturity ladder of the portfolio at a date: principal ' +
      'past due and falling due by period (≤ 1 month to > 5 years)',
    description:
      'From the installments unpaid at the date. `within_three_months` is what ' +
      'the liquidity ratio counts as loans falling due within three months.',
    access: 'authenticated',
    query: yup.object({
      enterprise: yup.string().uuid().required(),
      date: isoDate().required(),
      branch: branchParameter,
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 404],
    response: maturityLadderSchema,
    handler: async ({ query, principal, deps, ctx }) => {
      const branches = await branchesOf(deps.knex, principal, query.enterprise, query.branch);
      await assertReportDate(deps.knex, deps.clock(), query.enterprise, query.date, 'date');
      const ladder = maturityLadder(
        await portfolioLoans(deps.knex, { enterpriseId: query.enterprise, branches, asOf: query.date }),
      );
      const answer = {
        enterprise: query.enterprise,
        branch: query.branch ?? null,
        date: query.date,
        past_due: formatAmount(ladder.pastDue),
        periods: ladder.periods.map((row) => ({ period: row.period, principal: formatAmount(row.principal) })),
        within_three_months: formatAmount(ladder.withinThreeMonths),
        total: formatAmount(ladder.total),
      };
      const document = async () => maturityLadderDocument(await headingOf(deps, query), answer);
      return answerReport(ctx, query.format, answer, { report: 'maturity-ladder', document });
    },
  }),
];
