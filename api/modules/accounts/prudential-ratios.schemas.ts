import * as yup from 'yup';
import { riskWeightKeys, thresholdKeys } from '../../../domain/accounts/prudential-settings';
import { reportScopeResponse } from '../report-query';
import { dateResponse, provisionalResponse } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

const uuid = () => yup.string().uuid().required();
const ratioValue = () =>
  yup.string().nullable().defined().meta({
    description: 'A decimal (0.153 = 15.3 %), 6 decimals rounded down; null when the denominator is zero.',
    example: '0.153000',
  });

const partSchema = yup
  .object({
    key: yup.string().required(),
    label: yup.string().required(),
    rate: yup.string().required().meta({ description: 'The rate or weight the accounts count at.', example: '0.5' }),
    amount: moneyResponse().meta({ description: "Rate × the accounts' sum, to the franc; negative when deducted." }),
    accounts: yup
      .array(
        yup
          .object({ account: yup.string().required(), amount: moneyResponse() })
          .meta({ component: 'PrudentialPartAccount' }),
      )
      .required()
      .meta({
        description: "The accounts read at the date (empty for a figure from the loans' schedules or exposures).",
      }),
  })
  .meta({ component: 'PrudentialRatioPart' });

const borrowerSchema = yup
  .object({
    member: uuid(),
    member_number: yup.string().required(),
    name: yup.string().required(),
    related_party: yup.boolean().required(),
    outstanding: moneyResponse(),
    provisions: moneyResponse(),
    exposure: moneyResponse().meta({ description: 'Outstanding principal net of provisions.' }),
    ratio: ratioValue().meta({ description: 'exposure ÷ net equity.' }),
    exceeds: yup.boolean().required().meta({ description: "Above the ratio's limit on its own." }),
  })
  .meta({ component: 'PrudentialBorrowerExposure' });

const ratioSchema = yup
  .object({
    code: yup
      .string()
      .oneOf(['solvency', 'liquidity', 'fixed_asset_coverage', 'concentration', 'insiders'] as const)
      .required(),
    label: yup.string().required(),
    numerator: moneyResponse(),
    denominator: moneyResponse(),
    value: ratioValue(),
    threshold: yup.string().required().meta({ description: "From the enterprise's prudential settings." }),
    comparison: yup
      .string()
      .oneOf(['at_least', 'at_most'] as const)
      .required(),
    met: yup.boolean().required().meta({ description: 'Compared exactly: numerator against threshold × denominator.' }),
    cobac_emf_norm: yup
      .boolean()
      .required()
      .meta({ description: 'false: a bank norm shown for information, no COBAC EMF figure was found.' }),
    source: yup.string().required(),
    numerator_parts: yup.array(partSchema).required(),
    denominator_parts: yup.array(partSchema).required(),
    borrowers: yup
      .array(borrowerSchema)
      .optional()
      .meta({
        description:
          'Concentration: the 10 largest exposures and every one above the limit, largest first; insiders: ' +
          'every related party with an exposure.',
      }),
  })
  .meta({ component: 'PrudentialRatio' });

const settingsInForce = yup
  .object({
    ...Object.fromEntries(thresholdKeys.map((key) => [key, yup.string().required()])),
    risk_weights: yup
      .object(Object.fromEntries(riskWeightKeys.map((key) => [key, yup.string().required()])))
      .required(),
  })
  .meta({ component: 'PrudentialSettingsInForce' });

export const prudentialRatiosSchema = yup
  .object({
    ...reportScopeResponse,
    date: dateResponse(),
    ...provisionalResponse,
    settings: settingsInForce.required(),
    net_equity: yup
      .object({ amount: moneyResponse(), source: yup.string().required(), parts: yup.array(partSchema).required() })
      .required(),
    ratios: yup.array(ratioSchema).required(),
    credit_caps: yup
      .object({
        paid_up_capital: moneyResponse().meta({ description: 'Paid-up shares (1000) at the date.' }),
        share_capital_limit: moneyResponse().meta({
          description: "10 % of it: one client's outstanding credit at most (R-2017/08 Art. 2 §1).",
        }),
        related_party_limit: moneyResponse().meta({
          description: 'Credit to a director, manager or employee at most (R-2017/08 Art. 2 §2).',
        }),
        breaches: yup
          .array(
            yup
              .object({
                member: uuid(),
                member_number: yup.string().required(),
                name: yup.string().required(),
                code: yup
                  .string()
                  .oneOf(['cap_share_capital', 'cap_related_party'] as const)
                  .required(),
                limit: moneyResponse(),
                outstanding: moneyResponse(),
              })
              .meta({ component: 'CreditCapBreachAtDate' }),
          )
          .required(),
      })
      .required(),
  })
  .meta({ component: 'PrudentialRatios' });
