import type { Knex } from 'knex';
import * as yup from 'yup';
import {
  allocationsOf,
  invoiceLinesOf,
  invoicesQuery,
  paymentsQuery,
  suppliersWithBalances,
  type Branches,
  type InvoiceRow,
  type PaymentRow,
  type SupplierRow,
} from '../../../activities/accounting/suppliers.queries';
import {
  categoryById,
  fixedAssetById,
  type CategoryRow,
  type FixedAssetRow,
} from '../../../activities/accounting/fixed-assets.queries';
import { NotFoundError } from '../../../domain/errors';
import type { Scope } from '../../../domain/access';
import type { Principal } from '../../auth/principal';
import type { Loader } from '../../route';
import { paginateRows, whereFilters, type ListQuery, type Page } from '../../pagination';
import { scopeToVisible } from '../enterprise-scope';
import { dateResponse, enterpriseFilter, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { enterpriseRowLoader } from '../enterprise-scope';
import { moneyResponse } from '../money.schemas';

/** The reads of the accounting module's suppliers (docs/domain.md §12.5): shapes, serializers and loaders. */

/** Who keeps the suppliers' books: the accountant and the roles that run a branch or the enterprise. */
export const bookkeepers = ['accountant', 'branch_head', 'direction', 'admin'] as const;
/** Who reads them: the same, and the auditor. */
export const bookReaders = [...bookkeepers, 'auditor'] as const;

const uuid = () => yup.string().uuid().required();
const nullableUuid = () => nullableId();

export const supplierSchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    branch: nullableUuid().meta({
      description: 'null: a supplier of the whole enterprise (its invoices and payments name their branch).',
    }),
    name: yup.string().required(),
    tax_id: yup.string().nullable().defined().meta({ description: "NIU, the tax administration's identifier." }),
    contact: yup.string().nullable().defined(),
    account: yup
      .string()
      .required()
      .meta({ description: "The supplier's own account, a sub-account of 40110.", example: '40110001' }),
    is_active: yup.boolean().required(),
    invoiced: moneyResponse(),
    paid: moneyResponse(),
    balance: moneyResponse().meta({
      description: 'What remains owed: invoiced less paid, the credit balance of its account.',
    }),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'Supplier' });

export const serializeSupplier = (row: SupplierRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  name: row.name,
  tax_id: row.tax_id,
  contact: row.contact,
  account: row.account_code,
  is_active: row.is_active,
  invoiced: row.invoiced,
  paid: row.paid,
  balance: row.balance,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** A supplier with its figures: of every branch (the loader's), or of what `branches` keeps (the caller's answers). */
export const supplierRow = (knex: Knex, id: string, branches: Branches = 'all'): Promise<SupplierRow | undefined> =>
  suppliersWithBalances(knex, { date: null, branches }).where('s.id', id).first();

/** The invoices and payments the principal sees: its branches' only, for a branch role. */
export const seenBy =
  (principal: Principal): Branches =>
  (rows) =>
    scopeToVisible(rows, principal, { enterprise: 'enterprise_id', branch: 'branch_id' });

const lineSchema = yup.object({
  account: yup.string().required(),
  amount: moneyResponse(),
  label: yup.string().required(),
});

/** An invoice's own figures: its detail's, and an open item's. */
export const invoiceFigures = {
  number: yup.string().required(),
  invoice_date: dateResponse(),
  due_date: dateResponse(),
  label: yup.string().required(),
  amount: moneyResponse(),
  paid: moneyResponse(),
  remaining: moneyResponse(),
};

export const serializeInvoiceFigures = (row: InvoiceRow) => ({
  number: row.number,
  invoice_date: row.invoice_date,
  due_date: row.due_date,
  label: row.label,
  amount: row.amount,
  paid: row.paid,
  remaining: row.remaining,
});

/**
 * What an invoice and a payment both answer: whose and where; then the entry that posted it, who recorded it and when.
 */
const bookFields = {
  id: uuid(),
  enterprise: uuid(),
  branch: uuid(),
  supplier: uuid(),
  supplier_name: yup.string().required(),
};
const postedFields = (journals: string) => ({
  entry: uuid().meta({ description: `The journal entry (${journals}) that posted it.` }),
  recorded_by: uuid(),
  recorded_at: timestampResponse(),
  reversal: yup
    .object({
      date: dateResponse(),
      reason: yup.string().required(),
      entry: uuid().meta({ description: 'The entry that reversed the original one, in its journal.' }),
      reversed_by: uuid().meta({ description: 'Who asked the reversal (its maker).' }),
    })
    .nullable()
    .defined()
    .meta({
      description: 'null while it stands; once reversed it counts in no balance or open item from this date on.',
    }),
});

const serializeBookRow = (row: InvoiceRow | PaymentRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  supplier: row.supplier_id,
  supplier_name: row.supplier_name,
});
const serializePosted = (row: InvoiceRow | PaymentRow) => ({
  entry: row.entry_id,
  recorded_by: row.recorded_by,
  recorded_at: row.created_at.toISOString(),
  reversal:
    row.reversal_date === null
      ? null
      : {
          date: row.reversal_date,
          reason: row.reversal_reason!,
          entry: row.reversal_entry_id!,
          reversed_by: row.reversed_by!,
        },
});

/** The body of a reversal of an invoice or a payment. */
export const reversalBody = yup.object({
  date: isoDate().required().meta({
    description: "The reversing entry's date: not before the original's, not after the business date, in an open year.",
  }),
  reason: yup
    .string()
    .trim()
    .min(3)
    .max(400)
    .required()
    .meta({ description: "Why it is undone (the entry's label carries it)." }),
});

/** What a reversal may meet, beside the ledger's refusals. */
export const reversalRefusals = ['supplier_book_reversed', 'as_of_after_business_date'] as const;

export const supplierInvoiceSchema = yup
  .object({
    ...bookFields,
    ...invoiceFigures,
    lines: yup.array(lineSchema).required(),
    ...postedFields('OD'),
  })
  .meta({ component: 'SupplierInvoice' });

/** Invoices as answered, each with its lines: two queries for a whole page. */
export async function serializeInvoices(knex: Knex, rows: readonly InvoiceRow[]) {
  const lines = await invoiceLinesOf(
    knex,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    ...serializeBookRow(row),
    ...serializeInvoiceFigures(row),
    lines: lines
      .filter((line) => line.invoice_id === row.id)
      .map((line) => ({ account: line.account_code, amount: line.amount, label: line.label })),
    ...serializePosted(row),
  }));
}

export const supplierPaymentSchema = yup
  .object({
    ...bookFields,
    payment_date: dateResponse(),
    amount: moneyResponse(),
    paying_account: yup.string().required(),
    reference: yup.string().defined(),
    allocations: yup
      .array(yup.object({ invoice: uuid(), number: yup.string().required(), amount: moneyResponse() }))
      .required(),
    ...postedFields('CAI from the till, BQ from a bank'),
  })
  .meta({ component: 'SupplierPayment' });

export async function serializePayments(knex: Knex, rows: readonly PaymentRow[]) {
  const allocations = await allocationsOf(
    knex,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    ...serializeBookRow(row),
    payment_date: row.payment_date,
    amount: row.amount,
    paying_account: row.paying_account_code,
    reference: row.reference,
    allocations: allocations
      .filter((allocation) => allocation.payment_id === row.id)
      .map((allocation) => ({ invoice: allocation.invoice_id, number: allocation.number, amount: allocation.amount })),
    ...serializePosted(row),
  }));
}

/** The filters of the invoices' and payments' lists. */
export const bookFilters = {
  enterprise: enterpriseFilter,
  supplier: yup.string().uuid().optional(),
  branch: yup.string().uuid().optional(),
  date_from: isoDate().optional(),
  date_to: isoDate().optional(),
};

/** A book document's columns: its table's alias, the date it is listed by, and whether it names a supplier. */
interface DocumentColumns {
  alias: string;
  date: string;
  supplier?: boolean;
}

/**
 * A page of a book's documents (invoices, payments, transfers) that the caller sees, narrowed by the `bookFilters`
 * sent, newest first: by date, then by creation.
 */
export function newestDocumentsPage<Row>(
  rows: Knex.QueryBuilder,
  { alias, date, supplier }: DocumentColumns,
  principal: Principal,
  query: ListQuery & { [filter in keyof typeof bookFilters]?: string },
  href: string,
): Promise<Page<Row>> {
  const seen = scopeToVisible(rows, principal, { enterprise: `${alias}.enterprise_id`, branch: `${alias}.branch_id` });
  whereFilters(seen, query, {
    enterprise: `${alias}.enterprise_id`,
    ...(supplier === true ? { supplier: `${alias}.supplier_id` } : {}),
    branch: `${alias}.branch_id`,
    date_from: [`${alias}.${date}`, '>='],
    date_to: [`${alias}.${date}`, '<='],
  });
  const order = [
    { column: `${alias}.${date}`, order: 'desc' },
    { column: `${alias}.created_at`, order: 'desc' },
    { column: `${alias}.id` },
  ];
  return paginateRows<Row>(seen.orderBy(order), query, new URL(href));
}

/** The resources of the accounting module a route loads by id (the router checks access: api/router.ts). */
export const accountingLoaders = {
  fixedAssetCategory: enterpriseRowLoader<CategoryRow>('The fixed-asset category', categoryById),
  fixedAsset: {
    name: 'The fixed asset',
    load: async ({ knex }, id) => fixedAssetById(knex, id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<FixedAssetRow>,
  supplier: {
    name: 'The supplier',
    load: async ({ knex }, id) => supplierRow(knex, id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<SupplierRow>,
  invoice: {
    name: 'The invoice',
    load: async ({ knex }, id) => invoicesQuery(knex).where('i.id', id).first() as Promise<InvoiceRow | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<InvoiceRow>,
  payment: {
    name: 'The payment',
    load: async ({ knex }, id) => paymentsQuery(knex).where('p.id', id).first() as Promise<PaymentRow | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<PaymentRow>,
};

/**
 * The supplier a posting names and where it posts: its branch, else the one the request names. The caller's roles
 * are checked there, not at the supplier (a branch head books the invoices of a supplier of the whole enterprise in
 * their branch).
 */
export async function postingSupplier(
  knex: Knex,
  authorize: (scope: Scope, what: string) => void,
  body: { supplier: string; branch?: string | null },
) {
  const supplier = await supplierRow(knex, body.supplier);
  if (supplier === undefined) throw new NotFoundError('The supplier');
  const scope = { enterpriseId: supplier.enterprise_id, branchId: supplier.branch_id ?? body.branch ?? null };
  authorize(scope, 'The supplier');
  return { supplier, scope };
}
