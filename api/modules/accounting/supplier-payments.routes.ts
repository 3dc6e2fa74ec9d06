import { keyReusedError } from '../../../activities/idempotency';
import * as yup from 'yup';
import type { Knex } from 'knex';
import {
  recordSupplierPayment,
  reverseSupplierPayment,
  type SupplierPaymentInput,
} from '../../../activities/accounting/supplier-payments.activity';
import { paymentsQuery, type PaymentRow } from '../../../activities/accounting/suppliers.queries';
import { formatAmount } from '../../../domain/money';
import { listQuerySchema, pageSchema } from '../../pagination';
import { defineRoute } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { accountCodeSchema, idParams, isoDate } from '../common.schemas';
import { amount } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';
import {
  accountingLoaders,
  bookFilters,
  bookkeepers,
  bookReaders,
  newestDocumentsPage,
  postingSupplier,
  reversalBody,
  reversalRefusals,
  serializePayments,
  supplierPaymentSchema,
} from './accounting.queries';

const paymentBody = yup.object({
  supplier: yup.string().uuid().required(),
  branch: yup
    .string()
    .uuid()
    .nullable()
    .meta({
      description:
        'Required for a supplier of the whole enterprise; otherwise ' +
        'its branch (default). The invoices settled are of this branch.',
    }),
  payment_date: isoDate()
    .required()
    .meta({ description: "The entry's date: in an open accounting year, not after the business date." }),
  amount: amount().required().meta({ description: 'What is paid: the sum of the allocations.' }),
  paying_account: accountCodeSchema().required().meta({
    description: "A treasury account (class 5): 5710 the till (journal CAI), a bank correspondent's 56x (journal BQ).",
    example: '5710',
  }),
  reference: yup.string().trim().max(100).optional().meta({ description: 'Cheque or transfer number.' }),
  allocations: yup
    .array(
      yup.object({
        invoice: yup.string().uuid().required(),
        amount: amount().required().meta({
          description: 'What the payment settles of the invoice: at most what remains (partial payments allowed).',
        }),
      }),
    )
    .min(1)
    .max(100)
    .required(),
});

/**
 * The payment the maker already made with this Idempotency-Key (a retry after the approval), if any: another payment
 * under the same key is refused. While the request waits, `runOrRequest` answers the request again.
 */
async function paymentOfKey(
  knex: Knex,
  makerId: string,
  payload: SupplierPaymentInput,
): Promise<PaymentRow | undefined> {
  if (payload.idempotencyKey === null || payload.idempotencyKey === undefined) return undefined;
  const made: PaymentRow | undefined = await paymentsQuery(knex)
    .where({ 'p.recorded_by': makerId, 'p.idempotency_key': payload.idempotencyKey })
    .first();
  if (
    made !== undefined &&
    (made.supplier_id !== payload.supplierId ||
      made.amount !== payload.amount ||
      made.paying_account_code !== payload.payingAccount)
  ) {
    throw keyReusedError();
  }
  return made;
}

/** A payment as answered, read again after its activity wrote it. */
const readPayment = async (knex: Knex, id: string) =>
  (await serializePayments(knex, [(await paymentsQuery(knex).where('p.id', id).first()) as PaymentRow]))[0];

/**
 * Payments to suppliers (issue 28, docs/domain.md §12.5): from the till or a bank, settling invoices, under four eyes.
 */
export const supplierPaymentRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/supplier-payments/',
    module: 'accounting',
    operationId: 'listSupplierPayments',
    summary: 'List payments to suppliers, newest first',
    access: bookReaders,
    query: listQuerySchema([], bookFilters),
    response: pageSchema(supplierPaymentSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const columns = { alias: 'p', date: 'payment_date', supplier: true };
      const page = await newestDocumentsPage<PaymentRow>(paymentsQuery(deps.knex), columns, principal, query, ctx.href);
      return { ...page, results: await serializePayments(deps.knex, page.results) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/supplier-payments/',
    module: 'accounting',
    operationId: 'recordSupplierPayment',
    summary:
      'Pay a supplier from the till or a bank, settling its invoices (partial payments allowed), under four eyes',
    description:
      'Operation `supplier_payment` of the approval policy (default: a branch ' +
      'head, direction or an administrator other than the maker approves). ' +
      "The supplier's account is debited and the paying account " +
      'credited. An allocation above what remains on its invoice is 409 ' +
      '`supplier_payment_exceeds_due` naming it; a paying account ' +
      'not of class 5 is 422 `supplier_paying_account_refused`.',
    access: bookkeepers,
    status: 201,
    location: '/api/v1/accounting/supplier-payments/{id}/',
    body: paymentBody,
    idempotent: true,
    response: supplierPaymentSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'supplier_payment_exceeds_due',
      'supplier_paying_account_refused',
      'as_of_after_business_date',
      'day_closed',
      'idempotency_key_reused',
      ...postingRefusals,
      ...fourEyesRefusals,
    ],
    handler: async ({ body, principal, deps, ctx, authorize, idempotencyKey }) => {
      const { supplier, scope } = await postingSupplier(deps.knex, authorize, body);
      const payload = {
        supplierId: supplier.id,
        branchId: body.branch ?? null,
        paymentDate: body.payment_date,
        amount: formatAmount(body.amount),
        payingAccount: body.paying_account,
        reference: body.reference ?? '',
        allocations: body.allocations.map((allocation) => ({
          invoice: allocation.invoice,
          amount: formatAmount(allocation.amount),
        })),
        idempotencyKey,
      };
      const made = await paymentOfKey(deps.knex, principal.userId, payload);
      if (made !== undefined) {
        ctx.set('Idempotent-Replayed', 'true');
        return (await serializePayments(deps.knex, [made]))[0];
      }
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'supplier_payment',
          payload,
          scope,
          amount: body.amount,
          idempotencyKey,
          summary: `Payment of ${payload.amount} XAF to ${supplier.name} from ${body.paying_account}`,
        },
        async () => {
          const { id } = await recordSupplierPayment(deps.activities, principal, payload);
          return readPayment(deps.knex, id);
        },
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/supplier-payments/{id}/',
    module: 'accounting',
    operationId: 'getSupplierPayment',
    summary: 'Payment detail, with the invoices it settled',
    access: bookReaders,
    load: accountingLoaders.payment,
    params: idParams,
    response: supplierPaymentSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, deps }) => (await serializePayments(deps.knex, [resource]))[0],
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/supplier-payments/{id}/reversal/',
    module: 'accounting',
    operationId: 'reverseSupplierPayment',
    summary:
      'Reverse a payment posted by mistake: its entry reversed ' +
      'on the date given, its invoices open again, under four eyes',
    description:
      'Operation `supplier_payment.reverse` of the approval policy (default: a ' +
      'branch head, direction or an administrator other than the maker approves). ' +
      "From the reversal's date on, what the payment settled is owed again and its invoices are open items.",
    access: bookkeepers,
    status: 200,
    load: accountingLoaders.payment,
    params: idParams,
    body: reversalBody,
    response: supplierPaymentSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...reversalRefusals, ...postingRefusals, ...fourEyesRefusals],
    handler: async ({ params, body, principal, deps, ctx, resource }) => {
      const payload = { id: params.id, date: body.date, reason: body.reason };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'supplier_payment.reverse',
          payload,
          scope: accountingLoaders.payment.scope(resource),
          summary: `Reversal of the payment of ${resource.amount} XAF to ${resource.supplier_name} on ${body.date}`,
        },
        async () => {
          await reverseSupplierPayment(deps.activities, principal, payload);
          return readPayment(deps.knex, params.id);
        },
      );
    },
  }),
];
