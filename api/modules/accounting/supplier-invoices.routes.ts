import * as yup from 'yup';
import type { Knex } from 'knex';
import {
  recordSupplierInvoice,
  reverseSupplierInvoice,
} from '../../../activities/accounting/supplier-invoices.activity';
import { invoicesQuery, type InvoiceRow } from '../../../activities/accounting/suppliers.queries';
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
  serializeInvoices,
  supplierInvoiceSchema,
} from './accounting.queries';

const invoiceBody = yup.object({
  supplier: yup.string().uuid().required(),
  branch: yup
    .string()
    .uuid()
    .nullable()
    .meta({ description: 'Required for a supplier of the whole enterprise; otherwise its branch (default).' }),
  number: yup
    .string()
    .trim()
    .min(1)
    .max(60)
    .required()
    .meta({ description: "The supplier's invoice number: unique per supplier." }),
  invoice_date: isoDate()
    .required()
    .meta({ description: "The entry's date: in an open accounting year, not after the business date." }),
  due_date: isoDate()
    .required()
    .test(
      'after',
      'due_date must not be before invoice_date',
      (due, { parent }) => due === undefined || parent.invoice_date === undefined || due >= parent.invoice_date,
    ),
  label: yup.string().trim().min(1).max(200).required(),
  amount: amount().required().meta({ description: "The invoice's total: the sum of its lines." }),
  lines: yup
    .array(
      yup.object({
        account: accountCodeSchema()
          .required()
          .meta({
            description:
              'An expense (class 6: 65211 electricity, 65234 rent…) ' +
              'or a recoverable tax under 430 (4305 TVA déductible).',
          }),
        amount: amount().required(),
        label: yup.string().trim().min(1).max(200).required(),
      }),
    )
    .min(1)
    .max(50)
    .required(),
});

/** An invoice as answered, read again after its activity wrote it. */
const readInvoice = async (knex: Knex, id: string) =>
  (await serializeInvoices(knex, [(await invoicesQuery(knex).where('i.id', id).first()) as InvoiceRow]))[0];

/** Expense invoices (issue 28, docs/domain.md §12.5): booked to the supplier's account under four eyes. */
export const supplierInvoiceRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/supplier-invoices/',
    module: 'accounting',
    operationId: 'listSupplierInvoices',
    summary: 'List expense invoices, newest first',
    access: bookReaders,
    query: listQuerySchema([], {
      ...bookFilters,
      open: yup.boolean().optional().meta({
        description: 'true: only the invoices with something left to pay; false: only those paid or reversed.',
      }),
    }),
    response: pageSchema(supplierInvoiceSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = invoicesQuery(deps.knex);
      if (query.open !== undefined)
        rows.whereRaw(`${query.open ? '' : 'NOT '}(rv.id IS NULL AND i.amount > COALESCE(x.total, 0))`);
      const columns = { alias: 'i', date: 'invoice_date', supplier: true };
      const page = await newestDocumentsPage<InvoiceRow>(rows, columns, principal, query, ctx.href);
      return { ...page, results: await serializeInvoices(deps.knex, page.results) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/supplier-invoices/',
    module: 'accounting',
    operationId: 'recordSupplierInvoice',
    summary:
      "Book an expense invoice: each line's expense debited, the " +
      "supplier's account credited (journal OD), under four eyes",
    description:
      'Operation `supplier_invoice.record` of the approval policy (default: a ' +
      'branch head, direction or an administrator other than the maker approves). ' +
      'A line on another account than class 6 or 430 is 422 `supplier_invoice_account_refused` ' +
      'naming it; a number the supplier already used is 409 naming `number`.',
    access: bookkeepers,
    status: 201,
    location: '/api/v1/accounting/supplier-invoices/{id}/',
    body: invoiceBody,
    response: supplierInvoiceSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'supplier_inactive',
      'supplier_invoice_number_taken',
      'supplier_invoice_account_refused',
      'as_of_after_business_date',
      'day_closed',
      ...postingRefusals,
      ...fourEyesRefusals,
    ],
    handler: async ({ body, principal, deps, ctx, authorize }) => {
      const { supplier, scope } = await postingSupplier(deps.knex, authorize, body);
      const payload = {
        supplierId: supplier.id,
        branchId: body.branch ?? null,
        number: body.number,
        invoiceDate: body.invoice_date,
        dueDate: body.due_date,
        label: body.label,
        amount: formatAmount(body.amount),
        lines: body.lines.map((line) => ({
          account: line.account,
          amount: formatAmount(line.amount),
          label: line.label,
        })),
      };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'supplier_invoice.record',
          payload,
          scope,
          amount: body.amount,
          summary: `Invoice ${body.number} of ${supplier.name}: ${payload.amount} XAF`,
        },
        async () => {
          const { id } = await recordSupplierInvoice(deps.activities, principal, payload);
          return readInvoice(deps.knex, id);
        },
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/supplier-invoices/{id}/',
    module: 'accounting',
    operationId: 'getSupplierInvoice',
    summary: 'Expense invoice detail, with what its payments settled',
    access: bookReaders,
    load: accountingLoaders.invoice,
    params: idParams,
    response: supplierInvoiceSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, deps }) => (await serializeInvoices(deps.knex, [resource]))[0],
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/supplier-invoices/{id}/reversal/',
    module: 'accounting',
    operationId: 'reverseSupplierInvoice',
    summary: 'Reverse an invoice booked by mistake: its entry reversed on the date given, under four eyes',
    description:
      'Operation `supplier_invoice.reverse` of the approval policy (default: a ' +
      'branch head, direction or an administrator other than the maker approves). ' +
      'An invoice a payment still settles is 409 `supplier_invoice_paid`: reverse ' +
      'the payment first. Once reversed, the invoice counts in no balance or open ' +
      "item from the reversal's date on, and its number may be booked again.",
    access: bookkeepers,
    status: 200,
    load: accountingLoaders.invoice,
    params: idParams,
    body: reversalBody,
    response: supplierInvoiceSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['supplier_invoice_paid', ...reversalRefusals, ...postingRefusals, ...fourEyesRefusals],
    handler: async ({ params, body, principal, deps, ctx, resource }) => {
      const payload = { id: params.id, date: body.date, reason: body.reason };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'supplier_invoice.reverse',
          payload,
          scope: accountingLoaders.invoice.scope(resource),
          summary:
            `Reversal of invoice ${resource.number} of ${resource.supplier_name} ` +
            `(${resource.amount} XAF) on ${body.date}`,
        },
        async () => {
          await reverseSupplierInvoice(deps.activities, principal, payload);
          return readInvoice(deps.knex, params.id);
        },
      );
    },
  }),
];
