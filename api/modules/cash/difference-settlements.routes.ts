import * as yup from 'yup';
import {
  settlementById,
  settlementsQuery,
  type SettlementRow,
} from '../../../activities/cash/cash-differences.queries';
import {
  differenceOfEntry,
  settleDifference,
  type SettlementInput,
} from '../../../activities/cash/difference-settlements.activity';
import {
  defaultShortageExpense,
  modeAllowed,
  settlementModes,
  type SettlementMode,
} from '../../../domain/cash/settlements';
import { AppError } from '../../../domain/errors';
import { formatAmount } from '../../../domain/money';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { enterpriseFilter, idParams, timestampResponse } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { moneyResponse } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';
import { tillReaders } from './tills.routes';

const settlementSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required(),
    difference_entry: yup
      .string()
      .uuid()
      .required()
      .meta({ description: "The difference settled: a till session's opening or closing entry, or a vault count's." }),
    kind: yup.string().oneOf(['shortage', 'excess']).required(),
    mode: yup.string().oneOf(settlementModes).required(),
    amount: moneyResponse(),
    account: yup.string().required().meta({
      description: 'The other side of 4631 or 4632: 5710 (recovered, returned), the expense or 7786 (written off).',
    }),
    entry: yup.string().uuid().required(),
    settled_by: yup
      .string()
      .uuid()
      .required()
      .meta({ description: 'The maker; the approver is on the four-eyes request.' }),
    created_at: timestampResponse(),
  })
  .meta({ component: 'CashSettlement' });

const serializeSettlement = (row: SettlementRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  difference_entry: row.difference_entry_id,
  kind: row.kind,
  mode: row.mode,
  amount: row.amount,
  account: row.account_code,
  entry: row.entry_id,
  settled_by: row.settled_by,
  created_at: row.created_at.toISOString(),
});

const settlementLoader = {
  name: 'The settlement',
  load: async ({ knex }, id) => settlementById(knex, id),
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<SettlementRow>;

/** The settlement of a till's or the vault's cash difference, under four eyes (issue 29, docs/domain.md §13.2). */
export const differenceSettlementRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/difference-settlements/',
    module: 'cash',
    operationId: 'listDifferenceSettlements',
    summary: 'List the settlements of cash differences, the latest first',
    access: tillReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      kind: yup.string().oneOf(['shortage', 'excess']).optional(),
      mode: yup.string().oneOf(settlementModes).optional(),
    }),
    response: pageSchema(settlementSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(settlementsQuery(deps.knex), principal, query, {
        enterprise: 'cs.enterprise_id',
        branch: 'cs.branch_id',
        kind: 'cs.kind',
        mode: 'cs.mode',
      });
      const page = await paginateRows<SettlementRow>(
        rows.orderBy([{ column: 'cs.created_at', order: 'desc' }, { column: 'cs.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeSettlement) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/difference-settlements/',
    module: 'cash',
    operationId: 'settleCashDifference',
    summary:
      'Settle a shortage (recovered from the cashier, or written off) ' +
      'or an excess (written off to 7786, or returned), under four eyes',
    description:
      'Operation `cash_difference.settle` of the approval policy (default: a branch ' +
      'head, the direction or an administrator other than the maker approves). ' +
      `A shortage written off goes to expense_account, ${defaultShortageExpense} ` +
      `Autres pertes exceptionnelles by default.`,
    access: ['branch_head', 'direction', 'admin'],
    status: 201,
    location: '/api/v1/cash/difference-settlements/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      difference_entry: yup.string().uuid().required(),
      mode: yup.string().oneOf(settlementModes).required(),
      expense_account: yup
        .string()
        .matches(/^6\d{1,11}$/, '${path} must be an account of class 6')
        .optional()
        .meta({ description: `A shortage written off only; default ${defaultShortageExpense}.` }),
    }),
    response: settlementSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'cash_difference_unknown',
      'cash_settlement_mode_refused',
      'cash_difference_settled',
      ...postingRefusals,
      ...fourEyesRefusals,
    ],
    handler: async ({ body, principal, deps, ctx, authorize }) => {
      // Refused before any request: nobody should approve a settlement that cannot be made.
      const difference = await differenceOfEntry(deps.knex, body.enterprise, body.difference_entry);
      const scope = { enterpriseId: body.enterprise, branchId: difference.branchId };
      authorize(scope, 'The difference');
      const mode = body.mode as SettlementMode;
      if (!modeAllowed(difference.kind, mode))
        throw new AppError('unprocessable', 'cash_settlement_mode_refused', `A ${difference.kind} is not ${mode}.`, [
          { field: 'mode', message: `mode does not apply to a ${difference.kind}` },
        ]);
      if (
        (await settlementsQuery(deps.knex).where('cs.difference_entry_id', body.difference_entry).first()) !== undefined
      )
        throw new AppError('conflict', 'cash_difference_settled', 'The difference is settled already.');
      const payload: SettlementInput = {
        enterpriseId: body.enterprise,
        differenceEntryId: body.difference_entry,
        mode,
        expenseAccount: body.expense_account ?? null,
      };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'cash_difference.settle',
          payload,
          scope,
          summary: `Settlement of a cash ${difference.kind} of ${formatAmount(difference.amount)} XAF (${mode})`,
        },
        async () =>
          serializeSettlement(
            (await settlementById(deps.knex, (await settleDifference(deps.activities, principal, payload)).id))!,
          ),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/difference-settlements/{id}/',
    module: 'cash',
    operationId: 'getDifferenceSettlement',
    summary: 'Settlement detail',
    access: tillReaders,
    load: settlementLoader,
    params: idParams,
    response: settlementSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource }) => serializeSettlement(resource),
  }),
];
