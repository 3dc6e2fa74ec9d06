import type { Knex } from 'knex';
import {
  assertAllocations,
  isPayingAccount,
  payingJournal,
  paymentEntryLines,
  type OpenInvoice,
} from '../../domain/accounting/suppliers';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { Money } from '../../domain/money';
import type { Supplier } from '../../db/models/supplier.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { cashAccountFor } from '../cash/tills.queries';
import { postJournalEntry } from '../events/post-entry';
import { assertNotAfterBusinessDate, chartAccountOf, supplierAndBranch } from './supplier-books';
import { reverseSupplierBook, type SupplierReversalInput } from './supplier-reversals';
import { reversalOf } from './suppliers.queries';

/** A payment to a supplier as a four-eyes request carries it: JSON, amounts as whole-franc text. */
export interface SupplierPaymentInput {
  supplierId: string;
  branchId: string | null;
  paymentDate: IsoDate;
  amount: string;
  payingAccount: string;
  reference: string;
  allocations: { invoice: string; amount: string }[];
  idempotencyKey?: string | null;
}

/**
 * The invoices named, locked, each with what remains to pay on it: what the payments not reversed settled. A
 * reversed invoice is none of the supplier's open items (refused as an invoice of another supplier).
 */
async function openInvoices(
  trx: Knex.Transaction,
  supplierId: string,
  ids: readonly string[],
): Promise<Map<string, OpenInvoice>> {
  const rows = await trx('supplier_invoices')
    .where({ supplier_id: supplierId })
    .whereIn('id', ids)
    .whereNotExists(reversalOf(trx, 'invoice', 'supplier_invoices.id', null))
    .forUpdate()
    .select('id', 'branch_id', 'invoice_date', 'amount');
  const paid = await trx('supplier_payment_allocations as a')
    .whereIn('a.invoice_id', ids)
    .whereNotExists(reversalOf(trx, 'payment', 'a.payment_id', null))
    .groupBy('a.invoice_id')
    .select('a.invoice_id', trx.raw('sum(a.amount)::text AS paid'));
  const paidOf = new Map(
    paid.map((row: { invoice_id: string; paid: string }) => [row.invoice_id, new Money(row.paid)]),
  );
  return new Map(
    rows.map((row: { id: string; branch_id: string; invoice_date: string; amount: string }) => [
      row.id,
      {
        id: row.id,
        supplierId,
        branchId: row.branch_id,
        invoiceDate: row.invoice_date,
        remaining: new Money(row.amount).minus(paidOf.get(row.id) ?? 0),
      },
    ]),
  );
}

/** The payment's row and the rows of what it settles of each invoice, once its entry is posted. */
async function storePayment(
  trx: Knex.Transaction,
  maker: Actor,
  booked: { supplier: Supplier; branchId: string; entryId: string },
  input: SupplierPaymentInput,
): Promise<{ id: string }> {
  const { supplier, branchId, entryId } = booked;
  const [payment] = await trx('supplier_payments')
    .insert({
      enterprise_id: supplier.enterpriseId,
      branch_id: branchId,
      supplier_id: supplier.id,
      payment_date: input.paymentDate,
      amount: input.amount,
      paying_account_code: input.payingAccount,
      reference: input.reference,
      entry_id: entryId,
      recorded_by: maker.userId,
      idempotency_key: input.idempotencyKey ?? null,
    })
    .returning('id');
  await trx('supplier_payment_allocations').insert(
    input.allocations.map((allocation) => ({
      enterprise_id: supplier.enterpriseId,
      payment_id: payment.id,
      invoice_id: allocation.invoice,
      amount: allocation.amount,
    })),
  );
  return payment as { id: string };
}

/**
 * Pays a supplier from the till (5710, journal CAI) or a bank correspondent's account (class 5, journal BQ) on the
 * payment's date: the supplier's account debited, the paying account credited, and the invoices it settles
 * recorded with what it settles of each (docs/domain.md §12.5). The supplier's row is locked, so two payments
 * cannot both settle the same remainder. The executor of `supplier_payment`.
 */
export async function recordSupplierPayment(
  context: DataContext,
  maker: Actor,
  input: SupplierPaymentInput,
): Promise<{ id: string }> {
  return inTransaction(context.knex, async (trx) => {
    const { supplier, branchId } = await supplierAndBranch(trx, input);
    await assertNotAfterBusinessDate(trx, supplier.enterpriseId, context.clock(), input.paymentDate, 'payment_date');
    if (!isPayingAccount(await chartAccountOf(trx, supplier.enterpriseId, input.payingAccount, 'paying_account'))) {
      throw new AppError(
        'unprocessable',
        'supplier_paying_account_refused',
        `paying_account ${input.payingAccount} is not a treasury account (class 5).`,
        [{ field: 'paying_account', message: 'paying_account must be of class 5' }],
      );
    }
    const allocations = input.allocations.map((allocation) => ({
      invoice: allocation.invoice,
      amount: new Money(allocation.amount),
    }));
    const amount = new Money(input.amount);
    const invoices = await openInvoices(
      trx,
      supplier.id,
      allocations.map((allocation) => allocation.invoice),
    );
    assertAllocations({ supplierId: supplier.id, branchId, date: input.paymentDate, amount }, allocations, invoices);
    // Paid from the till in a branch under till control: the maker's till (docs/domain.md §13.1).
    const paidFrom = await cashAccountFor(trx, branchId, maker.userId, input.payingAccount);
    const entryId = await postJournalEntry(trx, {
      enterpriseId: supplier.enterpriseId,
      branchId,
      entryDate: input.paymentDate,
      lines: paymentEntryLines(supplier.accountCode, paidFrom, amount),
      description: `Règlement ${supplier.name}${input.reference === '' ? '' : ` (${input.reference})`}`.slice(0, 500),
      journal: payingJournal(input.payingAccount),
      createdBy: maker.userId,
    });
    const payment = await storePayment(trx, maker, { supplier, branchId, entryId }, input);
    await recordAudit(trx, maker, {
      action: 'supplier_payment.record',
      entityType: 'supplier_payment',
      entityId: payment.id,
      enterpriseId: supplier.enterpriseId,
      details: {
        supplier: supplier.id,
        amount: input.amount,
        paying_account: input.payingAccount,
        entry: entryId,
        allocations: input.allocations,
      },
    });
    return { id: payment.id as string };
  });
}

/**
 * Reverses a payment posted by mistake, its invoices owed again: the executor of `supplier_payment.reverse`
 * (docs/domain.md §12.5).
 */
export async function reverseSupplierPayment(
  context: DataContext,
  maker: Actor,
  input: SupplierReversalInput,
): Promise<void> {
  await inTransaction(context.knex, (trx) => reverseSupplierBook(trx, context, maker, 'payment', input));
}
