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
export const supplierAccountsQuery = (knex: Knex | Knex.Transaction, enterpriseId: string) =>
  knex('suppliers').where({ enterprise_id: enterpriseId }).select('chart_entry_id');

const reversals = {
  invoice: ['supplier_invoice_reversals', 'invoice_id'],
  payment: ['supplier_payment_reversals', 'payment_id'],
} as const;

/**
 * The reversal of the invoice or payment whose id is the column `idColumn` of the outer query, counted by `date`
 * (dated up to it; any when null): for a `whereNotExists`, so that a reversed one stops counting on its reversal's
 * date, as its entry and the reversal's net to zero in the ledger from then on (docs/domain.md §12.5).
 */
export function reversalOf(
  knex: Knex | Knex.Transaction,
  what: keyof typeof reversals,
  idColumn: string,
  date: IsoDate | null,
): Knex.QueryBuilder {
  const [table, column] = reversals[what];
  const rows = knex(table)
    .select(1)
    .whereRaw('?? = ??', [`${table}.${column}`, idColumn]);
  return date === null ? rows : rows.where(`${table}.reversal_date`, '<=', date);
}

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
export function suppliersWithBalances(
  knex: Knex,
  filter: { date: IsoDate | null; branches: Branches },
): Knex.QueryBuilder {
  const totals = (what: keyof typeof reversals) => {
    const table = `supplier_${what}s`;
    const rows = knex(table)
      .groupBy('supplier_id')
      .select('supplier_id', knex.raw('sum(amount) AS total'))
      .whereNotExists(reversalOf(knex, what, `${table}.id`, filter.date));
    if (filter.date !== null) rows.where(`${what}_date`, '<=', filter.date);
    return inBranches(rows, 'branch_id', filter.branches);
  };
  return knex('suppliers as s')
    .leftJoin(totals('invoice').as('i'), 'i.supplier_id', 's.id')
    .leftJoin(totals('payment').as('p'), 'p.supplier_id', 's.id')
    .select(
      's.id',
      's.enterprise_id',
      's.branch_id',
      's.name',
      's.tax_id',
      's.contact',
      's.account_code',
      's.is_active',
      's.created_at',
      's.updated_at',
      knex.raw('COALESCE(i.total, 0)::text AS invoiced'),
      knex.raw('COALESCE(p.total, 0)::text AS paid'),
      knex.raw('(COALESCE(i.total, 0) - COALESCE(p.total, 0))::text AS balance'),
    );
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
  /** Its reversal's, all null while it stands. */
  reversal_date: string | null;
  reversal_reason: string | null;
  reversal_entry_id: string | null;
  reversed_by: string | null;
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

/** The reversal's columns of an invoice or a payment (`rv`), as BookRow names them. */
const reversalColumns = [
  'rv.reversal_date',
  'rv.reason as reversal_reason',
  'rv.entry_id as reversal_entry_id',
  'rv.reversed_by',
];

/** Left-joins `rv`, the reversal of the book row `alias` counted by `date` (dated up to it; any when null). */
function withReversal(
  knex: Knex,
  rows: Knex.QueryBuilder,
  what: keyof typeof reversals,
  alias: string,
  date: IsoDate | null,
): Knex.QueryBuilder {
  const [table, column] = reversals[what];
  return rows.leftJoin(`${table} as rv`, (join) => {
    join.on(`rv.${column}`, `${alias}.id`);
    if (date !== null) join.andOn('rv.reversal_date', '<=', knex.raw('?::date', [date]));
  });
}

/**
 * Invoices with their supplier's name and what payments settled of them: every payment standing, or those dated up
 * to `date` and not reversed by then (what was open then). A reversed invoice has nothing left to pay.
 */
function invoicesSettled(knex: Knex, date: IsoDate | null): Knex.QueryBuilder {
  const settled = knex('supplier_payment_allocations as a')
    .join('supplier_payments as p', 'p.id', 'a.payment_id')
    .groupBy('a.invoice_id')
    .select('a.invoice_id', knex.raw('sum(a.amount) AS total'))
    .whereNotExists(reversalOf(knex, 'payment', 'p.id', date));
  if (date !== null) settled.where('p.payment_date', '<=', date);
  const invoices = knex('supplier_invoices as i')
    .join('suppliers as s', 's.id', 'i.supplier_id')
    .leftJoin(settled.as('x'), 'x.invoice_id', 'i.id');
  return withReversal(knex, invoices, 'invoice', 'i', date).select(
    'i.*',
    's.name as supplier_name',
    ...reversalColumns,
    knex.raw('COALESCE(x.total, 0)::text AS paid'),
    knex.raw('(CASE WHEN rv.id IS NULL THEN i.amount - COALESCE(x.total, 0) ELSE 0 END)::text AS remaining'),
  );
}

export const invoicesQuery = (knex: Knex): Knex.QueryBuilder => invoicesSettled(knex, null);

/**
 * A supplier's invoices dated up to `date` not fully paid by the payments dated up to it, oldest first, with what
 * remains.
 */
export function openItemsQuery(knex: Knex, supplierId: string, date: IsoDate, branches: Branches): Knex.QueryBuilder {
  return inBranches(invoicesSettled(knex, date), 'i.branch_id', branches)
    .where('i.supplier_id', supplierId)
    .where('i.invoice_date', '<=', date)
    .whereNull('rv.id')
    .whereRaw('i.amount > COALESCE(x.total, 0)')
    .orderBy([{ column: 'i.invoice_date' }, { column: 'i.number' }]);
}

export const invoiceLinesOf = (
  knex: Knex,
  invoiceIds: readonly string[],
): Promise<{ invoice_id: string; account_code: string; amount: string; label: string }[]> =>
  knex('supplier_invoice_lines')
    .whereIn('invoice_id', invoiceIds)
    .orderBy(['invoice_id', 'position'])
    .select('invoice_id', 'account_code', 'amount', 'label');

export interface PaymentRow extends BookRow {
  payment_date: string;
  amount: string;
  paying_account_code: string;
  reference: string;
  idempotency_key: string | null;
}

export const paymentsQuery = (knex: Knex): Knex.QueryBuilder =>
  withReversal(
    knex,
    knex('supplier_payments as p').join('suppliers as s', 's.id', 'p.supplier_id'),
    'payment',
    'p',
    null,
  ).select('p.*', 's.name as supplier_name', ...reversalColumns);

export const allocationsOf = (
  knex: Knex,
  paymentIds: readonly string[],
): Promise<{ payment_id: string; invoice_id: string; number: string; amount: string }[]> =>
  knex('supplier_payment_allocations as a')
    .join('supplier_invoices as i', 'i.id', 'a.invoice_id')
    .whereIn('a.payment_id', paymentIds)
    .orderBy(['a.payment_id', 'i.invoice_date', 'i.number'])
    .select('a.payment_id', 'a.invoice_id', 'i.number', 'a.amount');
