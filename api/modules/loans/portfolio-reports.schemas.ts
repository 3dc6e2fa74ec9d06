import * as yup from 'yup';
import { ladderPeriods, parThresholds } from '../../../domain/loans/portfolio-reports';
import { dateResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

const ratio = () =>
  yup.string().required().meta({
    description: 'A decimal with six places ("0.125000" = 12.5 %): outstanding at risk ÷ total outstanding.',
    example: '0.125000',
  });

const parFigures = {
  loans: yup.number().integer().required().meta({ description: 'Loans in the portfolio at the date.' }),
  outstanding: moneyResponse().meta({
    description: 'Their outstanding principal at the date: the principal of their installments unpaid then.',
  }),
  buckets: yup
    .array(
      yup
        .object({
          threshold: yup
            .number()
            .integer()
            .oneOf([...parThresholds])
            .required()
            .meta({ description: 'PAR n: the loans more than n days past due at the date.' }),
          loans: yup.number().integer().required(),
          outstanding: moneyResponse(),
          ratio: ratio(),
        })
        .meta({ component: 'ParBucket' }),
    )
    .required()
    .meta({ description: 'PAR 1, 30, 90, 180 and 365, in that order.' }),
};

const parGroup = yup
  .object({
    id: yup.string().uuid().required(),
    code: yup.string().required().meta({ description: "The product's or branch's code, the officer's username." }),
    name: yup.string().defined(),
    ...parFigures,
  })
  .meta({ component: 'ParGroup' });

export const portfolioAtRiskSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
    product: nullableId(),
    officer: nullableId(),
    date: dateResponse(),
    total: yup.object(parFigures).required().meta({ component: 'ParFigures' }),
    by_product: yup.array(parGroup).required(),
    by_branch: yup.array(parGroup).required(),
    by_officer: yup.array(parGroup).required().meta({ description: 'By loan officer at the date.' }),
  })
  .meta({ component: 'PortfolioAtRisk' });

const officerFigures = {
  loans: yup.number().integer().required().meta({ description: 'Loans in their portfolio at the end of the period.' }),
  outstanding: moneyResponse(),
  arrears: moneyResponse().meta({
    description: 'Principal and interest due by the end of the period and unpaid then.',
  }),
  par30_loans: yup.number().integer().required(),
  par30_outstanding: moneyResponse(),
  par30_ratio: ratio(),
  disbursed: moneyResponse().meta({ description: 'Principal of their loans disbursed over the period.' }),
  collected: moneyResponse().meta({
    description: 'Repayments of their loans over the period: principal, interest and penalties.',
  }),
};

export const officerPortfoliosSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
    from: dateResponse(),
    to: dateResponse(),
    officers: yup
      .array(
        yup
          .object({
            officer: yup.string().uuid().required(),
            username: yup.string().required(),
            name: yup.string().defined(),
            ...officerFigures,
          })
          .meta({ component: 'OfficerPortfolio' }),
      )
      .required()
      .meta({ description: 'By loan officer at the end of the period, by username.' }),
    total: yup.object(officerFigures).required(),
  })
  .meta({ component: 'OfficerPortfolios' });

export const maturityLadderSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
    date: dateResponse(),
    past_due: moneyResponse().meta({ description: 'Principal due on or before the date and unpaid at it.' }),
    periods: yup
      .array(
        yup
          .object({
            period: yup
              .string()
              .oneOf(ladderPeriods.map(({ key }) => key))
              .required()
              .meta({
                description:
                  'After the date: up to 1 month, 1–3 months, 3–6, ' +
                  '6–12, 1–2 years, 2–5, over 5 (upper bounds included).',
              }),
            principal: moneyResponse(),
          })
          .meta({ component: 'MaturityLadderPeriod' }),
      )
      .required(),
    within_three_months: moneyResponse().meta({
      description: 'The first two periods: what the liquidity ratio counts as loans falling due within three months.',
    }),
    total: moneyResponse().meta({ description: 'Past due and every period: the outstanding principal.' }),
  })
  .meta({ component: 'MaturityLadder' });
