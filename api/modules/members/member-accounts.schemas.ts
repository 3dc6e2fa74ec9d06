import * as yup from 'yup';
import { dateResponse, timestampResponse } from '../common.schemas';
import { movementFields } from '../accounts/ledger.schemas';
import { moneyResponse } from '../money.schemas';

/** Representations of members' accounts (CompteClient) and of the cash that moves on them. */

const uuid = () => yup.string().uuid().required();

export const cashOperationSchema = yup
  .object({
    id: uuid().meta({ description: 'The business event that records the operation.' }),
    kind: yup.string().oneOf(['deposit', 'withdrawal'] as const).required(),
    account: uuid(),
    amount: moneyResponse(),
    channel: yup.string().required(),
    reference: yup.string().defined(),
    balance_after: moneyResponse(),
    business_date: dateResponse(),
    journal_entry: uuid().nullable(),
    recorded_at: timestampResponse(),
  })
  .meta({ component: 'CashOperation' });

const accountFields = {
  id: uuid(),
  enterprise: uuid(),
  branch: uuid(),
  client: uuid(),
  product: uuid(),
  number: yup.string().required(),
  status: yup.string().oneOf(['open', 'frozen', 'closed'] as const).required(),
  balance: moneyResponse(),
  opened_on: dateResponse(),
  closed_on: dateResponse().nullable(),
  maturity_date: dateResponse().nullable().meta({ description: 'Term deposits: the day capital and interest go to the payout account.' }),
  payout_account: uuid().nullable().meta({ description: 'Term deposits: the member\'s demand account paid at maturity.' }),
  created_at: timestampResponse(),
};

export const memberAccountSchema = yup.object(accountFields).meta({ component: 'CompteClient' });

export const openedAccountSchema = yup
  .object({ ...accountFields, initial_deposit: cashOperationSchema.nullable() })
  .meta({ component: 'OpenedCompteClient' });

export const statementLineSchema = yup
  .object({ kind: yup.string().required(), event: uuid(), journal_entry: uuid(), description: yup.string().defined(), ...movementFields })
  .meta({ component: 'StatementLine' });

export const reconciliationGapSchema = yup
  .object({ id: uuid(), number: yup.string().required(), balance: moneyResponse(), ledger_balance: moneyResponse() })
  .meta({ component: 'ReconciliationGap' });
