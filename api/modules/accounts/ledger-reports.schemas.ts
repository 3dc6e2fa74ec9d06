import * as yup from 'yup';
import { dateResponse, provisionalResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

/** Representations of the accountant's reports: the general ledger and the journal book. */

const uuid = () => yup.string().uuid().required();
const scope = {
  enterprise: uuid(),
  branch: uuid()
    .nullable()
    .meta({ description: 'The branch asked for; null: consolidated (the branches the caller sees).' }),
  date_from: dateResponse(),
  date_to: dateResponse(),
};
const entryFields = {
  journal: yup.string().required().meta({ description: 'The code of its journal (GET /api/v1/accounts/journals/).' }),
  number: yup
    .string()
    .required()
    .meta({ description: "The entry's number as printed: journal, year, number (CAI-2026-000042)." }),
  branch: yup
    .string()
    .nullable()
    .defined()
    .meta({ description: "The code of the entry's branch; null for the enterprise's own." }),
  description: yup.string().defined(),
};
const sides = (name: string) => ({ [`${name}_debit`]: moneyResponse(), [`${name}_credit`]: moneyResponse() });

const ledgerMovementSchema = yup
  .object({
    date: dateResponse(),
    ...entryFields,
    debit: moneyResponse(),
    credit: moneyResponse(),
    balance: moneyResponse().meta({ description: "The account's balance after the line (debit minus credit)." }),
  })
  .meta({ component: 'GeneralLedgerMovement' });

export const generalLedgerSchema = yup
  .object({
    ...scope,
    account_from: yup.string().nullable().defined(),
    account_to: yup.string().nullable().defined(),
    ...provisionalResponse,
    accounts: yup
      .array(
        yup
          .object({
            account: yup.string().required(),
            label: yup.string().required(),
            opening_balance: moneyResponse().meta({
              description:
                'Debit minus credit before the period: à-nouveaux, earlier years carried, what was posted ' +
                'before date_from.',
            }),
            movements: yup.array(ledgerMovementSchema).required(),
            movement_debit: moneyResponse(),
            movement_credit: moneyResponse(),
            closing_balance: moneyResponse().meta({
              description: "The opening balance plus the period's debits minus its credits.",
            }),
          })
          .meta({ component: 'GeneralLedgerAccount' }),
      )
      .required(),
    totals: yup
      .object({ ...sides('opening'), ...sides('movement'), ...sides('closing') })
      .required()
      .meta({
        description:
          'The six columns of the trial balance over the accounts shown: opening and closing balances by ' +
          "side, the period's movements.",
      }),
  })
  .meta({ component: 'GeneralLedger' });

const bookEntrySchema = yup
  .object({
    id: uuid(),
    date: dateResponse(),
    ...entryFields,
    user: yup
      .string()
      .nullable()
      .defined()
      .meta({ description: 'The username of who posted it; null for the system.' }),
    debit: moneyResponse(),
    credit: moneyResponse(),
    lines: yup
      .array(
        yup.object({
          account: yup.string().required(),
          label: yup.string().required(),
          debit: moneyResponse(),
          credit: moneyResponse(),
        }),
      )
      .required(),
  })
  .meta({ component: 'JournalBookEntry' });

export const journalBookSchema = yup
  .object({
    ...scope,
    journal: yup.string().nullable().defined(),
    user: nullableId(),
    entries: yup.array(bookEntrySchema).required().meta({ description: 'In date, journal and number order.' }),
    journals: yup
      .array(
        yup
          .object({
            journal: yup.string().required(),
            name: yup.string().required(),
            entries: yup.number().integer().required(),
            debit: moneyResponse(),
            credit: moneyResponse(),
          })
          .meta({ component: 'JournalBookTotals' }),
      )
      .required(),
    totals: yup
      .object({ entries: yup.number().integer().required(), debit: moneyResponse(), credit: moneyResponse() })
      .required(),
  })
  .meta({ component: 'JournalBook' });
