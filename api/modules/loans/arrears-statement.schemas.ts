import * as yup from 'yup';
import { reportScopeResponse } from '../report-query';
import { dateResponse, provisionalResponse } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

const classes = ['performing', 'overdue', 'doubtful'] as const;

const figures = {
  loans: yup.number().integer().required(),
  litigious: yup
    .number()
    .integer()
    .required()
    .meta({ description: 'Of which litigious (doubtful by R-2017/07 Art. 8).' }),
  outstanding: moneyResponse().meta({ description: 'Outstanding principal.' }),
  arrears: moneyResponse().meta({ description: 'Principal and interest due on or before the date and unpaid at it.' }),
  guaranteed: moneyResponse().meta({
    description:
      'The part of the outstanding principal the guarantees cover ' +
      "(the product's rules: pledged deposits, eligible guarantees).",
  }),
  provisions: moneyResponse(),
};

export const arrearsStatementSchema = yup
  .object({
    ...reportScopeResponse,
    date: dateResponse(),
    ...provisionalResponse,
    groups: yup
      .array(
        yup
          .object({
            classification: yup.string().oneOf(classes).required(),
            days_from: yup.number().integer().required(),
            days_to: yup
              .number()
              .integer()
              .nullable()
              .defined()
              .meta({ description: 'null: the open-ended last band.' }),
            ...figures,
          })
          .meta({ component: 'ArrearsStatementGroup' }),
      )
      .required()
      .meta({ description: 'By class then age band; only the groups holding loans.' }),
    by_class: yup
      .array(
        yup
          .object({ classification: yup.string().oneOf(classes).required(), ...figures })
          .meta({ component: 'ArrearsStatementClass' }),
      )
      .required(),
    totals: yup.object(figures).required(),
    ledger: yup
      .array(
        yup
          .object({
            figure: yup
              .string()
              .oneOf([...classes, 'provisions'] as const)
              .required(),
            ledger: moneyResponse().meta({
              description: "The accounts' balances at the date (provisions as a credit, positive).",
            }),
            statement: moneyResponse(),
            agrees: yup.boolean().required(),
            accounts: yup
              .array(
                yup
                  .object({ account: yup.string().required(), amount: moneyResponse() })
                  .meta({ component: 'ArrearsLedgerAccount' }),
              )
              .required(),
          })
          .meta({ component: 'ArrearsLedgerAgreement' }),
      )
      .required(),
    loans: yup
      .array(
        yup
          .object({
            loan: yup.string().uuid().required(),
            number: yup.string().required(),
            branch: yup.string().uuid().required(),
            member: yup.string().uuid().required(),
            member_number: yup.string().required(),
            member_name: yup.string().required(),
            classification: yup.string().oneOf(classes).required(),
            litigious: yup.boolean().required(),
            days_past_due: yup.number().integer().required(),
            outstanding: moneyResponse(),
            arrears: moneyResponse(),
            guaranteed: moneyResponse(),
            provisions: moneyResponse(),
          })
          .meta({ component: 'ArrearsStatementLoan' }),
      )
      .required(),
  })
  .meta({ component: 'ArrearsStatement' });
