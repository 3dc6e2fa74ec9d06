import * as yup from 'yup';
import { dateResponse, timestampResponse } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

/** Representations of the ledger reads: journal entries, movements of an account, balances. */

const uuid = () => yup.string().uuid().required();

export const journalEntrySchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    branch: uuid().nullable().meta({ description: 'null for an entry of the enterprise itself (no branch).' }),
    entry_date: dateResponse(),
    description: yup.string().defined(),
    event: uuid().nullable().meta({ description: 'The business event it records; null for a manual entry.' }),
    rule_config: uuid().nullable().meta({ description: 'The version of the posting rule applied.' }),
    reverses_entry: uuid().nullable().meta({ description: 'The entry this one reverses (a replay or a correction).' }),
    created_at: timestampResponse(),
    lines: yup
      .array(yup.object({ account: yup.string().required(), label: yup.string().required(), debit: moneyResponse(), credit: moneyResponse() }).meta({ component: 'JournalLine' }))
      .required(),
  })
  .meta({ component: 'JournalEntry' });

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

const totalsOfAccount = { debit: moneyResponse(), credit: moneyResponse(), balance: moneyResponse().meta({ description: 'Debit minus credit.' }) };

export const accountBalanceSchema = yup
  .object({ account: yup.string().required(), label: yup.string().required(), date: dateResponse().nullable().meta({ description: 'null: every posting.' }), ...totalsOfAccount })
  .meta({ component: 'AccountBalance' });

export const trialBalanceSchema = yup
  .object({
    date: dateResponse().nullable(),
    accounts: yup
      .array(yup.object({ code: yup.string().required(), label: yup.string().required(), class: yup.number().integer().required(), ...totalsOfAccount }).meta({ component: 'TrialBalanceLine' }))
      .required(),
    totals: yup.object({ debit: moneyResponse(), credit: moneyResponse(), balanced: yup.boolean().required() }).required(),
  })
  .meta({ component: 'TrialBalance' });
