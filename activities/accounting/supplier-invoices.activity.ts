import type { Knex } from 'knex';
import { invoiceEntryLines, isInvoiceLineAccount } from '../../domain/accounting/suppliers';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import type { Supplier } from '../../db/models/supplier.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { postJournalEntry } from '../events/post-entry';
import { assertNotAfterBusinessDate, chartAccountOf, supplierAndBranch } from './supplier-books';
import { reverseSupplierBook, type SupplierReversalInput } from './supplier-reversals';
import { reversalOf } from './suppliers.queries';

/** An expense invoice as a four-eyes request carries it: JSON, amounts as whole-franc text. */
export interface SupplierInvoiceInput {
  supplierId: string;
  branchId: string | null;
  number: string;
  invoiceDate: IsoDate;
  dueDate: IsoDate;
  label: string;
  amount: string;
  lines: { account: string; amount: string; label: string }[];
  idempotencyKey?: string | null;
}

const numberTaken = (number: string) =>
  new AppError('conflict', 'supplier_invoice_number_taken', `The supplier already has an invoice ${number}.`, [
    { field: 'number', message: 'number is taken for this supplier' },
  ]);

/** The invoice's lines, each on an expense or recoverable tax account, adding up to its amount. */
async function checkedLines(trx: Knex.Transaction, enterpriseId: string, input: SupplierInvoiceInput) {
  const lines = input.lines.map((line) => ({ ...line, amount: new Money(line.amount) }));
  for (const [index, line] of lines.entries()) {
    const field = `lines[${index}].account`;
    if (!isInvoiceLineAccount(await chartAccountOf(trx, enterpriseId, line.account, field))) {
      throw new AppError(
        'unprocessable',
        'supplier_invoice_account_refused',
        `${field}: ${line.account} is neither an expense (class 6) nor a recoverable tax (430).`,
        [{ field, message: `${field} must be of class 6 or under 430` }],
      );
    }
  }
  const total = lines.reduce((sum, line) => sum.plus(line.amount), new Money(0));
  if (!total.eq(input.amount))
    throw new AppError(
      'validation',
      'invalid_request',
      `amount must equal the lines' total (${formatAmount(total)}).`,
      [{ field: 'amount', message: "amount must equal the lines' total" }],
    );
  return lines;
}

/** The invoice's row and its lines' rows, once its entry is posted. */
async function storeInvoice(
  trx: Knex.Transaction,
  maker: Actor,
  booked: { supplier: Supplier; branchId: string; entryId: string },
  input: SupplierInvoiceInput,
): Promise<{ id: string }> {
  const { supplier, branchId, entryId } = booked;
  const [invoice] = await trx('supplier_invoices')
    .insert({
      enterprise_id: supplier.enterpriseId,
      branch_id: branchId,
      supplier_id: supplier.id,
      number: input.number,
      invoice_date: input.invoiceDate,
      due_date: input.dueDate,
      label: input.label,
      amount: input.amount,
      entry_id: entryId,
      recorded_by: maker.userId,
    })
    .returning('id');
  await trx('supplier_invoice_lines').insert(
    input.lines.map((line, position) => ({
      enterprise_id: supplier.enterpriseId,
      invoice_id: invoice.id,
      position,
      account_code: line.account,
      amount: line.amount,
      label: line.label,
    })),
  );
  return invoice as { id: string };
}

/**
 * Books an expense invoice (docs/domain.md §12.5): each line debits its expense (class 6) or recoverable tax (430), the
 * supplier's account is credited by the total, in the OD journal on the invoice's date; the invoice and its lines are
 * kept, its number unique among the supplier's invoices not reversed. The executor of `supplier_invoice.record`.
 */
export async function recordSupplierInvoice(
  context: DataContext,
  maker: Actor,
  input: SupplierInvoiceInput,
): Promise<{ id: string }> {
  return inTransaction(context.knex, async (trx) => {
    // Locked: two invoices of one number approved at once, or one booked while its namesake is reversed, wait for each
    // other.
    const { supplier, branchId } = await supplierAndBranch(trx, input);
    if (!supplier.isActive)
      throw new AppError(
        'conflict',
        'supplier_inactive',
        `The supplier ${supplier.name} is deactivated: reactivate it to book its invoices.`,
      );
    await assertNotAfterBusinessDate(trx, supplier.enterpriseId, context.clock(), input.invoiceDate, 'invoice_date');
    const lines = await checkedLines(trx, supplier.enterpriseId, input);
    const standing = trx('supplier_invoices')
      .where({ supplier_id: supplier.id, number: input.number })
      .whereNotExists(reversalOf(trx, 'invoice', 'supplier_invoices.id', null));
    if (await standing.first('id')) throw numberTaken(input.number);
    const entryId = await postJournalEntry(trx, {
      enterpriseId: supplier.enterpriseId,
      branchId,
      entryDate: input.invoiceDate,
      lines: invoiceEntryLines(supplier.accountCode, lines),
      description: `Facture ${input.number} ${supplier.name}: ${input.label}`.slice(0, 500),
      journal: 'OD',
      createdBy: maker.userId,
    });
    const invoice = await storeInvoice(trx, maker, { supplier, branchId, entryId }, input);
    await recordAudit(trx, maker, {
      action: 'supplier_invoice.record',
      entityType: 'supplier_invoice',
      entityId: invoice.id,
      enterpriseId: supplier.enterpriseId,
      details: { supplier: supplier.id, number: input.number, amount: input.amount, entry: entryId },
    });
    return { id: invoice.id as string };
  });
}

/**
 * Reverses an invoice booked by mistake, once no payment settles it: the executor of `supplier_invoice.reverse`
 * (docs/domain.md §12.5).
 */
export async function reverseSupplierInvoice(
  context: DataContext,
  maker: Actor,
  input: SupplierReversalInput,
): Promise<void> {
  await inTransaction(context.knex, (trx) => reverseSupplierBook(trx, context, maker, 'invoice', input));
}
