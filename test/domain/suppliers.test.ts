import test from 'ava';
import {
  assertAllocations,
  invoiceEntryLines,
  isInvoiceLineAccount,
  isPayingAccount,
  nextSupplierAccountCode,
  payingJournal,
  type OpenInvoice,
} from '../../domain/accounting/suppliers';
import { AppError } from '../../domain/errors';
import { Money } from '../../domain/money';

/** The pure rules of suppliers' books (docs/domain.md §12.5). */

test('supplier accounts are 40110 followed by three digits, the next after the highest, 999 at most', (t) => {
  t.is(nextSupplierAccountCode([]), '40110001');
  t.is(nextSupplierAccountCode(['40110001', '40110007']), '40110008', 'after the highest, not in a gap');
  t.is(
    nextSupplierAccountCode(['401101', '40110002']),
    '40110003',
    "a sub-account of another length is not a supplier's",
  );
  t.is(nextSupplierAccountCode(['40110999']), null);
});

test(
  'invoice lines on expenses and recoverable taxes only; ' + 'payments from class 5, the till to CAI, a bank to BQ',
  (t) => {
    t.true(isInvoiceLineAccount({ code: '65211', class: 6 }));
    t.true(isInvoiceLineAccount({ code: '4305', class: 4 }));
    t.false(isInvoiceLineAccount({ code: '3221', class: 3 }));
    t.false(isInvoiceLineAccount({ code: '4411', class: 4 }), 'class 4 beyond 430 is no tax');
    t.false(isInvoiceLineAccount({ code: '2441', class: 2 }), "an asset is the register's");
    t.true(isPayingAccount({ code: '5602', class: 5 }));
    t.false(isPayingAccount({ code: '65211', class: 6 }));
    t.is(payingJournal('5710'), 'CAI');
    t.is(payingJournal('5602'), 'BQ');
  },
);

test('an invoice debits each line and credits the supplier by the total', (t) => {
  const lines = invoiceEntryLines('40110001', [
    { account: '65211', amount: new Money(100_000) },
    { account: '4305', amount: new Money(19_250) },
  ]);
  t.deepEqual(
    lines.map((line) => [line.account, line.debit.toString(), line.credit.toString()]),
    [
      ['65211', '100000', '0'],
      ['4305', '19250', '0'],
      ['40110001', '0', '119250'],
    ],
  );
});

test(
  "allocations: partial allowed, never above what remains, of the supplier's invoices of its branch dated " +
    'before, summing to the amount',
  (t) => {
    const invoice: OpenInvoice = {
      id: 'i1',
      supplierId: 's1',
      branchId: 'b1',
      invoiceDate: '2026-03-31',
      remaining: new Money(69_250),
    };
    const invoices = new Map([['i1', invoice]]);
    const payment = (amount: number, date = '2026-04-20') => ({
      supplierId: 's1',
      branchId: 'b1',
      date,
      amount: new Money(amount),
    });
    t.notThrows(() => assertAllocations(payment(50_000), [{ invoice: 'i1', amount: new Money(50_000) }], invoices));
    t.notThrows(() => assertAllocations(payment(69_250), [{ invoice: 'i1', amount: new Money(69_250) }], invoices));
    const refusal = (run: () => void) => {
      const error = t.throws(run, { instanceOf: AppError }) as AppError;
      return { code: error.code, field: error.fieldErrors[0]?.field };
    };
    t.deepEqual(
      refusal(() => assertAllocations(payment(69_251), [{ invoice: 'i1', amount: new Money(69_251) }], invoices)),
      { code: 'supplier_payment_exceeds_due', field: 'allocations[0].amount' },
    );
    t.deepEqual(
      refusal(() => assertAllocations(payment(60_000), [{ invoice: 'i1', amount: new Money(50_000) }], invoices)),
      { code: 'invalid_request', field: 'amount' },
    );
    t.deepEqual(
      refusal(() => assertAllocations(payment(10, '2026-03-30'), [{ invoice: 'i1', amount: new Money(10) }], invoices)),
      { code: 'invalid_request', field: 'allocations[0].invoice' },
    );
    t.deepEqual(
      refusal(() =>
        assertAllocations(
          payment(20),
          [
            { invoice: 'i1', amount: new Money(10) },
            { invoice: 'i1', amount: new Money(10) },
          ],
          invoices,
        ),
      ),
      { code: 'invalid_request', field: 'allocations[1].invoice' },
      'an invoice named twice',
    );
    t.deepEqual(
      refusal(() =>
        assertAllocations({ ...payment(10), branchId: 'b2' }, [{ invoice: 'i1', amount: new Money(10) }], invoices),
      ),
      { code: 'invalid_request', field: 'allocations[0].invoice' },
    );
    t.deepEqual(
      refusal(() => assertAllocations(payment(10), [{ invoice: 'other', amount: new Money(10) }], invoices)),
      { code: 'invalid_request', field: 'allocations[0].invoice' },
    );
  },
);
