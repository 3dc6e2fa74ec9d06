import { keyReusedError } from '../../../activities/idempotency';
import * as yup from 'yup';
import type { Knex } from 'knex';
import { transfersQuery, type TransferRow } from '../../../activities/accounting/bank-accounts.queries';
import { assertNotAfterBusinessDate } from '../../../activities/accounting/supplier-books';
import {
  recordTreasuryTransfer,
  type TreasuryTransferInput,
} from '../../../activities/accounting/treasury-transfers.activity';
import { assertTransferSides } from '../../../domain/accounting/banks';
import { formatAmount } from '../../../domain/money';
import { listQuerySchema, pageSchema } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { amount, moneyResponse } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';
import { bookkeepers, bookReaders, newestDocumentsPage } from './accounting.queries';

const sideDescription =
  'A bank account of the enterprise (of the branch or of the whole enterprise); null or absent: the till (5710).';

const transferBody = yup.object({
  enterprise: yup.string().uuid().required(),
  branch: yup
    .string()
    .uuid()
    .required()
    .meta({ description: "The entry's branch: the till's, and the bank accounts' when they are a branch's." }),
  from_bank_account: yup
    .string()
    .uuid()
    .nullable()
    .meta({ description: `Where the money leaves. ${sideDescription}` }),
  to_bank_account: yup
    .string()
    .uuid()
    .nullable()
    .meta({ description: `Where it goes. ${sideDescription}` }),
  transfer_date: isoDate()
    .required()
    .meta({ description: "The entry's date: in an open accounting year, not after the business date." }),
  amount: amount().required(),
  reference: yup.string().trim().max(100).optional().meta({ description: 'Deposit slip, cheque or transfer number.' }),
});

const transferSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required(),
    from_bank_account: nullableId('null: the till.'),
    to_bank_account: nullableId('null: the till.'),
    from_account: yup.string().required().meta({ description: 'The account credited.', example: '5710' }),
    to_account: yup.string().required().meta({ description: 'The account debited.', example: '5603001' }),
    transfer_date: dateResponse(),
    amount: moneyResponse(),
    reference: yup.string().defined(),
    entry: yup.string().uuid().required().meta({ description: 'The entry it posted, journal BQ.' }),
    recorded_by: yup.string().uuid().required().meta({ description: 'The maker.' }),
    created_at: timestampResponse(),
  })
  .meta({ component: 'TreasuryTransfer' });

const serializeTransfer = (row: TransferRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  from_bank_account: row.from_bank_account_id,
  to_bank_account: row.to_bank_account_id,
  from_account: row.from_account_code,
  to_account: row.to_account_code,
  transfer_date: row.transfer_date,
  amount: row.amount,
  reference: row.reference,
  entry: row.entry_id,
  recorded_by: row.recorded_by,
  created_at: row.created_at.toISOString(),
});

const transferLoader = {
  name: 'The treasury transfer',
  load: async ({ knex }, id) => transfersQuery(knex).where('t.id', id).first() as Promise<TransferRow | undefined>,
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<TransferRow>;

/**
 * The transfer the maker already made with this Idempotency-Key (a retry after the approval): another under the key is
 * refused.
 */
async function transferOfKey(
  knex: Knex,
  makerId: string,
  payload: TreasuryTransferInput,
): Promise<TransferRow | undefined> {
  if (payload.idempotencyKey === null || payload.idempotencyKey === undefined) return undefined;
  const made: TransferRow | undefined = await transfersQuery(knex)
    .where({
      't.recorded_by': makerId,
      't.enterprise_id': payload.enterpriseId,
      't.idempotency_key': payload.idempotencyKey,
    })
    .first();
  if (
    made !== undefined &&
    (made.amount !== payload.amount ||
      made.from_bank_account_id !== payload.fromBankAccountId ||
      made.to_bank_account_id !== payload.toBankAccountId)
  ) {
    throw keyReusedError();
  }
  return made;
}

/**
 * Treasury transfers (issue 28, docs/domain.md §12.6): the till to a bank, a bank to the till or to another bank, under
 * four eyes.
 */
export const treasuryTransferRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/treasury-transfers/',
    module: 'accounting',
    operationId: 'listTreasuryTransfers',
    summary: 'List treasury transfers, newest first',
    access: bookReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(transferSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const columns = { alias: 't', date: 'transfer_date' };
      const page = await newestDocumentsPage<TransferRow>(
        transfersQuery(deps.knex),
        columns,
        principal,
        query,
        ctx.href,
      );
      return { ...page, results: page.results.map(serializeTransfer) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/treasury-transfers/',
    module: 'accounting',
    operationId: 'recordTreasuryTransfer',
    summary: 'Move money from the till to a bank, a bank to the till, or a bank to another, under four eyes',
    description:
      'Operation `treasury.transfer` of the approval policy (default: a branch ' +
      'head, direction or an administrator other than the maker approves). ' +
      'The receiving account is debited and the giving one credited, journal BQ. The same ' +
      'account on both sides is 422 `treasury_transfer_same_account` naming `to_bank_account`; ' +
      "another branch's bank account is 422 `bank_account_unknown`, a deactivated " +
      'one 422 `bank_account_inactive`, each naming its side, before any request.',
    access: bookkeepers,
    status: 201,
    location: '/api/v1/accounting/treasury-transfers/{id}/',
    body: transferBody,
    idempotent: true,
    response: transferSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'treasury_transfer_same_account',
      'bank_account_unknown',
      'bank_account_inactive',
      'as_of_after_business_date',
      'day_closed',
      'idempotency_key_reused',
      ...postingRefusals,
      ...fourEyesRefusals,
    ],
    handler: async ({ body, principal, deps, ctx, authorize, idempotencyKey }) => {
      const scope = { enterpriseId: body.enterprise, branchId: body.branch };
      authorize(scope, 'The branch');
      const payload: TreasuryTransferInput = {
        enterpriseId: body.enterprise,
        branchId: body.branch,
        fromBankAccountId: body.from_bank_account ?? null,
        toBankAccountId: body.to_bank_account ?? null,
        transferDate: body.transfer_date,
        amount: formatAmount(body.amount),
        reference: body.reference ?? '',
        idempotencyKey,
      };
      // Refused before any request: nobody should approve a transfer that cannot be made.
      assertTransferSides(payload.fromBankAccountId, payload.toBankAccountId);
      await assertNotAfterBusinessDate(deps.knex, body.enterprise, deps.clock(), body.transfer_date, 'transfer_date');
      const made = await transferOfKey(deps.knex, principal.userId, payload);
      if (made !== undefined) {
        ctx.set('Idempotent-Replayed', 'true');
        return serializeTransfer(made);
      }
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'treasury.transfer',
          payload,
          scope,
          amount: body.amount,
          idempotencyKey,
          summary: `Treasury transfer of ${payload.amount} XAF`,
        },
        async () => {
          const { id } = await recordTreasuryTransfer(deps.activities, principal, payload);
          return serializeTransfer((await transfersQuery(deps.knex).where('t.id', id).first()) as TransferRow);
        },
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/treasury-transfers/{id}/',
    module: 'accounting',
    operationId: 'getTreasuryTransfer',
    summary: 'Treasury transfer detail',
    access: bookReaders,
    load: transferLoader,
    params: idParams,
    response: transferSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource }) => serializeTransfer(resource),
  }),
];
