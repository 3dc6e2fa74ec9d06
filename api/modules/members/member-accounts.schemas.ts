import * as yup from 'yup';
import type { EarlyClosureRow } from '../../../activities/members/early-closure.activity';
import type { AccountWithHolds } from '../../../activities/members/member-accounts.queries';
import { availableBalance } from '../../../domain/members/overdraft';
import { formatAmount, Money } from '../../../domain/money';
import { dateResponse, timestampResponse, nullableId } from '../common.schemas';
import { movementFields } from '../accounts/ledger.schemas';
import { moneyResponse } from '../money.schemas';

/** Representations of members' accounts (CompteClient) and of the cash that moves on them. */

const uuid = () => yup.string().uuid().required();

export const cashOperationSchema = yup
  .object({
    id: uuid().meta({ description: 'The business event that records the operation.' }),
    kind: yup
      .string()
      .oneOf(['deposit', 'withdrawal'] as const)
      .required(),
    account: uuid(),
    amount: moneyResponse(),
    channel: yup.string().required(),
    reference: yup.string().defined(),
    balance_after: moneyResponse(),
    business_date: dateResponse(),
    journal_entry: uuid().nullable(),
    recorded_at: timestampResponse(),
    // Issue 29 (docs/domain.md §13.2): present when the operator's till in session has a cash limit.
    till_over_limit: yup.boolean().optional().meta({
      description:
        "true: the operator's till now holds more than its cash limit: hand cash to the vault (a dégagement).",
    }),
    till_cash_limit: yup
      .string()
      .matches(/^\d+$/)
      .optional()
      .meta({ description: "The till's cash limit, whole francs." }),
  })
  .meta({ component: 'CashOperation' });

const accountFields = {
  id: uuid(),
  enterprise: uuid(),
  branch: uuid(),
  client: uuid(),
  product: uuid(),
  number: yup.string().required(),
  status: yup
    .string()
    .oneOf(['open', 'frozen', 'closed'] as const)
    .required(),
  balance: moneyResponse(),
  held_amount: moneyResponse().meta({
    description:
      'What pledged deposits hold on the account (guarantees of loans still running): ' +
      'no debit takes the balance below it.',
  }),
  available_balance: moneyResponse().meta({
    description:
      "What the member may take: the balance less the product's minimum balance and the held amount, never below zero.",
  }),
  opened_on: dateResponse(),
  closed_on: dateResponse().nullable(),
  maturity_date: dateResponse()
    .nullable()
    .meta({ description: 'Term deposits: the day capital and interest go to the payout account.' }),
  payout_account: uuid()
    .nullable()
    .meta({ description: "Term deposits: the member's demand account paid at maturity." }),
  contract_rate: yup
    .string()
    .nullable()
    .defined()
    .meta({
      description:
        "An imported term deposit's own annual rate, earned instead of the product's until its maturity (a " +
        'fraction); ' +
        "null: the product's rates.",
    }),
  created_at: timestampResponse(),
};

export const memberAccountSchema = yup.object(accountFields).meta({ component: 'CompteClient' });

export const openedAccountSchema = yup
  .object({ ...accountFields, initial_deposit: cashOperationSchema.nullable() })
  .meta({ component: 'OpenedCompteClient' });

export const statementLineSchema = yup
  .object({
    kind: yup.string().required().meta({
      description:
        "The business event's kind; import.opening_balance for an imported account's balance at the cut-over.",
    }),
    event: nullableId('The business event; null on the opening balance (the import posts no event per account).'),
    journal_entry: nullableId(
      "The entry; for the opening balance, its branch's opening entry " +
        "(null when that branch's opening entry has no line).",
    ),
    description: yup.string().defined(),
    ...movementFields,
  })
  .meta({ component: 'StatementLine' });

export const reconciliationGapSchema = yup
  .object({ id: uuid(), number: yup.string().required(), balance: moneyResponse(), ledger_balance: moneyResponse() })
  .meta({ component: 'ReconciliationGap' });

export const earlyClosureSchema = yup
  .object({
    id: uuid(),
    account: uuid(),
    payout_account: uuid().meta({ description: "The member's demand account paid." }),
    closed_on: dateResponse().meta({ description: 'The business date of the closure, the date of its entries.' }),
    term_started_on: dateResponse().meta({
      description: "The running term's first day: the opening, or the last renewal.",
    }),
    maturity_date: dateResponse().meta({ description: 'The maturity the term would have reached.' }),
    interest_to: dateResponse().meta({ description: 'The last day of interest: the day before the closure.' }),
    interest_basis: yup.string().required(),
    day_count: yup.string().required(),
    early_closure_rate: yup
      .string()
      .required()
      .meta({ description: "The product's penalty rate, paid instead of the contract rate over the whole term." }),
    withholding_tax_rate: yup.string().required(),
    principal: moneyResponse().meta({ description: "The term account's balance before the closure." }),
    gross_due: moneyResponse().meta({
      description: 'The interest of the term at the penalty rate, gross, to the franc.',
    }),
    tax_due: moneyResponse(),
    gross_paid: moneyResponse().meta({
      description: 'Interest of the term already paid to the demand account at the contract rate, gross.',
    }),
    tax_paid: moneyResponse(),
    amount: moneyResponse().meta({
      description: 'Paid to the demand account: principal + (gross_due - tax_due) - (gross_paid - tax_paid).',
    }),
    interest_event: uuid().nullable().meta({
      description:
        'savings_interest (gross_due above gross_paid) or savings_interest_recovery (below); null when equal.',
    }),
    tax_event: uuid().nullable().meta({ description: 'withholding_tax or withholding_tax_refund; null when equal.' }),
    closure_event: uuid().nullable(),
    payout_event: uuid().nullable(),
    closed_by: uuid().nullable(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'TermDepositEarlyClosure' });

/**
 * An account as the API answers it, with what pledged deposits hold on it and what a member may still take (the
 * balance less the product's minimum and the holds, as every debit checks it).
 */
export function serializeAccount({ account, held, minimumBalance }: AccountWithHolds) {
  return {
    id: account.id,
    enterprise: account.enterpriseId,
    branch: account.branchId,
    client: account.clientId,
    product: account.productId,
    number: account.number,
    status: account.status,
    balance: account.balance,
    held_amount: formatAmount(held),
    available_balance: formatAmount(availableBalance(new Money(account.balance), minimumBalance, held)),
    opened_on: account.openedOn,
    closed_on: account.closedOn,
    maturity_date: account.maturityDate,
    payout_account: account.payoutAccountId,
    contract_rate: typeof account.contractRate === 'string' ? new Money(account.contractRate).toString() : null,
    created_at: account.createdAt.toISOString(),
  };
}

export const serializeEarlyClosure = (row: EarlyClosureRow) => ({
  id: row.id,
  account: row.compte_client_id,
  payout_account: row.payout_account_id,
  closed_on: row.closed_on,
  term_started_on: row.term_started_on,
  maturity_date: row.maturity_date,
  interest_to: row.interest_to,
  interest_basis: row.interest_basis,
  day_count: row.day_count,
  early_closure_rate: new Money(row.early_closure_rate).toString(),
  withholding_tax_rate: new Money(row.withholding_tax_rate).toString(),
  principal: row.principal,
  gross_due: row.gross_due,
  tax_due: row.tax_due,
  gross_paid: row.gross_paid,
  tax_paid: row.tax_paid,
  amount: row.amount,
  interest_event: row.interest_event_id,
  tax_event: row.tax_event_id,
  closure_event: row.closure_event_id,
  payout_event: row.payout_event_id,
  closed_by: row.closed_by,
  created_at: row.created_at.toISOString(),
});
