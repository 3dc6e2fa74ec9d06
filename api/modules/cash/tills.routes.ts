import * as yup from 'yup';
import { changeTill, createTill, type TillChange } from '../../../activities/cash/tills.activity';
import { tillById, tillsQuery, type TillRow } from '../../../activities/cash/tills.queries';
import { overCashLimit } from '../../../domain/cash/till-transfers';
import { tillsParentAccount, vaultAccount } from '../../../domain/cash/tills';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { codeSchema, enterpriseFilter, idParams, timestampResponse, nullableId } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { amountOrZeroSchema, moneyResponse } from '../money.schemas';
import { Money } from '../../../domain/money';

/** Who opens, assigns and deactivates tills: the branch head and the roles above the branch. */
const tillKeepers = ['branch_head', 'direction', 'admin'] as const;
/** Who reads tills and sessions: the same, the cashiers, the accountant and the auditor. */
export const tillReaders = ['cashier', ...tillKeepers, 'accountant', 'auditor'] as const;

const tillSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required(),
    code: yup.string().required(),
    label: yup.string().required(),
    kind: yup
      .string()
      .oneOf(['till', 'vault'])
      .required()
      .meta({
        description:
          `vault: the branch's ${vaultAccount}, one per branch, made with it; ` +
          `till: a counter, its own sub-account of ${tillsParentAccount.code}.`,
      }),
    account: yup.string().required().meta({ example: '5712001' }),
    cash_limit: moneyResponse().nullable().defined().meta({ description: 'null: no limit set.' }),
    cashier: nullableId('The cashier the till is assigned to; null: none (always for a vault).'),
    is_active: yup.boolean().required(),
    balance: moneyResponse().meta({
      description: "The book balance: debits less credits of its account in its branch's entries.",
    }),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
    // Issue 29, §13.2: the limit's warning.
    over_limit: yup.boolean().required().meta({
      description: 'true: the till holds more than its cash limit: its cashier hands cash to the vault (a dégagement).',
    }),
  })
  .meta({ component: 'Till' });

const serializeTill = (row: TillRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  code: row.code,
  label: row.label,
  kind: row.kind,
  account: row.account_code,
  cash_limit: row.cash_limit,
  cashier: row.cashier_id,
  is_active: row.is_active,
  balance: row.balance,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  over_limit: overCashLimit(row.balance, row.cash_limit),
});

/** A till by id, checked against the caller's enterprise and branch (api/router.ts). */
const tillLoader = {
  name: 'The till',
  load: async ({ knex }, id) => tillById(knex, id),
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<TillRow>;

const actionRoute = (
  action: 'assign' | 'unassign' | 'deactivate',
  summary: string,
  change: (body: { cashier?: string }) => TillChange,
) =>
  defineRoute({
    method: 'post',
    path: `/api/v1/cash/tills/{id}/${action}/`,
    module: 'cash',
    operationId: `${action}Till`,
    summary,
    access: tillKeepers,
    load: tillLoader,
    params: idParams,
    body: action === 'assign' ? yup.object({ cashier: yup.string().uuid().required() }) : yup.object({}),
    response: tillSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['till_session_open', 'till_is_vault', 'till_inactive', 'till_cashier_refused', 'till_cashier_taken'],
    handler: async ({ resource, body, principal, deps }) => {
      await changeTill(deps.activities, principal, resource.id, change(body as { cashier?: string }));
      return serializeTill((await tillById(deps.knex, resource.id))!);
    },
  });

/** Tills and vaults (issue 29, docs/domain.md §13.1). */
export const tillRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/tills/',
    module: 'cash',
    operationId: 'listTills',
    summary: 'List the tills and vaults with their book balances, by branch and code',
    access: tillReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      kind: yup.string().oneOf(['till', 'vault']).optional(),
      cashier: yup.string().uuid().optional(),
      is_active: yup.boolean().optional(),
    }),
    response: pageSchema(tillSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(tillsQuery(deps.knex), principal, query, {
        enterprise: 't.enterprise_id',
        branch: 't.branch_id',
        kind: 't.kind',
        cashier: 't.cashier_id',
        is_active: 't.is_active',
      });
      const page = await paginateRows<TillRow>(
        rows.orderBy([{ column: 't.branch_id' }, { column: 't.code' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeTill) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/tills/',
    module: 'cash',
    operationId: 'createTill',
    summary: `Open a till of a branch, with its own sub-account of ${tillsParentAccount.code}`,
    description:
      `The till's account is the next free sub-account ` +
      `of ${tillsParentAccount.code} ${tillsParentAccount.label} ` +
      `(${tillsParentAccount.code}001, ${tillsParentAccount.code}002…). ` +
      'Once a till of a branch is assigned, the branch is under till control: each ' +
      "cash operation there posts to the operator's till and needs their open session.",
    access: tillKeepers,
    status: 201,
    location: '/api/v1/cash/tills/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      branch: yup.string().uuid().required(),
      code: codeSchema(20).required(),
      label: yup.string().trim().min(2).max(200).required(),
      cash_limit: amountOrZeroSchema().nullable().meta({ description: 'Whole francs; null or absent: no limit.' }),
      cashier: yup.string().uuid().nullable().meta({ description: 'A cashier of the branch, assigned at once.' }),
    }),
    response: tillSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['till_code_taken', 'till_cashier_refused', 'till_cashier_taken', 'tills_full', 'account_unknown'],
    handler: async ({ body, principal, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise, branchId: body.branch }, 'The branch');
      const till = await createTill(deps.activities, principal, {
        enterpriseId: body.enterprise,
        branchId: body.branch,
        code: body.code,
        label: body.label,
        cashLimit: body.cash_limit === undefined || body.cash_limit === null ? null : new Money(body.cash_limit),
        cashierId: body.cashier ?? null,
      });
      return serializeTill((await tillById(deps.knex, till.id))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/tills/{id}/',
    module: 'cash',
    operationId: 'getTill',
    summary: 'Till or vault detail, with its book balance',
    access: tillReaders,
    load: tillLoader,
    params: idParams,
    response: tillSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource }) => serializeTill(resource),
  }),
  actionRoute(
    'assign',
    'Assign the till to a cashier of its branch (one till per cashier, one cashier per till)',
    (body) => ({ assign: body.cashier! }),
  ),
  actionRoute('unassign', 'Take the till from its cashier (refused while their session is open)', () => ({
    unassign: true,
  })),
  actionRoute('deactivate', 'Deactivate the till: unassigned, no new session; its account stays in the chart', () => ({
    deactivate: true,
  })),
];
