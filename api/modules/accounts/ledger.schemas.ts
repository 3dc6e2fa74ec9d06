import * as yup from 'yup';
import { dateResponse, provisionalResponse, timestampResponse } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

/** Representations of the ledger reads: journal entries, movements of an account, balances. */

const uuid = () => yup.string().uuid().required();

export const journalEntrySchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    branch: uuid().nullable().meta({ description: 'null for an entry of the enterprise itself (no branch).' }),
    entry_date: dateResponse(),
    exercice: yup.string().required().meta({ description: 'The code of the accounting year the entry is in.' }),
    journal: yup.string().required().meta({ description: 'The code of its journal (GET /api/v1/accounts/journals/).' }),
    number: yup
      .number()
      .integer()
      .required()
      .meta({ description: 'Its number in its journal and year: 1, 2, 3… with no gap, given at posting.' }),
    reference: yup.string().required().meta({ description: 'Journal, year and number as printed (CAI-2026-000042).' }),
    description: yup.string().defined(),
    event: uuid().nullable().meta({ description: 'The business event it records; null for a manual entry.' }),
    rule_config: uuid().nullable().meta({ description: 'The version of the posting rule applied.' }),
    reverses_entry: uuid().nullable().meta({ description: 'The entry this one reverses (a replay or a correction).' }),
    created_at: timestampResponse(),
    lines: yup
      .array(
        yup
          .object({
            account: yup.string().required(),
            label: yup.string().required(),
            debit: moneyResponse(),
            credit: moneyResponse(),
          })
          .meta({ component: 'JournalLine' }),
      )
      .required(),
  })
  .meta({ component: 'JournalEntry' });

export const journalSchema = yup
  .object({
    code: yup.string().required(),
    name: yup.string().required(),
    event_kinds: yup
      .array(yup.string().required())
      .required()
      .meta({ description: 'The kinds of automatic posting whose entries it holds.' }),
  })
  .meta({ component: 'Journal' });

/** A line of an account's movements: its signed amount and the balance after it, in posting order. */
export const movementFields = {
  entry_date: dateResponse(),
  line: yup.string().required().matches(/^\d+$/).meta({ description: 'The journal line, in posting order.' }),
  amount: moneyResponse().meta({ description: 'Signed as the balance is.' }),
  running_balance: moneyResponse(),
};

export const accountMovementSchema = yup
  .object({
    entry: uuid(),
    description: yup.string().defined(),
    event: uuid().nullable(),
    debit: moneyResponse(),
    credit: moneyResponse(),
    ...movementFields,
  })
  .meta({ component: 'AccountMovement' });

const totalsOfAccount = {
  debit: moneyResponse(),
  credit: moneyResponse(),
  balance: moneyResponse().meta({ description: 'Debit minus credit.' }),
};

export const accountBalanceSchema = yup
  .object({
    account: yup.string().required(),
    label: yup.string().required(),
    date: dateResponse().nullable().meta({ description: 'null: every posting.' }),
    ...totalsOfAccount,
  })
  .meta({ component: 'AccountBalance' });

/** The six columns of the accountants' trial balance: a balance is a debit when positive, a credit when negative. */
const sixColumns = {
  opening_debit: moneyResponse(),
  opening_credit: moneyResponse().meta({
    description: 'The opening balance (à-nouveaux, earlier years carried while open, before `date_from`).',
  }),
  movement_debit: moneyResponse(),
  movement_credit: moneyResponse().meta({
    description: 'The movements from `date_from` to `date`, the opening entries left out.',
  }),
  closing_debit: moneyResponse(),
  closing_credit: moneyResponse().meta({ description: 'Opening plus movements.' }),
};

/** A parent account or class of the trial balance, with the sums of its accounts below. */
const trialBalanceGroupSchema = yup
  .object({
    code: yup.string().required(),
    label: yup.string().required(),
    class: yup.number().integer().required(),
    level: yup
      .number()
      .integer()
      .required()
      .meta({ description: '1 for a class, 2 for its two-digit groups, and so on down the chart.' }),
    ...totalsOfAccount,
  })
  .meta({ component: 'TrialBalanceGroup' });

export const trialBalanceSchema = yup
  .object({
    date: dateResponse().nullable(),
    date_from: dateResponse()
      .nullable()
      .meta({ description: 'First day of the movements; null without an accounting year.' }),
    ...provisionalResponse,
    accounts: yup
      .array(
        yup
          .object({
            code: yup.string().required(),
            label: yup.string().required(),
            class: yup.number().integer().required(),
            ...totalsOfAccount,
            ...sixColumns,
          })
          .meta({ component: 'TrialBalanceLine' }),
      )
      .required(),
    totals: yup
      .object({ debit: moneyResponse(), credit: moneyResponse(), balanced: yup.boolean().required(), ...sixColumns })
      .required(),
    groups: yup
      .array(trialBalanceGroupSchema)
      .required()
      .meta({ description: 'The accounts rolled up: every parent account and class of the accounts listed.' }),
  })
  .meta({ component: 'TrialBalance' });

const statementLineSchema = yup
  .object({
    code: yup.string().required(),
    label: yup.string().required(),
    amount: moneyResponse(),
    prior_amount: moneyResponse().meta({ description: 'The same line for the prior period.' }),
    accounts: yup
      .array(
        yup
          .object({ account: yup.string().required(), amount: moneyResponse() })
          .meta({ component: 'FinancialStatementAccount' }),
      )
      .required()
      .meta({ description: 'The accounts of the line in the period, each as the line counts it.' }),
  })
  .meta({ component: 'FinancialStatementLine' });

const statementScope = {
  enterprise: uuid(),
  branch: uuid()
    .nullable()
    .meta({ description: 'The branch asked for; null: consolidated (the branches the caller sees).' }),
};

/** The heading of a statement of a period: its scope, the period and the same dates a year earlier. */
const periodHeading = {
  ...statementScope,
  date_from: dateResponse(),
  date_to: dateResponse(),
  prior_date_from: dateResponse(),
  prior_date_to: dateResponse(),
};

export const balanceSheetSchema = yup
  .object({
    ...statementScope,
    date: dateResponse(),
    prior_date: dateResponse().meta({ description: 'The last day of the accounting year before.' }),
    ...provisionalResponse,
    assets: yup.array(statementLineSchema).required(),
    liabilities: yup.array(statementLineSchema).required(),
    totals: yup
      .object({
        assets: moneyResponse(),
        liabilities: moneyResponse(),
        prior_assets: moneyResponse(),
        prior_liabilities: moneyResponse(),
        balanced: yup.boolean().required(),
      })
      .required(),
  })
  .meta({ component: 'BalanceSheet' });

export const incomeStatementSchema = yup
  .object({
    ...periodHeading,
    expenses: yup.array(statementLineSchema).required(),
    income: yup.array(statementLineSchema).required(),
    totals: yup
      .object({
        expenses: moneyResponse(),
        income: moneyResponse(),
        result: moneyResponse(),
        prior_expenses: moneyResponse(),
        prior_income: moneyResponse(),
        prior_result: moneyResponse(),
      })
      .required(),
  })
  .meta({ component: 'IncomeStatement' });

export const intermediateBalancesSchema = yup
  .object({
    ...periodHeading,
    balances: yup.array(statementLineSchema).required().meta({
      description:
        "80 to 87 in order; an account's amount is its effect on the result (income +, expense −), 86 the tax itself.",
    }),
  })
  .meta({ component: 'IntermediateBalances' });

const offBalanceSectionSchema = yup
  .object({
    key: yup
      .string()
      .oneOf(['given', 'received', 'doubtful'] as const)
      .required(),
    label: yup.string().required(),
    total: moneyResponse(),
    accounts: yup
      .array(
        yup
          .object({ account: yup.string().required(), label: yup.string().required(), amount: moneyResponse() })
          .meta({ component: 'OffBalanceAccount' }),
      )
      .required()
      .meta({
        description:
          'The class 9 accounts of the section with a balance, each as the section reads it (a given ' +
          "engagement's debit, a received one's credit).",
      }),
  })
  .meta({ component: 'OffBalanceSection' });

export const offBalanceSchema = yup
  .object({
    ...statementScope,
    date: dateResponse(),
    ...provisionalResponse,
    sections: yup
      .array(offBalanceSectionSchema)
      .required()
      .meta({ description: 'Commitments given (90, 92, 941), received (91, 93, 942, 95, 96), doubtful (98).' }),
    balanced: yup
      .boolean()
      .required()
      .meta({ description: 'Class 9 nets to zero with its general counterparts (99).' }),
  })
  .meta({ component: 'OffBalanceStatement' });
