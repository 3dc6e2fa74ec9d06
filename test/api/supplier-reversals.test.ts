import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { enterpriseAccountant } from '../helpers/accounting';
import { approveRequest } from '../helpers/approvals';
import { createTestDatabase } from '../helpers/database';
import { accountBalance, asApprover, createLoanWorld, ledgerBalanced, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { formatAmount, Money } from '../../domain/money';

/**
 * A supplier's invoice and payment posted by mistake, reversed (issue 28, docs/domain.md §12.5): an invoice of
 * 100 000 partly paid 40 000 from the till; the payment reversed on the 10th, then the invoice on the 12th, then
 * booked again under its number for 80 000. Balances, open items and the ledger at each date are computed here.
 */

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let accountant: Record<string, string>;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'SRV');
  accountant = (await enterpriseAccountant(app, knex, world.enterpriseId, 'accountant_srv', '10.71.0.1')).headers;
});

const post = (path: string, json: unknown) =>
  app.request('POST', `/api/v1/accounting/${path}`, { headers: accountant, json });
const get = async (path: string) =>
  (await app.request('GET', `/api/v1/accounting/${path}`, { headers: accountant })).body;

/** The request the accountant made, approved by a second person. */
async function approved(
  t: { is: (a: unknown, b: unknown, m?: string) => void },
  requested: TestResponse,
): Promise<void> {
  t.is(requested.status, 202, requested.text);
  t.is((await approveRequest(knex, requested, asApprover(world))).status, 200);
}

const invoiceBody = (supplier: string, amount: string) => ({
  supplier,
  number: 'LOY-05',
  invoice_date: '2026-05-02',
  due_date: '2026-05-31',
  label: 'Loyer mai',
  amount,
  lines: [{ account: '65234', amount, label: 'Loyer' }],
});

/** The invoice LOY-05 of 100 000 booked on 2 May, paid 40 000 from the till on 5 May. */
async function invoicePartlyPaid(t: ExecutionContext, supplierId: string) {
  await approved(t, await post('supplier-invoices/', invoiceBody(supplierId, '100000')));
  const invoice = await knex('supplier_invoices').where({ supplier_id: supplierId }).first('id', 'entry_id');
  await approved(
    t,
    await post('supplier-payments/', {
      supplier: supplierId,
      payment_date: '2026-05-05',
      amount: '40000',
      paying_account: '5710',
      allocations: [{ invoice: invoice.id, amount: '40000' }],
    }),
  );
  const payment = await knex('supplier_payments').where({ supplier_id: supplierId }).first('id', 'entry_id');
  return { invoice, payment };
}

/** The payment reversed on the 10th under four eyes: the till gets the 40 000 back, the invoice is open again. */
async function assertPaymentReversed(
  t: ExecutionContext,
  { invoice, payment, till }: { invoice: { id: string }; payment: { id: string; entry_id: string }; till: string },
) {
  const paymentReversal = await post(`supplier-payments/${payment.id}/reversal/`, {
    date: '2026-05-10',
    reason: 'Chèque annulé',
  });
  t.like(paymentReversal.body, {
    operation: 'supplier_payment.reverse',
    status: 'pending',
    approver_roles: ['branch_head', 'direction', 'admin'],
  });
  t.is(
    await accountBalance(knex, world.enterpriseId, '5710'),
    formatAmount(new Money(till).minus(40000)),
    'nothing moves before the approval',
  );
  await approved(t, paymentReversal);
  const reversedPayment = await get(`supplier-payments/${payment.id}/`);
  t.like(reversedPayment, { amount: '40000', reversal: { date: '2026-05-10', reason: 'Chèque annulé' } });
  const paymentEntry = await knex('journal_entries')
    .where({ id: reversedPayment.reversal.entry })
    .first('reverses_entry_id', 'journal_code', 'entry_date');
  t.like(paymentEntry, { reverses_entry_id: payment.entry_id, journal_code: 'CAI' });
  t.is(await accountBalance(knex, world.enterpriseId, '5710'), till, 'the 40 000 are back in the till');
  t.like(await get(`supplier-invoices/${invoice.id}/`), { paid: '0', remaining: '100000', reversal: null });
  t.like((await post(`supplier-payments/${payment.id}/reversal/`, { date: '2026-05-11', reason: 'encore' })).body, {
    status: 409,
    code: 'supplier_book_reversed',
  });
}

/**
 * Hand-computed, by date: invoiced 100 000 on the 2nd, paid 40 000 on the 5th, the payment undone on the 10th, the
 * invoice on the 12th.
 */
async function assertBalancesByDate(t: ExecutionContext, supplierId: string) {
  const chartId = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
  const balances = async (date: string) =>
    (
      await app.request('GET', `/api/v1/accounts/charts/${chartId}/supplier-balances/?date=${date}`, {
        headers: accountant,
      })
    ).body.suppliers.find((row: { supplier: string }) => row.supplier === supplierId);
  t.like(await balances('2026-05-07'), {
    invoiced: '100000',
    paid: '40000',
    balance: '60000',
    ledger_balance: '60000',
  });
  t.like(await balances('2026-05-10'), {
    invoiced: '100000',
    paid: '0',
    balance: '100000',
    ledger_balance: '100000',
  });
  t.like(await balances('2026-05-12'), { invoiced: '0', paid: '0', balance: '0', ledger_balance: '0' });
  const openOn = async (date: string) => get(`suppliers/${supplierId}/open-items/?date=${date}`);
  t.like(await openOn('2026-05-07'), {
    total: '60000',
    items: [{ number: 'LOY-05', paid: '40000', remaining: '60000' }],
  });
  t.like(await openOn('2026-05-11'), {
    total: '100000',
    items: [{ number: 'LOY-05', paid: '0', remaining: '100000' }],
  });
  t.like(await openOn('2026-05-12'), { total: '0', items: [] });
  const listed = async (open: boolean) =>
    (await get(`supplier-invoices/?enterprise=${world.enterpriseId}&supplier=${supplierId}&open=${open}`)).results
      .length;
  t.deepEqual([await listed(true), await listed(false)], [0, 1], 'reversed: not open');
}

test(
  'a payment reversed reopens its invoice, ' + 'a reversed invoice leaves the balances, and its number is booked again',
  async (t) => {
    const supplier = (
      await post('suppliers/', { enterprise: world.enterpriseId, branch: world.headOffice, name: 'SCI Bonapriso' })
    ).body;
    const account = supplier.account as string;
    const till = await accountBalance(knex, world.enterpriseId, '5710');
    const { invoice, payment } = await invoicePartlyPaid(t, supplier.id);

    t.like(
      (await post(`supplier-invoices/${invoice.id}/reversal/`, { date: '2026-05-12', reason: 'Facture en double' }))
        .body,
      { status: 409, code: 'supplier_invoice_paid' },
      'a payment settles it: refused at the request, before any second person',
    );
    await assertPaymentReversed(t, { invoice, payment, till });

    t.like(
      (await post(`supplier-invoices/${invoice.id}/reversal/`, { date: '2026-05-01', reason: 'Facture en double' }))
        .body,
      { status: 400, errors: [{ field: 'date' }] },
      'not before the invoice',
    );
    t.like(
      (await post(`supplier-invoices/${invoice.id}/reversal/`, { date: '2026-12-01', reason: 'Facture en double' }))
        .body,
      { status: 422, code: 'as_of_after_business_date', errors: [{ field: 'date' }] },
    );
    await approved(
      t,
      await post(`supplier-invoices/${invoice.id}/reversal/`, { date: '2026-05-12', reason: 'Facture en double' }),
    );
    const reversedInvoice = await get(`supplier-invoices/${invoice.id}/`);
    t.like(reversedInvoice, { amount: '100000', paid: '0', remaining: '0', reversal: { date: '2026-05-12' } });
    t.like(
      await knex('journal_entries')
        .where({ id: reversedInvoice.reversal.entry })
        .first('reverses_entry_id', 'journal_code'),
      { reverses_entry_id: invoice.entry_id, journal_code: 'OD' },
    );
    t.is(await accountBalance(knex, world.enterpriseId, account), '0');
    t.is(await accountBalance(knex, world.enterpriseId, '65234'), '0');
    t.like(
      (
        await post('supplier-payments/', {
          supplier: supplier.id,
          payment_date: '2026-05-13',
          amount: '1',
          paying_account: '5710',
          allocations: [{ invoice: invoice.id, amount: '1' }],
        })
      ).body,
      { status: 400, errors: [{ field: 'allocations[0].invoice' }] },
      'a reversed invoice is no open item to pay',
    );
    await assertBalancesByDate(t, supplier.id);

    await approved(t, await post('supplier-invoices/', invoiceBody(supplier.id, '80000')));
    t.like(
      (await post('supplier-invoices/', invoiceBody(supplier.id, '80000'))).body,
      { status: 409, code: 'supplier_invoice_number_taken' },
      'the number stands again',
    );
    t.like(await get(`suppliers/${supplier.id}/`), { invoiced: '80000', paid: '0', balance: '80000' });
    t.is(await accountBalance(knex, world.enterpriseId, account), '-80000');
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);
