import * as yup from 'yup';
import { changeAccountStatus, openAccount } from '../../../activities/members/member-accounts.activity';
import { listQuerySchema, pageSchema, paginate, paginateRows } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { visibleRows } from '../list-rows';
import {
  accountStatementQuery,
  accountWithHolds,
  memberAccountsQuery,
  reconciliationGapsQuery,
  withHolds,
} from '../../../activities/members/member-accounts.queries';
import { memberLoaders } from './members.queries';
import {
  earlyClosureSchema,
  memberAccountSchema,
  openedAccountSchema,
  reconciliationGapSchema,
  serializeAccount,
  serializeEarlyClosure,
  statementLineSchema,
} from './member-accounts.schemas';
import { closeTermDepositEarly } from '../../../activities/members/early-closure.activity';
import { amount } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';

const statusAction = (action: 'freeze' | 'unfreeze' | 'close') =>
  defineRoute({
    method: 'post',
    path: `/api/v1/members/accounts/{id}/${action}/`,
    module: 'members',
    operationId: `${action}MemberAccount`,
    summary: {
      freeze: 'Freeze an account: no movement until unfrozen',
      unfreeze: 'Unfreeze an account',
      close: 'Close an account (final; its balance must be zero)',
    }[action],
    access: ['branch_head', 'direction', 'admin'],
    load: memberLoaders.account,
    params: idParams,
    body: yup.object({ reason: yup.string().trim().required().min(3).max(500) }),
    response: memberAccountSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals:
      action === 'close'
        ? ['invalid_status_transition', 'account_pledged', 'balance_not_zero']
        : ['invalid_status_transition'],
    handler: async ({ resource: account, body, principal: actor, deps }) => {
      const changed = await changeAccountStatus(deps.activities, actor, account.id, action, body.reason);
      return serializeAccount(await accountWithHolds(deps.knex, changed));
    },
  });

/** Members' accounts (comptes clients): opening, detail, status, statement, and the reconciliation with the ledger. */
export const memberAccountRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/members/accounts/',
    module: 'members',
    operationId: 'listMemberAccounts',
    summary: "List members' accounts",
    access: 'authenticated',
    query: listQuerySchema(['number', 'opened_on', 'balance'], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      client: yup.string().uuid().optional(),
      product: yup.string().uuid().optional(),
      status: yup.string().oneOf(['open', 'frozen', 'closed']).optional(),
    }),
    errorStatuses: [401],
    response: pageSchema(memberAccountSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(memberAccountsQuery(deps.knex), principal, query, {
        enterprise: 'enterprise_id',
        branch: 'branch_id',
        client: 'client_id',
        product: 'product_id',
        status: 'status',
      });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { number: 'number', opened_on: 'opened_on', balance: 'balance' },
        defaultOrdering: 'number',
      });
      return { ...page, results: (await withHolds(deps.knex, page.results)).map(serializeAccount) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/members/accounts/',
    module: 'members',
    operationId: 'openMemberAccount',
    summary: 'Open an account for a member, with its initial deposit (cashier, branch head, direction, administrators)',
    description: 'Send an Idempotency-Key header to make a retry safe: the same key and body answer the first result.',
    access: ['cashier', 'branch_head', 'direction', 'admin'],
    idempotent: true,
    status: 201,
    location: '/api/v1/members/accounts/{id}/',
    body: yup.object({
      client: yup.string().uuid().required(),
      product: yup.string().uuid().required(),
      initial_deposit: amount().optional(),
      payout_account: yup.string().uuid().optional().meta({
        description:
          "Term deposits: the member's open demand account paid at maturity (default: the member's first open one).",
      }),
    }),
    errorStatuses: [401, 403, 404, 409],
    response: openedAccountSchema,
    refusals: [
      ...postingRefusals,
      'account_closed',
      'account_frozen',
      'idempotency_key_reused',
      'insufficient_funds',
      'member_not_active',
      'withdrawals_not_allowed',
    ],
    handler: async ({ body, principal: actor, deps, ctx, idempotencyKey, load }) => {
      await load(memberLoaders.client, body.client);
      const { account, initialDeposit } = await openAccount(deps.activities, actor, {
        clientId: body.client,
        productId: body.product,
        initialDeposit: body.initial_deposit ?? null,
        idempotencyKey,
        payoutAccountId: body.payout_account ?? null,
      });
      const opened = serializeAccount(await accountWithHolds(deps.knex, account));
      if (initialDeposit === null) return { ...opened, initial_deposit: null };
      const { replayed, ...deposit } = initialDeposit;
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      return { ...opened, initial_deposit: deposit };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/members/accounts/{id}/',
    module: 'members',
    operationId: 'getMemberAccount',
    summary: 'Account detail with its balance',
    access: 'authenticated',
    load: memberLoaders.account,
    params: idParams,
    errorStatuses: [401, 404],
    response: memberAccountSchema,
    handler: async ({ resource, deps }) => serializeAccount(await accountWithHolds(deps.knex, resource)),
  }),
  statusAction('freeze'),
  statusAction('unfreeze'),
  statusAction('close'),
  defineRoute({
    method: 'post',
    path: '/api/v1/members/accounts/{id}/early-closure/',
    module: 'members',
    operationId: 'closeTermDepositEarly',
    summary:
      "Close a term deposit before its maturity at the member's request (branch head, direction, " +
      "administrators): its term earns the product's early_closure_rate",
    description:
      'On the business date (docs/domain.md §9): the interest of the running term (from its opening or last ' +
      'renewal to the day before) is recomputed at the ' +
      "product's early_closure_rate, the interest already paid to the demand account beyond it is taken back " +
      'from the principal (the tax withheld on it given back), ' +
      'and the principal with the difference goes to the payout account; the account closes at zero. Refused ' +
      '(409) when the account is not a term deposit ' +
      '(not_a_term_deposit), not open (account_not_open) or at or past its maturity (term_deposit_matured).',
    access: ['branch_head', 'direction', 'admin'],
    load: memberLoaders.account,
    params: idParams,
    body: yup.object({
      reason: yup
        .string()
        .trim()
        .required()
        .min(3)
        .max(500)
        .meta({ description: 'Why the member closes early, kept in the audit trail.' }),
    }),
    response: earlyClosureSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: [
      ...postingRefusals,
      'account_not_open',
      'account_pledged',
      'idempotency_key_reused',
      'no_payout_account',
      'not_a_term_deposit',
      'rule_inactive',
      'term_deposit_matured',
    ],
    handler: async ({ resource: account, body, principal: actor, deps }) => {
      return serializeEarlyClosure(await closeTermDepositEarly(deps.activities, actor, account.id, body.reason));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/members/accounts/{id}/statement/',
    module: 'members',
    operationId: 'getMemberAccountStatement',
    summary: "Statement: the account's ledger movements over a date range with the running balance",
    description:
      'An imported account starts with its balance at the cut-over (kind import.opening_balance, no event, ' +
      "the journal entry its branch's opening entry: " +
      'docs/domain.md §15.1).',
    access: 'authenticated',
    load: memberLoaders.account,
    params: idParams,
    query: listQuerySchema([], { date_from: isoDate().optional(), date_to: isoDate().optional() }),
    errorStatuses: [401, 404],
    response: pageSchema(statementLineSchema),
    refusals: ['page_not_found'],
    handler: async ({ resource: account, query, deps, ctx }) => {
      return paginateRows(accountStatementQuery(deps.knex, account.id, query), query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/members/reconciliation/',
    module: 'members',
    operationId: 'reconcileMemberAccounts',
    summary:
      'Accounts whose balance differs from their ledger movements (direction, administrators, auditors, ' +
      'accountants): always empty',
    access: ['direction', 'admin', 'auditor', 'accountant'],
    query: listQuerySchema([], { enterprise: yup.string().uuid().required() }),
    errorStatuses: [401, 403, 404],
    response: pageSchema(reconciliationGapSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, deps, ctx, authorize }) => {
      authorize({ enterpriseId: query.enterprise }, 'The enterprise');
      return paginateRows(reconciliationGapsQuery(deps.knex, query.enterprise), query, new URL(ctx.href));
    },
  }),
];
