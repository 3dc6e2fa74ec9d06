import * as yup from 'yup';
import { cashOperationsQuery, depositCash, toOperation, withdrawCash, type CashDirection, type CashOperationRow } from '../../../activities/members/cash-operations.activity';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { memberLoaders } from './members.queries';
import { cashOperationSchema } from './member-accounts.schemas';
import { amount, tellers } from '../money.schemas';

const plural = { deposit: 'deposits', withdrawal: 'withdrawals' } as const;
const accountParams = yup.object({ id: yup.string().uuid().required() });
const dateFilters = { date_from: isoDate().optional(), date_to: isoDate().optional() };

function listOf(direction: CashDirection, builder: ReturnType<typeof cashOperationsQuery>, query: { date_from?: string; date_to?: string }) {
  builder.where('ev.kind', direction).orderBy([{ column: 'ev.created_at', order: 'desc' }, { column: 'ev.id' }]);
  if (query.date_from !== undefined) builder.where('ev.business_date', '>=', query.date_from);
  if (query.date_to !== undefined) builder.where('ev.business_date', '<=', query.date_to);
  return builder;
}

/** A deposit or a withdrawal at the counter: posted through the ledger, idempotent by header. */
const moveRoute = (direction: CashDirection) =>
  defineRoute({
    method: 'post',
    path: `/api/v1/members/accounts/{id}/${plural[direction]}/`,
    module: 'members',
    operationId: direction === 'deposit' ? 'depositCash' : 'withdrawCash',
    summary: direction === 'deposit' ? 'Deposit cash on an account (cashier, branch head)' : 'Withdraw cash from an account (cashier, branch head)',
    description: 'Send an Idempotency-Key header: a retry with the same key and body answers the first result and moves nothing; the same key with another body is refused (409).',
    access: tellers,
    idempotent: true,
    status: 201,
    location: `/api/v1/members/${plural[direction]}/{id}/`,
    load: memberLoaders.accountScope,
    params: accountParams,
    body: yup.object({
      amount: amount().required(),
      channel: yup.string().oneOf(['cash'] as const).default('cash'),
      reference: yup.string().trim().max(100).default(''),
    }),
    response: cashOperationSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: direction === 'deposit' ? ['account_closed', 'account_frozen', 'account_inactive', 'account_not_leaf', 'account_unknown', 'enterprise_suspended', 'exercice_closed', 'idempotency_key_reused', 'no_exercice_for_date'] : ['account_closed', 'account_frozen', 'account_inactive', 'account_not_leaf', 'account_unknown', 'enterprise_suspended', 'exercice_closed', 'idempotency_key_reused', 'insufficient_funds', 'no_exercice_for_date', 'withdrawals_not_allowed'],
    handler: async ({ params, body, principal: actor, deps, ctx, idempotencyKey }) => {
      const move = direction === 'deposit' ? depositCash : withdrawCash;
      const operation = await move(
        deps.activities,
        actor,
        { accountId: params.id, amount: body.amount, channel: body.channel, reference: body.reference, idempotencyKey },
      );
      if (operation.replayed) ctx.set('Idempotent-Replayed', 'true');
      const { replayed: _replayed, ...answer } = operation;
      return answer;
    },
  });

/** The deposits or withdrawals of one account. */
const accountListRoute = (direction: CashDirection) =>
  defineRoute({
    method: 'get',
    path: `/api/v1/members/accounts/{id}/${plural[direction]}/`,
    module: 'members',
    operationId: direction === 'deposit' ? 'listAccountDeposits' : 'listAccountWithdrawals',
    summary: `The ${plural[direction]} of one account, newest first`,
    access: 'authenticated',
    load: memberLoaders.account,
    params: accountParams,
    query: listQuerySchema([], dateFilters),
    response: pageSchema(cashOperationSchema),
    errorStatuses: [401, 404],
    refusals: ['page_not_found'],
    handler: async ({ resource: account, query, deps, ctx }) => {
      const page = await paginateRows<CashOperationRow>(listOf(direction, cashOperationsQuery(deps.knex).where('ev.subject_id', account.id), query), query, new URL(ctx.href));
      return { ...page, results: page.results.map(toOperation) };
    },
  });

/** All deposits or withdrawals the user may see. */
const listRoute = (direction: CashDirection) =>
  defineRoute({
    method: 'get',
    path: `/api/v1/members/${plural[direction]}/`,
    module: 'members',
    operationId: direction === 'deposit' ? 'listDeposits' : 'listWithdrawals',
    summary: `All ${plural[direction]} the user may see, newest first`,
    access: 'authenticated',
    query: listQuerySchema([], { ...dateFilters, enterprise: enterpriseFilter, branch: yup.string().uuid().optional(), account: yup.string().uuid().optional() }),
    response: pageSchema(cashOperationSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(cashOperationsQuery(deps.knex), principal, { enterprise: 'ev.enterprise_id', branch: 'ev.branch_id' });
      if (query.enterprise !== undefined) builder.where('ev.enterprise_id', query.enterprise);
      if (query.branch !== undefined) builder.where('ev.branch_id', query.branch);
      if (query.account !== undefined) builder.where('ev.subject_id', query.account);
      const page = await paginateRows<CashOperationRow>(listOf(direction, builder, query), query, new URL(ctx.href));
      return { ...page, results: page.results.map(toOperation) };
    },
  });

/** One deposit or withdrawal: the receipt. */
const detailRoute = (direction: CashDirection) =>
  defineRoute({
    method: 'get',
    path: `/api/v1/members/${plural[direction]}/{id}/`,
    module: 'members',
    operationId: direction === 'deposit' ? 'getDeposit' : 'getWithdrawal',
    summary: `One ${direction}: the receipt of the counter`,
    access: 'authenticated',
    load: memberLoaders.cashOperation(direction),
    params: idParams,
    response: cashOperationSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => toOperation(resource),
  });

/** Cash deposits and withdrawals of members' accounts. */
const routesOf = (direction: CashDirection) => [moveRoute(direction), accountListRoute(direction), listRoute(direction), detailRoute(direction)];

export const cashOperationRoutes = [...routesOf('deposit'), ...routesOf('withdrawal')];
