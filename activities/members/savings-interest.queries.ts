import type { Knex } from 'knex';

/** The reads of savings interest: its postings and the term deposits matured, as the API answers them. */

/** A posting's amounts and the accounts it moved, as the term-deposit maturities read them too. */
export const postingFigureColumns = [
  's.gross',
  's.tax',
  's.net',
  's.interest_expense_account_code',
  's.withholding_tax_account_code',
  's.deposit_account_code',
];

const columns = [
  's.id',
  's.enterprise_id as enterprise',
  's.branch_id as branch',
  's.compte_client_id as account',
  's.period_end',
  's.occasion',
  's.interest_from',
  's.interest_to',
  's.interest_basis',
  's.day_count',
  's.interest_rate',
  's.withholding_tax_rate',
  ...postingFigureColumns,
  's.interest_event_id as interest_event',
  's.tax_event_id as tax_event',
  's.created_at',
];

/** The savings interest postings, newest period end first. */
export const interestPostingsQuery = (knex: Knex) =>
  knex('savings_interest_postings as s')
    .select(columns)
    .orderBy([{ column: 's.period_end', order: 'desc' }, { column: 's.id' }]);

/** The matured term deposits, with their account's branch (`a`), newest maturity first. */
export const termDepositMaturitiesQuery = (knex: Knex) =>
  knex('term_deposit_maturities as m')
    .join('comptes_clients as a', 'a.id', 'm.compte_client_id')
    .select(
      'm.id',
      'm.enterprise_id as enterprise',
      'm.compte_client_id as account',
      'm.payout_account_id as payout_account',
      'm.maturity_date',
      'm.period_end',
      'm.instruction',
      'm.amount',
      'm.renewed_principal',
      'm.renewed_until',
      'm.maturity_event_id as maturity_event',
      'm.payout_event_id as payout_event',
      'm.created_at',
    )
    .orderBy([{ column: 'm.maturity_date', order: 'desc' }, { column: 'm.id' }]);
