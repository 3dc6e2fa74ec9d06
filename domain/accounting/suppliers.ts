import type { IsoDate } from '../calendar';
import { nextSubAccountCode } from './banks';
import { AppError } from '../errors';
import type { JournalCode, JournalLine } from '../events/journal';
import { formatAmount, Money } from '../money';

/**
 * Suppliers and their expenses (issue 28, docs/domain.md §12.5). Pure rules: which accounts an invoice and a
 * payment may post to, their lines, and how a payment settles invoices.
 */

/** 40110 Fournisseurs, dettes en compte hors réseau (PCEMF): each supplier's account is one of its sub-accounts. */
export const supplierParentAccount = '40110';

/** The next free supplier account under 40110 (`40110001`, `40110002`…), or null once the 999 are taken. */
export const nextSupplierAccountCode = (taken: readonly string[]): string | null =>
  nextSubAccountCode(supplierParentAccount, taken);

/** An account of the chart as the rules see it. */
export interface ChartAccount {
  code: string;
  class: number;
}

/**
 * An invoice line debits an expense (class 6) or a tax the cooperative recovers (430 État, impôts et taxes:
 * 4305 TVA déductible). An asset bought on credit is the fixed-asset register's, not an expense invoice's.
 */
export function isInvoiceLineAccount(account: ChartAccount): boolean {
  return account.class === 6 || account.code.startsWith('430');
}

/** A supplier is paid from a treasury account (class 5): the till 5710 or a bank correspondent (56x). */
export const isPayingAccount = (account: ChartAccount): boolean => account.class === 5;

/** The till's payments go to the cash journal, the others to the bank journal (docs/architecture.md §4). */
export const payingJournal = (payingAccount: string): JournalCode => (payingAccount.startsWith('57') ? 'CAI' : 'BQ');

export interface InvoiceLine {
  account: string;
  amount: Money;
}

/** Debit each line's account, credit the supplier's account by the invoice's total. */
export function invoiceEntryLines(supplierAccount: string, lines: readonly InvoiceLine[]): JournalLine[] {
  const total = lines.reduce((sum, line) => sum.plus(line.amount), new Money(0));
  return [
    ...lines.map((line) => ({ account: line.account, debit: line.amount, credit: new Money(0) })),
    { account: supplierAccount, debit: new Money(0), credit: total },
  ];
}

/** Debit the supplier's account, credit the paying account. */
export const paymentEntryLines = (supplierAccount: string, payingAccount: string, amount: Money): JournalLine[] => [
  { account: supplierAccount, debit: amount, credit: new Money(0) },
  { account: payingAccount, debit: new Money(0), credit: amount },
];

/** An invoice a payment names, as it stands when the payment is recorded (its row locked). */
export interface OpenInvoice {
  id: string;
  supplierId: string;
  branchId: string;
  invoiceDate: IsoDate;
  /** What remains to pay: its amount less what earlier payments settled. */
  remaining: Money;
}

export interface Allocation {
  invoice: string;
  amount: Money;
}

const invalid = (field: string, message: string) =>
  new AppError('validation', 'invalid_request', message, [{ field, message }]);

/**
 * A payment settles invoices of its supplier and branch dated on or before it, each at most by what remains
 * (partial payments allowed), and its amount is what it settles. Throws the refusal naming the field.
 */
export function assertAllocations(
  payment: { supplierId: string; branchId: string; date: IsoDate; amount: Money },
  allocations: readonly Allocation[],
  invoices: ReadonlyMap<string, OpenInvoice>,
): void {
  const seen = new Set<string>();
  allocations.forEach((allocation, index) => {
    const field = `allocations[${index}]`;
    const invoice = invoices.get(allocation.invoice);
    if (invoice === undefined || invoice.supplierId !== payment.supplierId)
      throw invalid(`${field}.invoice`, `${field}.invoice is not an invoice of this supplier.`);
    if (seen.has(invoice.id)) throw invalid(`${field}.invoice`, `${field}.invoice names an invoice twice.`);
    seen.add(invoice.id);
    if (invoice.branchId !== payment.branchId)
      throw invalid(`${field}.invoice`, `${field}.invoice was booked in another branch than the payment's.`);
    if (invoice.invoiceDate > payment.date)
      throw invalid(`${field}.invoice`, `${field}.invoice is dated after the payment (${invoice.invoiceDate}).`);
    if (allocation.amount.gt(invoice.remaining)) {
      const message =
        `${field}.amount is more than the ${formatAmount(invoice.remaining)} that remain to pay on ` + `the invoice.`;
      throw new AppError('conflict', 'supplier_payment_exceeds_due', message, [{ field: `${field}.amount`, message }]);
    }
  });
  const settled = allocations.reduce((sum, allocation) => sum.plus(allocation.amount), new Money(0));
  if (!settled.eq(payment.amount))
    throw invalid('amount', `amount must equal what the allocations settle (${formatAmount(settled)}).`);
}
