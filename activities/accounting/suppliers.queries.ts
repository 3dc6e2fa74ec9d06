import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';

/** The reads of suppliers' books (docs/domain.md §12.5): balances, open items, the invoices and payments. */

/**
 * Which invoices and payments count: of every branch, of these, or those a filter keeps (what a user sees, given
 * the table's own `enterprise_id` and `branch_id`): a branch role reads its branches' figures only.
 */
export type Branches = 'all' | readonly string[] | ((rows: Knex.QueryBuilder) => Knex.QueryBuilder);

function inBranches(builder: Knex.QueryBuilder, column: string, branches: Branches): Knex.QueryBuilder {
  if (branches === 'all') return builder;
  return typeof branches === 'function' ? branches(builder) : builder.whereIn(column, branches);
}

/**
 * The chart accounts of the enterprise's suppliers: subledger-backed (their detail is the suppliers' invoices and
 * payments), so only those operations post to them. A subquery of `company_chart_entries.id`, for a `whereIn`.
 */
export const supplierAccountsQuery = (knex: Knex | Knex.Transaction, enterpriseId: string) => knex('suppliers').where({ enterprise_id: enterpriseId }).select('chart_entry_id');

export interface SupplierRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  name: string;
  tax_id: string | null;
  contact: string | null;
  account_code: string;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  invoiced: string;
  paid: string;
  balance: string;
}

/**
 * Suppliers with what was invoiced and paid up to `date` (every date when null) in `branches`, and what remains
 * owed: the list's and the detail's rows, and the supplier balances report's.
 */
export function suppliersWithBalances(knex: Knex, filter: { date: IsoDate | null; branches: Branches }): Knex.QueryBuilder {
  const totals = (table: string, dateColumn: string) => {
    const rows = knex(table).groupBy('supplier_id').select('supplier_id', knex.raw('sum(amount) AS total'));
    if (filter.date !== null) rows.where(dateColumn, '<=', filter.date);
    return inBranches(rows, 'branch_id', filter.branches);
  };
  return knex('suppliers as s')
    .leftJoin(totals('supplier_invoices', 'invoice_date').as('i'), 'i.supplier_id', 's.id')
    .leftJoin(totals('supplier_payments', 'payment_date').as('p'), 'p.supplier_id', 's.id')
    .select('s.id', 's.enterprise_id', 's.branch_id', 's.name', 's.tax_id', 's.contact', 's.account_code', 's.is_active', 's.created_at', 's.updated_at',
      knex.raw('COALESCE(i.total, 0)::text AS invoiced'), knex.raw('COALESCE(p.total, 0)::text AS paid'), knex.raw('(COALESCE(i.total, 0) - COALESCE(p.total, 0))::text AS balance'));
}

/** What an invoice and a payment have in common: whose, where, the entry that posted it, who recorded it and when. */
interface BookRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  supplier_id: string;
  supplier_name: string;
  entry_id: string;
  recorded_by: string;
  created_at: Date;
}

export interface InvoiceRow extends BookRow {
  number: string;
  invoice_date: string;
  due_date: string;
  label: string;
  amount: string;
  paid: string;
  remaining: string;
}

/**
 * Invoices with their supplier's name and what payments settled of them: every payment, or those dated up to
 * `date` (what was open then).
 */
function invoicesSettled(knex: Knex, date: IsoDate | null): Knex.QueryBuilder {
  const settled = knex('supplier_payment_allocations as a').join('supplier_payments as p', 'p.id', 'a.payment_id').groupBy('a.invoice_id').select('a.invoice_id', knex.raw('sum(a.amount) AS total'));
  if (date !== null) settled.where('p.payment_date', '<=', date);
  return knex('supplier_invoices as i').join('suppliers as s', 's.id', 'i.supplier_id').leftJoin(settled.as('x'), 'x.invoice_id', 'i.id')
    .select('i.*', 's.name as supplier_name', knex.raw('COALESCE(x.total, 0)::text AS paid'), knex.raw('(i.amount - COALESCE(x.total, 0))::text AS remaining'));
}

export const invoicesQuery = (knex: Knex): Knex.QueryBuilder => invoicesSettled(knex, null);

/** A supplier's invoices dated up to `date` not fully paid by the payments dated up to it, oldest first, with what remains. */
export function openItemsQuery(knex: Knex, supplierId: string, date: IsoDate, branches: Branches): Knex.QueryBuilder {
  return inBranches(invoicesSettled(knex, date), 'i.branch_id', branches)
    .where('i.supplier_id', supplierId)
    .where('i.invoice_date', '<=', date)
    .whereRaw('i.amount > COALESCE(x.total, 0)')
    .orderBy([{ column: 'i.invoice_date' }, { column: 'i.number' }]);
}

export const invoiceLinesOf = (knex: Knex, invoiceIds: readonly string[]): Promise<{ invoice_id: string; account_code: string; amount: string; label: string }[]> =>
  knex('supplier_invoice_lines').whereIn('invoice_id', invoiceIds).orderBy(['invoice_id', 'position']).select('invoice_id', 'account_code', 'amount', 'label');

export interface PaymentRow extends BookRow {
  payment_date: string;
  amount: string;
  paying_account_code: string;
  reference: string;
  idempotency_key: string | null;
}

export const paymentsQuery = (knex: Knex): Knex.QueryBuilder => knex('supplier_payments as p').join('suppliers as s', 's.id', 'p.supplier_id').select('p.*', 's.name as supplier_name');

export const allocationsOf = (knex: Knex, paymentIds: readonly string[]): Promise<{ payment_id: string; invoice_id: string; number: string; amount: string }[]> =>
  knex('supplier_payment_allocations as a').join('supplier_invoices as i', 'i.id', 'a.invoice_id').whereIn('a.payment_id', paymentIds)
    .orderBy(['a.payment_id', 'i.invoice_date', 'i.number']).select('a.payment_id', 'a.invoice_id', 'i.number', 'a.amount');
