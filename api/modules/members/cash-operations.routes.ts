import * as yup from 'yup';
import {
  cashKeyUsed,
  depositCash,
  toOperation,
  withdrawCash,
  type CashDirection,
  type CashOperationInput,
  type CashOperationRow,
} from '../../../activities/members/cash-operations.activity';
import { cashOperationsOf } from '../../../activities/members/cash-operations.queries';
import { tillLimitWarning } from '../../../activities/cash/till-transfers.queries';
import type { Scope } from '../../../domain/access';
import type { ErrorCode } from '../../../domain/error-catalogue';
import { formatAmount } from '../../../domain/money';
import type { Principal } from '../../auth/principal';
import type { AppContext } from '../../context';
import type { RouteDeps } from '../../deps';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { memberLoaders } from './members.queries';
import { cashOperationSchema } from './member-accounts.schemas';
import { amount, tellers } from '../money.schemas';

const plural = { deposit: 'deposits', withdrawal: 'withdrawals' } as const;
const accountParams = yup.object({ id: yup.string().uuid().required() });
const dateFilters = { date_from: isoDate().optional(), date_to: isoDate().optional() };

interface Counter {
  deps: RouteDeps;
  principal: Principal;
  ctx: AppContext;
}

/** The movement made now: its receipt, a retry's marked as replayed. */
async function moveNow({ deps, principal, ctx }: Counter, direction: CashDirection, input: CashOperationInput) {
  const operation = await (direction === 'deposit' ? depositCash : withdrawCash)(deps.activities, principal, input);
  if (operation.replayed) ctx.set('Idempotent-Replayed', 'true');
  const { replayed: _replayed, ...answer } = operation;
  // Issue 29 (docs/domain.md §13.2): a till above its cash limit is told to hand cash to the vault.
  return { ...answer, ...(await tillLimitWarning(deps.knex, principal.userId)) };
}

/**
 * A withdrawal from the policy's threshold waits for a second person (docs/domain.md §11): its request holds the
 * whole movement, the client's key included, so the approval makes it as the maker's with that key. A key that
 * already moved the cash (a retry after the approval) answers that movement, as below the threshold.
 */
async function withdrawal(counter: Counter, account: Scope, input: CashOperationInput) {
  const { deps, principal } = counter;
  if (
    input.idempotencyKey !== null &&
    (await cashKeyUsed(deps.knex, principal, account.enterpriseId, input.idempotencyKey))
  )
    return moveNow(counter, 'withdrawal', input);
  const payload = { ...input, amount: formatAmount(input.amount) };
  return runOrRequest(
    counter,
    {
      operation: 'member_account.withdrawal',
      payload,
      scope: account,
      amount: input.amount,
      idempotencyKey: input.idempotencyKey,
      summary: `Cash withdrawal of ${payload.amount} XAF from account ${input.accountId}`,
    },
    () => moveNow(counter, 'withdrawal', input),
  );
}

/** What both can meet: the account's state and its ledger account, the enterprise's, the year's, a reused key. */
const accountMoveRefusals = [
  'account_closed',
  'account_frozen',
  'account_inactive',
  'account_not_leaf',
  'account_unknown',
  'enterprise_suspended',
  'exercice_closed',
  'idempotency_key_reused',
] as const;

/** What a deposit and a withdrawal at the counter can meet. */
const moveRefusals = {
  deposit: [...accountMoveRefusals, 'no_exercice_for_date', 'till_session_required'],
  withdrawal: [
    ...accountMoveRefusals,
    'insufficient_funds',
    'no_exercice_for_date',
    'till_session_required',
    'withdrawals_not_allowed',
    ...fourEyesRefusals,
  ],
} satisfies Record<CashDirection, readonly ErrorCode[]>;

/** A deposit or a withdrawal at the counter: posted through the ledger, idempotent by header. */
const moveRoute = (direction: CashDirection) =>
  defineRoute({
    method: 'post',
    path: `/api/v1/members/accounts/{id}/${plural[direction]}/`,
    module: 'members',
    operationId: direction === 'deposit' ? 'depositCash' : 'withdrawCash',
    summary:
      direction === 'deposit'
        ? 'Deposit cash on an account (cashier, branch head)'
        : 'Withdraw cash from an account (cashier, branch head)',
    description:
      'Send an Idempotency-Key header: a retry with the same key and body answers the first result and moves ' +
      'nothing; the same key with another body is refused (409).' +
      (direction === 'withdrawal'
        ? " From the approval policy's threshold (`member_account.withdrawal`, 5 000 000 XAF by default) the " +
          'withdrawal is a request (202): ' +
          "the cash moves when a branch head or the direction approves it, the account's rules checked again " +
          'then; a retry with the key answers the request, or the withdrawal once made.'
        : ''),
    access: tellers,
    idempotent: true,
    status: 201,
    location: `/api/v1/members/${plural[direction]}/{id}/`,
    load: memberLoaders.accountScope,
    params: accountParams,
    body: yup.object({
      amount: amount().required(),
      channel: yup
        .string()
        .oneOf(['cash'] as const)
        .default('cash'),
      reference: yup.string().trim().max(100).default(''),
    }),
    response: cashOperationSchema,
    ...(direction === 'withdrawal' ? fourEyesRoute : {}),
    errorStatuses: [401, 403, 404, 409],
    refusals: moveRefusals[direction],
    handler: async ({ params, body, principal, deps, ctx, idempotencyKey, resource: account }) => {
      const input = {
        accountId: params.id,
        amount: body.amount,
        channel: body.channel,
        reference: body.reference,
        idempotencyKey,
      };
      return direction === 'deposit'
        ? moveNow({ deps, principal, ctx }, direction, input)
        : withdrawal({ deps, principal, ctx }, account, input);
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
      const page = await paginateRows<CashOperationRow>(
        cashOperationsOf(deps.knex, direction, query).where('ev.subject_id', account.id),
        query,
        new URL(ctx.href),
      );
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
    query: listQuerySchema([], {
      ...dateFilters,
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      account: yup.string().uuid().optional(),
    }),
    response: pageSchema(cashOperationSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(cashOperationsOf(deps.knex, direction, query), principal, query, {
        enterprise: 'ev.enterprise_id',
        branch: 'ev.branch_id',
        account: 'ev.subject_id',
      });
      const page = await paginateRows<CashOperationRow>(builder, query, new URL(ctx.href));
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
const routesOf = (direction: CashDirection) => [
  moveRoute(direction),
  accountListRoute(direction),
  listRoute(direction),
  detailRoute(direction),
];

export const cashOperationRoutes = [...routesOf('deposit'), ...routesOf('withdrawal')];
