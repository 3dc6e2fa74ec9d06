import type { Knex } from 'knex';
import * as yup from 'yup';
import { dayCounts, interestBases } from '../../../domain/members/savings-interest';
import { maturityInstructions } from '../../../domain/members/term-deposits';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { moneyResponse } from '../money.schemas';
import { memberLoaders } from './members.queries';
import { matureDueTermDeposits } from '../../../activities/members/term-deposits.activity';
import { accountChoiceRefusals } from '../refusal-lists';

const uuid = () => yup.string().uuid().required();

/** A posting of savings interest as an accountant checks it: the days and terms, the gross, the tax and the net. */
const interestPostingSchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    branch: uuid(),
    account: uuid(),
    period_end: dateResponse().meta({
      description: 'The month end that posted it, or the maturity day of a term deposit (the date of its entries).',
    }),
    occasion: yup
      .string()
      .oneOf(['periodic', 'maturity'] as const)
      .required(),
    interest_from: dateResponse(),
    interest_to: dateResponse(),
    interest_basis: yup.string().oneOf(interestBases).required(),
    day_count: yup.string().oneOf(dayCounts).required(),
    interest_rate: yup.string().required(),
    withholding_tax_rate: yup.string().required(),
    gross: moneyResponse(),
    tax: moneyResponse(),
    net: moneyResponse(),
    interest_expense_account_code: yup.string().required(),
    withholding_tax_account_code: yup.string().required(),
    deposit_account_code: yup.string().required(),
    interest_event: uuid(),
    tax_event: uuid().nullable(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'SavingsInterestPosting' });

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
  's.gross',
  's.tax',
  's.net',
  's.interest_expense_account_code',
  's.withholding_tax_account_code',
  's.deposit_account_code',
  's.interest_event_id as interest_event',
  's.tax_event_id as tax_event',
  's.created_at',
];

const postings = (knex: Knex) =>
  knex('savings_interest_postings as s')
    .select(columns)
    .orderBy([{ column: 's.period_end', order: 'desc' }, { column: 's.id' }]);
const periodFilters = {
  date_from: isoDate().optional().meta({ description: 'Postings with period_end on or after.' }),
  date_to: isoDate().optional().meta({ description: 'Postings with period_end on or before.' }),
};
const periodColumns = { date_from: ['s.period_end', '>='], date_to: ['s.period_end', '<='] } as const;

/** A term deposit that matured: what went to which demand account, or was renewed, on which day, by which month end. */
const maturitySchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    account: uuid(),
    payout_account: uuid()
      .nullable()
      .meta({ description: 'The demand account paid; null when nothing was (a renewal with its interest).' }),
    maturity_date: dateResponse(),
    period_end: dateResponse().meta({ description: 'The month end that matured it.' }),
    instruction: yup
      .string()
      .oneOf(maturityInstructions)
      .required()
      .meta({ description: "The product's maturity instruction applied: pay_out, renew or renew_with_interest." }),
    amount: moneyResponse().meta({
      description:
        'Moved to the payout account: capital and final interest net of tax (pay_out), the interest only (renew), nothing (renew_with_interest).',
    }),
    renewed_principal: moneyResponse().nullable().meta({
      description:
        'A renewal: the principal of the new term (with the interest for renew_with_interest); null when paid out.',
    }),
    renewed_until: dateResponse()
      .nullable()
      .meta({ description: "A renewal: the new term's maturity; null when paid out." }),
    maturity_event: uuid().nullable(),
    payout_event: uuid().nullable(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'TermDepositMaturity' });

const maturities = (knex: Knex) =>
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

/**
 * The savings interest posted at month ends and maturities (docs/domain.md §9), per account and across the enterprise;
 * the matured term deposits.
 */
export const savingsInterestRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/members/accounts/{id}/interest-postings/',
    module: 'members',
    operationId: 'listAccountInterestPostings',
    summary: "The interest history of one account, newest first: each posting's days, gross, tax withheld and net",
    access: 'authenticated',
    load: memberLoaders.account,
    params: idParams,
    query: listQuerySchema([], periodFilters),
    response: pageSchema(interestPostingSchema),
    errorStatuses: [401, 404],
    refusals: ['page_not_found'],
    handler: async ({ resource: account, query, deps, ctx }) => {
      const rows = whereFilters(postings(deps.knex).where('s.compte_client_id', account.id), query, periodColumns);
      return paginateRows(rows, query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/members/interest-postings/',
    module: 'members',
    operationId: 'listInterestPostings',
    summary: 'Savings interest postings the user may see, by period end (newest first), branch, account or occasion',
    access: 'authenticated',
    query: listQuerySchema([], {
      ...periodFilters,
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      account: yup.string().uuid().optional(),
      occasion: yup
        .string()
        .oneOf(['periodic', 'maturity'] as const)
        .optional(),
    }),
    response: pageSchema(interestPostingSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(postings(deps.knex), principal, {
        enterprise: 's.enterprise_id',
        branch: 's.branch_id',
      });
      whereFilters(rows, query, {
        ...periodColumns,
        enterprise: 's.enterprise_id',
        branch: 's.branch_id',
        account: 's.compte_client_id',
        occasion: 's.occasion',
      });
      return paginateRows(rows, query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/members/term-deposit-maturities/',
    module: 'members',
    operationId: 'listTermDepositMaturities',
    summary:
      'Term deposits matured (paid out or renewed) the user may see, newest maturity first, by maturity date, branch or account; a renewed account has one per term',
    access: 'authenticated',
    query: listQuerySchema([], {
      date_from: isoDate().optional().meta({ description: 'Maturities on or after.' }),
      date_to: isoDate().optional().meta({ description: 'Maturities on or before.' }),
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      account: yup.string().uuid().optional(),
    }),
    response: pageSchema(maturitySchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(maturities(deps.knex), principal, {
        enterprise: 'm.enterprise_id',
        branch: 'a.branch_id',
      });
      whereFilters(rows, query, {
        date_from: ['m.maturity_date', '>='],
        date_to: ['m.maturity_date', '<='],
        enterprise: 'm.enterprise_id',
        branch: 'a.branch_id',
        account: 'm.compte_client_id',
      });
      return paginateRows(rows, query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/members/term-deposit-maturities/runs/',
    module: 'members',
    operationId: 'matureDueTermDeposits',
    summary:
      'Mature now every term deposit due by the business date (direction, administrators), as the daily run does',
    description:
      'Each on its maturity day, one transaction each; an account that cannot mature (no open demand account to receive it) is listed and left for the next run or the month end.',
    access: ['direction', 'admin'],
    body: yup.object({ enterprise: yup.string().uuid().required() }),
    response: yup
      .object({
        matured: yup.number().integer().required(),
        entries: yup.number().integer().required(),
        refused: yup
          .array(
            yup
              .object({
                account: yup.string().uuid().required(),
                code: yup.string().required(),
                message: yup.string().required(),
              })
              .meta({ component: 'TermDepositMaturityRefusal' }),
          )
          .required(),
      })
      .meta({ component: 'TermDepositMaturityRun' }),
    errorStatuses: [401, 403, 404],
    refusals: [
      ...accountChoiceRefusals,
      'exercice_closed',
      'no_exercice_for_date',
      'no_payout_account',
      'rule_inactive',
    ],
    handler: async ({ body, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      return matureDueTermDeposits(deps.activities, { enterpriseId: body.enterprise });
    },
  }),
];
