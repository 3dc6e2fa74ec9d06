import * as yup from 'yup';
import type { Knex } from 'knex';
import { recordMemberTransfer, type MemberTransferInput } from '../../../activities/cash/member-transfers.activity';
import { NotFoundError } from '../../../domain/errors';
import { formatAmount } from '../../../domain/money';
import { CompteClient } from '../../../db/models/compte-client.model';
import type { Principal } from '../../auth/principal';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { scopeToEitherBranch, seesEitherBranch, whereEither } from '../enterprise-scope';
import { entryOf } from '../events/events.queries';
import { amount, moneyResponse, tellers } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';

const uuid = () => yup.string().uuid().required();

const transferSchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    from_account: uuid().meta({ description: 'The member account debited.' }),
    from_account_number: yup.string().required(),
    from_branch: uuid(),
    to_account: uuid().meta({ description: 'The member account credited.' }),
    to_account_number: yup.string().required(),
    to_branch: uuid(),
    amount: moneyResponse(),
    reference: yup.string().defined(),
    business_date: dateResponse(),
    between_branches: yup.boolean().required().meta({
      description:
        'true: each branch posted its part through 45200 (liaison between branches); false: both parts through 459.',
    }),
    debit_entry: nullableId("The entry of the giving account's branch (null: its rule is inactive)."),
    credit_entry: nullableId("The entry of the receiving account's branch."),
    recorded_by: uuid().meta({ description: 'The maker.' }),
    created_at: timestampResponse(),
  })
  .meta({ component: 'MemberTransfer' });

interface TransferRow {
  id: string;
  enterprise_id: string;
  from_account_id: string;
  from_account_number: string;
  from_branch_id: string;
  to_account_id: string;
  to_account_number: string;
  to_branch_id: string;
  amount: string;
  reference: string;
  business_date: string;
  debit_entry: string | null;
  credit_entry: string | null;
  recorded_by: string;
  created_at: Date;
}

const transfersQuery = (knex: Knex) =>
  knex('member_transfers as t')
    .join('comptes_clients as fa', 'fa.id', 't.from_account_id')
    .join('comptes_clients as ta', 'ta.id', 't.to_account_id')
    .select(
      't.id',
      't.enterprise_id',
      't.from_account_id',
      'fa.number as from_account_number',
      't.from_branch_id',
      't.to_account_id',
      'ta.number as to_account_number',
      't.to_branch_id',
      't.amount',
      't.reference',
      't.business_date',
      't.recorded_by',
      't.created_at',
      entryOf(knex, 't.debit_event_id').as('debit_entry'),
      entryOf(knex, 't.credit_event_id').as('credit_entry'),
    );

const serializeTransfer = (row: TransferRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  from_account: row.from_account_id,
  from_account_number: row.from_account_number,
  from_branch: row.from_branch_id,
  to_account: row.to_account_id,
  to_account_number: row.to_account_number,
  to_branch: row.to_branch_id,
  amount: row.amount,
  reference: row.reference,
  business_date: row.business_date,
  between_branches: row.from_branch_id !== row.to_branch_id,
  debit_entry: row.debit_entry,
  credit_entry: row.credit_entry,
  recorded_by: row.recorded_by,
  created_at: row.created_at.toISOString(),
});

const transferById = async (knex: Knex, id: string) =>
  (await transfersQuery(knex).where('t.id', id).first()) as TransferRow | undefined;

/** Branch isolation: a transfer is seen by the staff of either of its branches (and over the whole enterprise). */
const seesTransfer = (principal: Principal, row: TransferRow) =>
  seesEitherBranch(principal, row.enterprise_id, [row.from_branch_id, row.to_branch_id]);

const transferBody = yup.object({
  from_account: uuid().meta({
    description: 'The member account the money leaves: of a branch where the maker is a cashier or the branch head.',
  }),
  to_account: uuid().meta({ description: 'Another member account of the enterprise, of any branch.' }),
  amount: amount().required(),
  reference: yup.string().trim().max(100).default(''),
});

/** Transfers between members (issue 29, docs/domain.md §13.5): no cash, each account's branch posts its part. */
export const memberTransferRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/transfers/',
    module: 'cash',
    operationId: 'listMemberTransfers',
    summary: 'List transfers between member accounts, newest first',
    description: 'A user of some branches sees the transfers with either side in one of them.',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional().meta({ description: 'Transfers with either side in this branch.' }),
      account: yup.string().uuid().optional().meta({ description: 'Transfers from or to this member account.' }),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(transferSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToEitherBranch(transfersQuery(deps.knex), principal, {
        enterprise: 't.enterprise_id',
        branches: ['t.from_branch_id', 't.to_branch_id'],
      });
      whereFilters(rows, query, {
        enterprise: 't.enterprise_id',
        date_from: ['t.business_date', '>='],
        date_to: ['t.business_date', '<='],
      });
      whereEither(rows, ['t.from_branch_id', 't.to_branch_id'], query.branch);
      whereEither(rows, ['t.from_account_id', 't.to_account_id'], query.account);
      const page = await paginateRows<TransferRow>(
        rows.orderBy([{ column: 't.created_at', order: 'desc' }, { column: 't.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeTransfer) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/transfers/',
    module: 'cash',
    operationId: 'recordMemberTransfer',
    summary: 'Transfer money from one member account to another, of the same branch or another (cashier, branch head)',
    description:
      'No cash moves: the giving account is debited in its branch and the ' +
      'receiving one credited in its own, through 459 within a branch and 45200 ' +
      "(liaison between branches) across two. The giving account follows a withdrawal's " +
      'rules (open, withdrawals allowed, the minimum balance and the held amounts); ' +
      'the receiving one must be open. Send an Idempotency-Key: a retry with the same key ' +
      'and body answers the first transfer (`Idempotent-Replayed`), another body is 409. ' +
      "From the approval policy's threshold (`member_account.transfer`, 5 000 000 XAF by default) " +
      'the transfer is a request (202), made when a branch head or the direction approves it.',
    access: tellers,
    status: 201,
    location: '/api/v1/cash/transfers/{id}/',
    body: transferBody,
    idempotent: true,
    response: transferSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'transfer_account_invalid',
      'account_closed',
      'account_frozen',
      'insufficient_funds',
      'withdrawals_not_allowed',
      'idempotency_key_reused',
      ...postingRefusals,
      ...fourEyesRefusals,
    ],
    handler: async ({ body, principal, deps, ctx, authorize, idempotencyKey }) => {
      const from = await CompteClient.query(deps.knex).findById(body.from_account);
      if (from === undefined) throw new NotFoundError('The account');
      const scope = { enterpriseId: from.enterpriseId, branchId: from.branchId };
      authorize(scope, 'The account');
      const payload: MemberTransferInput = {
        fromAccountId: body.from_account,
        toAccountId: body.to_account,
        amount: formatAmount(body.amount),
        reference: body.reference,
        idempotencyKey,
      };
      const answer = async () => {
        const made = await recordMemberTransfer(deps.activities, principal, payload);
        if (made.replayed) ctx.set('Idempotent-Replayed', 'true');
        return serializeTransfer((await transferById(deps.knex, made.id))!);
      };
      // A key that already made a transfer (a retry, also after an approval) answers it, as below the threshold.
      const keyUsed =
        idempotencyKey !== null &&
        (await deps
          .knex('member_transfers')
          .where({ enterprise_id: from.enterpriseId, recorded_by: principal.userId, idempotency_key: idempotencyKey })
          .first('id')) !== undefined;
      if (keyUsed) return answer();
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'member_account.transfer',
          payload,
          scope,
          amount: body.amount,
          idempotencyKey,
          summary: `Transfer of ${payload.amount} XAF from account ${from.number}`,
        },
        answer,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/transfers/{id}/',
    module: 'cash',
    operationId: 'getMemberTransfer',
    summary: 'Transfer detail',
    access: 'authenticated',
    params: idParams,
    response: transferSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const row = await transferById(deps.knex, params.id);
      if (row === undefined || !seesTransfer(principal, row)) throw new NotFoundError('The transfer');
      return serializeTransfer(row);
    },
  }),
];
