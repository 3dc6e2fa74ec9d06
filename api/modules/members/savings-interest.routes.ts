import * as yup from 'yup';
import {
  interestPostingsQuery,
  termDepositMaturitiesQuery,
} from '../../../activities/members/savings-interest.queries';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { interestPostingSchema, maturitySchema } from './savings-interest.schemas';
import { memberLoaders } from './members.queries';
import { matureDueTermDeposits } from '../../../activities/members/term-deposits.activity';
import { accountChoiceRefusals } from '../refusal-lists';

const periodFilters = {
  date_from: isoDate().optional().meta({ description: 'Postings with period_end on or after.' }),
  date_to: isoDate().optional().meta({ description: 'Postings with period_end on or before.' }),
};
const periodColumns = { date_from: ['s.period_end', '>='], date_to: ['s.period_end', '<='] } as const;

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
      const rows = whereFilters(
        interestPostingsQuery(deps.knex).where('s.compte_client_id', account.id),
        query,
        periodColumns,
      );
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
      const rows = visibleRows(interestPostingsQuery(deps.knex), principal, query, {
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
      'Term deposits matured (paid out or renewed) the user may see, newest maturity first, by maturity ' +
      'date, branch or account; a renewed account has one per term',
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
      const rows = visibleRows(termDepositMaturitiesQuery(deps.knex), principal, query, {
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
      'Each on its maturity day, one transaction each; an account that cannot mature (no open demand account ' +
      'to receive it) is listed and left for the next run or the month end.',
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
