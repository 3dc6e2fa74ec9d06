import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { AppError, NotFoundError, ValidationError } from '../../domain/errors';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { postedEntries, reverseEntry } from '../events/reverse-entries';
import { assertNotAfterBusinessDate } from './supplier-books';
import { reversalOf } from './suppliers.queries';

/**
 * Reversals of a supplier's invoice or payment posted by mistake (docs/domain.md §12.5): the entry that posted it
 * is reversed on the reversal's date, linked to it, and the reversal row says so; from that date the invoice or
 * payment no longer counts in the supplier's balance and open items. What the executors of `supplier_invoice.reverse`
 * and `supplier_payment.reverse` (supplier-invoices and supplier-payments activities) share.
 */

/** A reversal as a four-eyes request carries it. */
export interface SupplierReversalInput {
  id: string;
  date: IsoDate;
  reason: string;
}

interface BookRow {
  id: string;
  enterprise_id: string;
  supplier_id: string;
  entry_id: string;
}

const books = {
  invoice: {
    table: 'supplier_invoices',
    reversals: 'supplier_invoice_reversals',
    column: 'invoice_id',
    date: 'invoice_date',
    label: 'Extourne de la facture',
  },
  payment: {
    table: 'supplier_payments',
    reversals: 'supplier_payment_reversals',
    column: 'payment_id',
    date: 'payment_date',
    label: 'Extourne du règlement',
  },
} as const;

/** The invoice or payment, its supplier's row locked (as a payment and an invoice lock it), not reversed yet. */
async function bookToReverse(
  trx: Knex.Transaction,
  what: keyof typeof books,
  id: string,
): Promise<BookRow & { date: IsoDate }> {
  const book = books[what];
  const row = await trx(book.table)
    .where({ id })
    .first('id', 'enterprise_id', 'supplier_id', 'entry_id', `${book.date} as date`);
  if (row === undefined) throw new NotFoundError(what === 'invoice' ? 'The invoice' : 'The payment');
  await trx('suppliers').where({ id: row.supplier_id }).forUpdate().first('id');
  if (
    (await trx(book.reversals)
      .where({ [book.column]: id })
      .first('id')) !== undefined
  ) {
    throw new AppError('conflict', 'supplier_book_reversed', `The ${what} is already reversed.`);
  }
  return row;
}

/** Posts the reversing entry and records the reversal, with its audit row, in the caller's transaction. */
export async function reverseSupplierBook(
  trx: Knex.Transaction,
  context: DataContext,
  maker: Actor,
  what: keyof typeof books,
  input: SupplierReversalInput,
): Promise<void> {
  const book = books[what];
  const row = await bookToReverse(trx, what, input.id);
  if (what === 'invoice') await assertNoStandingPayment(trx, input.id);
  // Not before the original: the supplier's balance at any date must stay its account's.
  if (input.date < row.date)
    throw new ValidationError([{ field: 'date', message: `date must not be before the ${what}'s date ${row.date}` }]);
  await assertNotAfterBusinessDate(trx, row.enterprise_id, context.clock(), input.date, 'date');
  const [entry] = await postedEntries(trx, trx('journal_entries').where({ id: row.entry_id }).select('id'));
  const entryId = await reverseEntry(trx, maker.userId, entry!, input.date, `${book.label}: ${input.reason}`);
  const [reversal] = await trx(book.reversals)
    .insert({
      enterprise_id: row.enterprise_id,
      [book.column]: input.id,
      reversal_date: input.date,
      reason: input.reason,
      entry_id: entryId,
      reversed_by: maker.userId,
    })
    .returning('id');
  await recordAudit(trx, maker, {
    action: `supplier_${what}.reverse`,
    entityType: `supplier_${what}`,
    entityId: input.id,
    enterpriseId: row.enterprise_id,
    details: { reversal: reversal.id, date: input.date, reason: input.reason, entry: entryId },
  });
}

/** An invoice some payment still settles keeps standing: its payments are reversed first. */
async function assertNoStandingPayment(trx: Knex.Transaction, invoiceId: string): Promise<void> {
  const settling = await trx('supplier_payment_allocations as a')
    .where('a.invoice_id', invoiceId)
    .whereNotExists(reversalOf(trx, 'payment', 'a.payment_id', null))
    .first('a.payment_id');
  if (settling !== undefined) {
    throw new AppError(
      'conflict',
      'supplier_invoice_paid',
      `The payment ${settling.payment_id as string} settles this invoice: reverse it first.`,
    );
  }
}
