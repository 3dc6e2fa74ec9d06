import * as yup from 'yup';
import type { Knex } from 'knex';
import {
  assertInterBranchService,
  recordInterBranchOperation,
  type InterBranchDirection,
  type InterBranchInput,
} from '../../../activities/cash/inter-branch.activity';
import { NotFoundError } from '../../../domain/errors';
import { formatAmount, Money } from '../../../domain/money';
import { Branch } from '../../../db/models/branch.model';
import { CompteClient } from '../../../db/models/compte-client.model';
import { requireRole } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import type { AppContext } from '../../context';
import type { RouteDeps } from '../../deps';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { scopeToEitherBranch, seesEitherBranch, whereEither } from '../enterprise-scope';
import { entryOf } from '../events/events.queries';
import { amount, moneyResponse, tellers } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';

const uuid = () => yup.string().uuid().required();

const operationSchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    direction: yup
      .string()
      .oneOf(['deposit', 'withdrawal'] as const)
      .required(),
    account: uuid().meta({ description: "The member account, of another branch than the counter's." }),
    account_number: yup.string().required(),
    account_branch: uuid().meta({ description: "The account's branch: its books move the member's money." }),
    counter_branch: uuid().meta({
      description:
        'The branch whose counter took or paid the cash: its books ' +
        "move the cash (the cashier's till under till control).",
    }),
    amount: moneyResponse(),
    reference: yup.string().defined(),
    business_date: dateResponse(),
    cash_entry: nullableId("The entry of the counter's branch: the cash against 45200."),
    account_entry: nullableId("The entry of the account's branch: the member's deposits against 45200."),
    recorded_by: uuid().meta({ description: 'The cashier (the maker).' }),
    created_at: timestampResponse(),
  })
  .meta({ component: 'InterBranchOperation' });

interface OperationRow {
  id: string;
  enterprise_id: string;
  direction: InterBranchDirection;
  account_id: string;
  account_number: string;
  account_branch_id: string;
  counter_branch_id: string;
  amount: string;
  reference: string;
  business_date: string;
  cash_entry: string | null;
  account_entry: string | null;
  recorded_by: string;
  created_at: Date;
}

const operationsQuery = (knex: Knex) =>
  knex('inter_branch_operations as o')
    .join('comptes_clients as a', 'a.id', 'o.account_id')
    .select(
      'o.id',
      'o.enterprise_id',
      'o.direction',
      'o.account_id',
      'a.number as account_number',
      'o.account_branch_id',
      'o.counter_branch_id',
      'o.amount',
      'o.reference',
      'o.business_date',
      'o.recorded_by',
      'o.created_at',
      entryOf(knex, 'o.cash_event_id').as('cash_entry'),
      entryOf(knex, 'o.account_event_id').as('account_entry'),
    );

const serializeOperation = (row: OperationRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  direction: row.direction,
  account: row.account_id,
  account_number: row.account_number,
  account_branch: row.account_branch_id,
  counter_branch: row.counter_branch_id,
  amount: row.amount,
  reference: row.reference,
  business_date: row.business_date,
  cash_entry: row.cash_entry,
  account_entry: row.account_entry,
  recorded_by: row.recorded_by,
  created_at: row.created_at.toISOString(),
});

const operationById = async (knex: Knex, id: string) =>
  (await operationsQuery(knex).where('o.id', id).first()) as OperationRow | undefined;

/**
 * The counter's branch, where the cashier must hold their role (a branch's own loader checks changes at the
 * enterprise).
 */
const counterLoader = {
  name: 'The branch',
  load: async ({ knex }, id) => Branch.query(knex).findById(id),
  scope: (branch) => ({ enterpriseId: branch.enterpriseId, branchId: branch.id }),
} satisfies Loader<Branch>;

/**
 * The account served: of the counter's enterprise, whatever its branch (that is the point); nothing else of it is read
 * here.
 */
async function servedAccount(knex: Knex, accountId: string, branch: Branch): Promise<CompteClient> {
  const account = await CompteClient.query(knex).findById(accountId);
  if (account === undefined || account.enterpriseId !== branch.enterpriseId) throw new NotFoundError('The account');
  return account;
}

const lookupSchema = yup
  .object({
    account: uuid(),
    number: yup.string().required(),
    holder_name: yup.string().required(),
    status: yup
      .string()
      .oneOf(['open', 'frozen', 'closed'] as const)
      .required(),
    branch: uuid().meta({ description: "The account's branch." }),
  })
  .meta({ component: 'InterBranchAccount' });

/** The holder's name as the counter calls the member: a legal entity's name, else first and last names. */
const holderName = (knex: Knex) =>
  knex.raw(
    `CASE WHEN c.legal_name <> '' THEN c.legal_name ELSE trim(c.first_name || ' ' || c.last_name) END AS holder_name`,
  );

const operationBody = yup.object({
  account: uuid().meta({
    description: 'The member account, found by its number (`GET /api/v1/cash/inter-branch/accounts/`).',
  }),
  branch: uuid().meta({ description: "The counter's branch, where the cashier works: not the account's." }),
  amount: amount().required(),
  reference: yup.string().trim().max(100).default(''),
});

interface Counter {
  deps: RouteDeps;
  principal: Principal;
  ctx: AppContext;
}

const answerOperation = async ({ deps, principal, ctx }: Counter, payload: InterBranchInput) => {
  const made = await recordInterBranchOperation(deps.activities, principal, payload);
  if (made.replayed) ctx.set('Idempotent-Replayed', 'true');
  return serializeOperation((await operationById(deps.knex, made.id))!);
};

/**
 * A withdrawal from the policy's threshold is a request of the counter's branch; a key that already paid out answers
 * the withdrawal (a retry).
 */
async function withdrawal(
  counter: Counter,
  payload: InterBranchInput,
  scope: { enterpriseId: string; branchId: string },
  number: string,
) {
  const { deps, principal } = counter;
  const keyUsed =
    payload.idempotencyKey !== null &&
    (await deps
      .knex('inter_branch_operations')
      .where({
        enterprise_id: scope.enterpriseId,
        recorded_by: principal.userId,
        idempotency_key: payload.idempotencyKey,
      })
      .first('id')) !== undefined;
  if (keyUsed) return answerOperation(counter, payload);
  return runOrRequest(
    counter,
    {
      operation: 'member_account.inter_branch_withdrawal',
      payload,
      scope,
      amount: new Money(payload.amount),
      idempotencyKey: payload.idempotencyKey,
      summary: `Cash withdrawal of ${payload.amount} XAF from account ${number} at another branch`,
    },
    () => answerOperation(counter, payload),
  );
}

const moveRoute = (direction: InterBranchDirection) =>
  defineRoute({
    method: 'post',
    path: `/api/v1/cash/inter-branch/${direction}s/`,
    module: 'cash',
    operationId: direction === 'deposit' ? 'depositAtAnotherBranch' : 'withdrawAtAnotherBranch',
    summary:
      `${direction === 'deposit' ? 'Deposit cash on' : 'Withdraw cash from'} a ` +
      `member account of another branch (cashier, branch head of the counter's branch)`,
    description:
      "When the enterprise allows it (`inter_branch_service`): the cash moves in the counter's " +
      "branch (the cashier's till and open session under till control), the account in its own, " +
      "each branch's books balanced through 45200. The account's rules are a local operation's. " +
      'Send an Idempotency-Key: a retry with the same key and body answers the first operation.' +
      (direction === 'withdrawal'
        ? " From the approval policy's threshold (`member_account.inter_branch_withdrawal`, 5 000 000 XAF by " +
          'default) the withdrawal is a request (202) a branch head of the counter or the direction approves.'
        : ''),
    access: tellers,
    status: 201,
    location: '/api/v1/cash/inter-branch/operations/{id}/',
    body: operationBody,
    idempotent: true,
    response: operationSchema,
    ...(direction === 'withdrawal' ? fourEyesRoute : {}),
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'inter_branch_service_off',
      'inter_branch_branch_invalid',
      'inter_branch_same_branch',
      'account_closed',
      'account_frozen',
      'idempotency_key_reused',
      ...postingRefusals,
      ...(direction === 'withdrawal'
        ? (['insufficient_funds', 'withdrawals_not_allowed', ...fourEyesRefusals] as const)
        : []),
    ],
    handler: async ({ body, principal, deps, ctx, load, idempotencyKey }) => {
      const branch = await load(counterLoader, body.branch);
      const account = await servedAccount(deps.knex, body.account, branch);
      const payload: InterBranchInput = {
        direction,
        accountId: account.id,
        counterBranchId: branch.id,
        amount: formatAmount(body.amount),
        reference: body.reference,
        idempotencyKey,
      };
      const counter = { deps, principal, ctx };
      if (direction === 'deposit') return answerOperation(counter, payload);
      return withdrawal(counter, payload, { enterpriseId: branch.enterpriseId, branchId: branch.id }, account.number);
    },
  });

/** A member served at another branch's counter (issue 29, docs/domain.md §13.4). */
export const interBranchRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/inter-branch/accounts/',
    module: 'cash',
    operationId: 'findAccountForAnotherBranch',
    summary:
      'Find a member account of another branch by its number, for a ' +
      'deposit or a withdrawal at this counter (cashier, branch head)',
    description:
      "Only what the operation needs: the account, its number, the holder's name, its status and " +
      "branch. No balance, no statement, no member list: those stay with the account's branch.",
    // Read by a counter's staff only (checked in the handler, after the query, as a list's roles are).
    access: 'authenticated',
    query: yup.object({
      number: yup.string().trim().max(40).required(),
      branch: uuid().meta({ description: "The counter's branch, where the cashier works." }),
    }),
    response: lookupSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['inter_branch_service_off'],
    handler: async ({ query, principal, deps, load }) => {
      const branch = await load(counterLoader, query.branch);
      requireRole(principal, tellers, counterLoader.scope(branch), 'The branch');
      await assertInterBranchService(deps.knex, branch.enterpriseId);
      const row = await deps
        .knex('comptes_clients as a')
        .join('client_profiles as c', 'c.id', 'a.client_id')
        .where({ 'a.enterprise_id': branch.enterpriseId, 'a.number': query.number })
        .first('a.id', 'a.number', 'a.status', 'a.branch_id', holderName(deps.knex));
      if (row === undefined) throw new NotFoundError('The account');
      return {
        account: row.id,
        number: row.number,
        holder_name: row.holder_name,
        status: row.status,
        branch: row.branch_id,
      };
    },
  }),
  moveRoute('deposit'),
  moveRoute('withdrawal'),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/inter-branch/operations/',
    module: 'cash',
    operationId: 'listInterBranchOperations',
    summary: "List deposits and withdrawals made at another branch's counter, newest first",
    description: 'A user of some branches sees the operations of which the account or the counter is in one of them.',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup
        .string()
        .uuid()
        .optional()
        .meta({ description: 'Operations of which the account or the counter is in this branch.' }),
      direction: yup
        .string()
        .oneOf(['deposit', 'withdrawal'] as const)
        .optional(),
      account: yup.string().uuid().optional(),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(operationSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToEitherBranch(operationsQuery(deps.knex), principal, {
        enterprise: 'o.enterprise_id',
        branches: ['o.account_branch_id', 'o.counter_branch_id'],
      });
      whereFilters(rows, query, {
        enterprise: 'o.enterprise_id',
        direction: 'o.direction',
        account: 'o.account_id',
        date_from: ['o.business_date', '>='],
        date_to: ['o.business_date', '<='],
      });
      whereEither(rows, ['o.account_branch_id', 'o.counter_branch_id'], query.branch);
      const page = await paginateRows<OperationRow>(
        rows.orderBy([{ column: 'o.created_at', order: 'desc' }, { column: 'o.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeOperation) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/inter-branch/operations/{id}/',
    module: 'cash',
    operationId: 'getInterBranchOperation',
    summary: "One deposit or withdrawal at another branch's counter: the receipt",
    access: 'authenticated',
    params: idParams,
    response: operationSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const row = await operationById(deps.knex, params.id);
      const seen =
        row !== undefined &&
        seesEitherBranch(principal, row.enterprise_id, [row.account_branch_id, row.counter_branch_id]);
      if (!seen) throw new NotFoundError('The operation');
      return serializeOperation(row);
    },
  }),
];
