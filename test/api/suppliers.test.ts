import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { decideRequest, enterpriseAccountant } from '../helpers/accounting';
import { createTestDatabase } from '../helpers/database';
import { accountBalance, asApprover, createLoanWorld, ledgerBalanced, type LoanWorld } from '../helpers/loans';
import { approveRequest } from '../helpers/approvals';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Suppliers and expenses (issue 28, docs/domain.md §12.5) through the API and the real four-eyes workflow: an
 * electricity invoice (with its recoverable VAT) and a rent invoice, the electricity paid in two parts (the till,
 * then a bank), the rent in part; every balance, open item and ledger figure computed here by hand.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let accountant: Record<string, string>;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'SUP');
  accountant = (await enterpriseAccountant(app, knex, world.enterpriseId, 'accountant_sup', '10.70.0.1')).headers;
});

const as = (user: string) => world.users[user]!.headers;
const post = (path: string, headers: Record<string, string>, json: unknown) =>
  app.request('POST', `/api/v1/accounting/${path}/`, { headers, json });
const get = async (path: string, headers = as('direction')) => app.request('GET', path, { headers });
const decide = (requestId: string, decision: 'approve' | 'reject', headers: Record<string, string>) =>
  decideRequest(app, requestId, decision, headers, 'checked against the invoice');

/** A request made by its maker, approved by the branch head. */
async function approved(t: ExecutionContext, requested: TestResponse): Promise<void> {
  t.is(requested.status, 202, requested.text);
  const decided = await decide(requested.body.id, 'approve', as('branch_head'));
  t.is(decided.status, 200, decided.text);
  t.is(decided.body.status, 'approved', JSON.stringify(decided.body.failure));
}

const invoiceId = async (number: string) =>
  (await knex('supplier_invoices').where({ number }).first('id')).id as string;
const paymentId = async (supplier: string, date: string) =>
  (await knex('supplier_payments').where({ supplier_id: supplier, payment_date: date }).first('id')).id as string;

const journalOf = async (entryId: string) =>
  (await knex('journal_entries').where({ id: entryId }).first('journal_code')).journal_code as string;

/**
 * Through the API, with the worker: electricity of March (100 000 of consumption, 19 250 of VAT at 19.25 % the
 * cooperative recovers), April's rent (250 000), the electricity paid 50 000 from the till then 69 250 from a bank,
 * the rent paid 100 000 from the till.
 */
async function bookTheMonth(t: ExecutionContext, eneoId: string, landlordId: string): Promise<void> {
  const { electricityId, rentId } = await bookTheInvoices(t, eneoId, landlordId);
  const pay = (json: Record<string, unknown>) => post('supplier-payments', accountant, json);
  await approved(
    t,
    await pay({
      supplier: eneoId,
      payment_date: '2026-04-10',
      amount: '50000',
      paying_account: '5710',
      allocations: [{ invoice: electricityId, amount: '50000' }],
    }),
  );
  await approved(
    t,
    await pay({
      supplier: landlordId,
      branch: world.headOffice,
      payment_date: '2026-04-05',
      amount: '100000',
      paying_account: '5710',
      reference: 'reçu 12',
      allocations: [{ invoice: rentId, amount: '100000' }],
    }),
  );
  // The bank transfer, sent with an Idempotency-Key: a retry answers the request while it waits, the payment once made.
  const transfer = {
    supplier: eneoId,
    payment_date: '2026-04-20',
    amount: '69250',
    paying_account: '5602',
    reference: 'virement 88',
    allocations: [{ invoice: electricityId, amount: '69250' }],
  };
  const keyed = (json: unknown) =>
    app.request('POST', '/api/v1/accounting/supplier-payments/', {
      headers: { ...accountant, 'idempotency-key': 'virement-88' },
      json,
    });
  const requested = await keyed(transfer);
  t.is((await keyed(transfer)).body.id, requested.body.id, 'a retry while it waits: the same request');
  await approved(t, requested);
  const replayed = await keyed(transfer);
  t.is(replayed.status, 201);
  t.is(replayed.headers.get('idempotent-replayed'), 'true');
  t.is(
    replayed.body.id,
    await paymentId(eneoId, '2026-04-20'),
    'a retry after the approval: the payment made, not another',
  );
  t.like((await keyed({ ...transfer, amount: '1', allocations: [{ invoice: electricityId, amount: '1' }] })).body, {
    status: 409,
    code: 'idempotency_key_reused',
  });

  await assertPaymentJournals(t, eneoId, electricityId);
}

/** The month's two invoices: the electricity made by the accountant, the rent by the branch head. */
async function bookTheInvoices(t: ExecutionContext, eneoId: string, landlordId: string) {
  const electricity = await post('supplier-invoices', accountant, {
    supplier: eneoId,
    number: 'ENEO-2026-03',
    invoice_date: '2026-03-31',
    due_date: '2026-04-15',
    label: 'Électricité mars',
    amount: '119250',
    lines: [
      { account: '65211', amount: '100000', label: 'Consommation' },
      { account: '4305', amount: '19250', label: 'TVA 19,25 %' },
    ],
  });
  t.like(electricity.body, {
    operation: 'supplier_invoice.record',
    status: 'pending',
    approver_roles: ['branch_head', 'direction', 'admin'],
  });
  t.is(await accountBalance(knex, world.enterpriseId, '40110001'), '0', 'nothing is booked before the approval');
  t.is((await decide(electricity.body.id, 'approve', accountant)).status, 403, 'the accountant decides nothing');
  await approved(t, electricity);
  const electricityId = await invoiceId('ENEO-2026-03');

  // April's rent, made by the branch head: they may not approve their own request.
  const rentRequest = await post('supplier-invoices', as('branch_head'), {
    supplier: landlordId,
    branch: world.headOffice,
    number: 'LOY-2026-04',
    invoice_date: '2026-04-01',
    due_date: '2026-04-05',
    label: 'Loyer avril',
    amount: '250000',
    lines: [{ account: '65234', amount: '250000', label: 'Loyer du siège' }],
  });
  t.is(rentRequest.status, 202, rentRequest.text);
  t.like((await decide(rentRequest.body.id, 'approve', as('branch_head'))).body, {
    status: 403,
    code: 'approval_own_request',
  });
  const rentApproval = await decide(rentRequest.body.id, 'approve', as('direction'));
  t.like(rentApproval.body, { status: 'approved' });
  return { electricityId, rentId: await invoiceId('LOY-2026-04') };
}

/** The paying journals: from the till in CAI, from a bank in BQ; the electricity invoice paid, booked in OD. */
async function assertPaymentJournals(t: ExecutionContext, eneoId: string, electricityId: string) {
  const firstPayment = await get(`/api/v1/accounting/supplier-payments/${await paymentId(eneoId, '2026-04-10')}/`);
  t.like(firstPayment.body, {
    amount: '50000',
    paying_account: '5710',
    allocations: [{ invoice: electricityId, number: 'ENEO-2026-03', amount: '50000' }],
  });
  t.is(await journalOf(firstPayment.body.entry), 'CAI', 'from the till: the cash journal');
  t.is(
    await journalOf(
      (await get(`/api/v1/accounting/supplier-payments/${await paymentId(eneoId, '2026-04-20')}/`)).body.entry,
    ),
    'BQ',
    'from a bank: the bank journal',
  );
  const invoice = await get(`/api/v1/accounting/supplier-invoices/${electricityId}/`);
  t.like(invoice.body, {
    amount: '119250',
    paid: '119250',
    remaining: '0',
    lines: [
      { account: '65211', amount: '100000' },
      { account: '4305', amount: '19250' },
    ],
  });
  t.is(await journalOf(invoice.body.entry), 'OD');
}

/** An invoice of the stationer for 30 000 with the given lines, under its number. */
type InvoiceOf = (lines: { account: string; amount: string }[], number?: string) => ReturnType<typeof post>;
/** A payment to the stationer on the 10th, the fields given overriding. */
type PaymentOf = (json: Record<string, unknown>) => ReturnType<typeof post>;

/** ENEO at the head office and the landlord of the whole enterprise; a cashier and a taken tax id refused. */
async function createTwoSuppliers(t: ExecutionContext) {
  const eneo = await post('suppliers', accountant, {
    enterprise: world.enterpriseId,
    branch: world.headOffice,
    name: 'ENEO Cameroun',
    tax_id: 'M012345678901A',
    contact: 'Douala',
  });
  t.is(eneo.status, 201, eneo.text);
  t.like(eneo.body, { account: '40110001', branch: world.headOffice, balance: '0', is_active: true });
  const landlord = await post('suppliers', accountant, { enterprise: world.enterpriseId, name: 'SCI Akwa' });
  t.like(landlord.body, { account: '40110002', branch: null });
  t.is(
    (await post('suppliers', as('cashier'), { enterprise: world.enterpriseId, name: 'Refused' })).status,
    403,
    'a cashier keeps no books',
  );
  t.like(
    (await post('suppliers', accountant, { enterprise: world.enterpriseId, name: 'Twin', tax_id: 'M012345678901A' }))
      .body,
    { code: 'supplier_tax_id_taken', errors: [{ field: 'tax_id' }] },
  );
  return { eneo, landlord };
}

/** Hand-computed: ENEO invoiced 119 250, paid 50 000 + 69 250; the landlord invoiced 250 000, paid 100 000. */
async function assertSuppliersAfterTheMonth(t: ExecutionContext, eneoId: string, landlordId: string) {
  t.like((await get(`/api/v1/accounting/suppliers/${eneoId}/`)).body, {
    invoiced: '119250',
    paid: '119250',
    balance: '0',
  });
  t.like((await get(`/api/v1/accounting/suppliers/${landlordId}/`)).body, {
    invoiced: '250000',
    paid: '100000',
    balance: '150000',
  });
  const listedTo = async (user: string) =>
    (await get(`/api/v1/accounting/suppliers/?enterprise=${world.enterpriseId}`, as(user))).body.results.map(
      (row: { name: string }) => row.name,
    );
  t.deepEqual(
    await listedTo('branch_head'),
    ['ENEO Cameroun', 'SCI Akwa'],
    "the head office's supplier and the whole enterprise's",
  );
  t.deepEqual(await listedTo('other_head'), ['SCI Akwa'], "another branch sees the whole enterprise's only");
  t.deepEqual(await listedTo('root'), ['ENEO Cameroun', 'SCI Akwa'], "the platform's administrator sees them all");
  t.is((await get(`/api/v1/accounting/suppliers/${eneoId}/`, as('other_head'))).status, 404);
  const seenByOtherHead = (
    await get(`/api/v1/accounting/suppliers/?enterprise=${world.enterpriseId}`, as('other_head'))
  ).body.results;
  t.like(
    seenByOtherHead,
    [{ name: 'SCI Akwa', invoiced: '0', balance: '0' }],
    "the rent was booked at the head office: not their branch's figures",
  );
  t.is(
    (await get(`/api/v1/accounting/suppliers/${landlordId}/`, as('other_head'))).status,
    403,
    'its detail is for the roles over the whole enterprise',
  );
  t.is(
    await accountBalance(knex, world.enterpriseId, '40110001'),
    '0',
    "the supplier's balance is its account's in the ledger",
  );
  t.is(await accountBalance(knex, world.enterpriseId, '40110002'), '-150000', 'a credit of 150 000: what remains owed');
  t.is(await accountBalance(knex, world.enterpriseId, '65211'), '100000');
  t.is(await accountBalance(knex, world.enterpriseId, '4305'), '19250');
  t.is(await accountBalance(knex, world.enterpriseId, '65234'), '250000');
  t.is(await accountBalance(knex, world.enterpriseId, '5602'), '-69250');
  t.true(await ledgerBalanced(knex, world.enterpriseId));
}

/** The supplier balances report at the 15th and the month end, per branch and as CSV. */
async function assertSupplierBalancesReport(t: ExecutionContext) {
  const chartId = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
  const report = async (date: string, extra = '') =>
    (await get(`/api/v1/accounts/charts/${chartId}/supplier-balances/?date=${date}${extra}`, accountant)).body;
  t.like(await report('2026-04-15'), {
    totals: {
      invoiced: '369250',
      paid: '150000',
      balance: '219250',
      ledger_balance: '219250',
      account_401: '219250',
    },
  });
  const atMonthEnd = await report('2026-04-30');
  t.like(atMonthEnd, {
    provisional: false,
    totals: {
      invoiced: '369250',
      paid: '219250',
      balance: '150000',
      ledger_balance: '150000',
      account_401: '150000',
    },
  });
  t.like(atMonthEnd.suppliers, [
    { account: '40110001', balance: '0', ledger_balance: '0' },
    { account: '40110002', balance: '150000', ledger_balance: '150000' },
  ]);
  t.like(
    await report('2026-04-30', `&branch=${world.otherBranch}`),
    { totals: { invoiced: '0', balance: '0', account_401: '0' } },
    'nothing was booked in the second branch',
  );
  const csv = await app.request(
    'GET',
    `/api/v1/accounts/charts/${chartId}/supplier-balances/?date=2026-04-30&format=csv`,
    { headers: accountant },
  );
  t.is(csv.status, 200);
  t.regex(csv.text, /Balance des fournisseurs/);
  t.regex(csv.text, /40110002;SCI Akwa;250000;100000;150000;150000/);
}

/** A class 3 line, lines not making the amount, no branch for a whole-enterprise supplier, a date too late. */
async function assertInvoicesRefused(t: ExecutionContext, supplierId: string, invoice: InvoiceOf) {
  t.like(
    (
      await invoice([
        { account: '65213', amount: '20000' },
        { account: '3221', amount: '10000' },
      ])
    ).body,
    { status: 422, code: 'supplier_invoice_account_refused', errors: [{ field: 'lines[1].account' }] },
    'a class 3 account is no expense',
  );
  t.like(
    (await invoice([{ account: '65213', amount: '20000' }])).body,
    { status: 400, errors: [{ field: 'amount' }] },
    'the lines make the amount',
  );
  const wholeEnterprise = (await post('suppliers', accountant, { enterprise: world.enterpriseId, name: 'Sans agence' }))
    .body;
  const noBranch = await post('supplier-invoices', accountant, {
    supplier: wholeEnterprise.id,
    number: 'X',
    invoice_date: '2026-05-02',
    due_date: '2026-05-02',
    label: 'x',
    amount: '1',
    lines: [{ account: '65213', amount: '1', label: 'x' }],
  });
  t.like(
    noBranch.body,
    { status: 400, errors: [{ field: 'branch' }] },
    'a supplier of the whole enterprise: the invoice names its branch',
  );
  t.like(
    (
      await post('supplier-invoices', accountant, {
        supplier: supplierId,
        number: 'LATE',
        invoice_date: '2026-12-01',
        due_date: '2026-12-31',
        label: 'x',
        amount: '1',
        lines: [{ account: '65213', amount: '1', label: 'x' }],
      })
    ).body,
    { status: 422, code: 'as_of_after_business_date', errors: [{ field: 'invoice_date' }] },
    'not after the business date (2026-11-26)',
  );
}

/** A paying account not of class 5, more than remains, allocations not making the amount, a date too early. */
async function assertPaymentsRefused(t: ExecutionContext, payment: PaymentOf, bookedId: string) {
  t.like(
    (
      await payment({
        amount: '10000',
        paying_account: '65213',
        allocations: [{ invoice: bookedId, amount: '10000' }],
      })
    ).body,
    { status: 422, code: 'supplier_paying_account_refused', errors: [{ field: 'paying_account' }] },
  );
  t.like(
    (
      await payment({
        amount: '30001',
        paying_account: '5710',
        allocations: [{ invoice: bookedId, amount: '30001' }],
      })
    ).body,
    { status: 409, code: 'supplier_payment_exceeds_due', errors: [{ field: 'allocations[0].amount' }] },
    '30 000 remain, not 30 001',
  );
  t.like(
    (
      await payment({
        amount: '20000',
        paying_account: '5710',
        allocations: [{ invoice: bookedId, amount: '10000' }],
      })
    ).body,
    { status: 400, errors: [{ field: 'amount' }] },
  );
  t.like(
    (
      await payment({
        amount: '10000',
        paying_account: '5710',
        allocations: [{ invoice: bookedId, amount: '10000' }],
        payment_date: '2026-05-01',
      })
    ).body,
    { status: 400, errors: [{ field: 'allocations[0].invoice' }] },
    'a payment does not settle an invoice dated after it',
  );
}

/** A deactivated supplier takes no new invoice; its open items may still be paid; it is listed as inactive. */
async function assertDeactivatedSupplier(
  t: ExecutionContext,
  {
    supplierId,
    invoice,
    payment,
    bookedId,
  }: { supplierId: string; invoice: InvoiceOf; payment: PaymentOf; bookedId: string },
) {
  const deactivated = await app.request('PATCH', `/api/v1/accounting/suppliers/${supplierId}/`, {
    headers: accountant,
    json: { is_active: false },
  });
  t.like(deactivated.body, { is_active: false, balance: '30000' });
  t.like((await invoice([{ account: '65213', amount: '30000' }], 'PAP-3')).body, {
    status: 409,
    code: 'supplier_inactive',
  });
  t.is(
    (
      await payment({
        amount: '30000',
        paying_account: '5710',
        allocations: [{ invoice: bookedId, amount: '30000' }],
      })
    ).status,
    202,
    'its open items may still be paid',
  );
  const listed = await get(
    `/api/v1/accounting/suppliers/?enterprise=${world.enterpriseId}&is_active=false`,
    accountant,
  );
  t.deepEqual(
    listed.body.results.map((row: { name: string }) => row.name),
    ['Papeterie du Wouri'],
  );
}

test.serial(
  'two invoices, a partial then a full payment: balances, open items, ' +
    'the ledger and the report agree with the hand-computed figures',
  async (t) => {
    const { eneo, landlord } = await createTwoSuppliers(t);

    await withWorker(knex, () => bookTheMonth(t, eneo.body.id, landlord.body.id), taskQueue);

    await assertSuppliersAfterTheMonth(t, eneo.body.id, landlord.body.id);

    const openOn = async (supplier: string, date: string) =>
      (await get(`/api/v1/accounting/suppliers/${supplier}/open-items/?date=${date}`, accountant)).body;
    t.like(await openOn(eneo.body.id, '2026-04-15'), {
      total: '69250',
      items: [{ number: 'ENEO-2026-03', amount: '119250', paid: '50000', remaining: '69250' }],
    });
    t.deepEqual((await openOn(eneo.body.id, '2026-04-30')).items, [], 'paid in full by the 20th');
    t.like(await openOn(eneo.body.id, '2026-03-30'), { total: '0' }, 'not invoiced yet');
    t.like(await openOn(landlord.body.id, '2026-04-30'), {
      total: '150000',
      items: [{ number: 'LOY-2026-04', remaining: '150000' }],
    });

    await assertSupplierBalancesReport(t);
  },
);

test.serial(
  'refusals name the field: a class 3 line, a duplicate number, ' +
    'a paying account not of class 5, a payment above what remains',
  async (t) => {
    const supplier = (
      await post('suppliers', accountant, {
        enterprise: world.enterpriseId,
        branch: world.headOffice,
        name: 'Papeterie du Wouri',
      })
    ).body;
    const invoice = (lines: { account: string; amount: string }[], number = 'PAP-1') =>
      post('supplier-invoices', accountant, {
        supplier: supplier.id,
        number,
        invoice_date: '2026-05-02',
        due_date: '2026-05-31',
        label: 'Fournitures',
        amount: '30000',
        lines: lines.map((line) => ({ ...line, label: 'ligne' })),
      });
    const entries = async () =>
      Number((await knex('journal_entries').where({ enterprise_id: world.enterpriseId }).count('* as n').first())!.n);
    const before = await entries();

    await assertInvoicesRefused(t, supplier.id, invoice);
    t.is(await entries(), before, 'no refused request posted anything');

    const booked = await approveRequest(
      knex,
      await invoice([{ account: '65213', amount: '30000' }]),
      asApprover(world),
    );
    t.is(booked.status, 200, booked.text);
    t.like((await invoice([{ account: '65213', amount: '30000' }])).body, {
      status: 409,
      code: 'supplier_invoice_number_taken',
      errors: [{ field: 'number' }],
    });
    t.is(
      (await invoice([{ account: '65213', amount: '30000' }], 'PAP-2')).status,
      202,
      'another number of the same supplier is fine',
    );
    const bookedId = await invoiceId('PAP-1');

    const payment = (json: Record<string, unknown>) =>
      post('supplier-payments', accountant, { supplier: supplier.id, payment_date: '2026-05-10', ...json });
    await assertPaymentsRefused(t, payment, bookedId);
    t.is(await entries(), before + 1, 'only the approved invoice posted');

    await assertDeactivatedSupplier(t, { supplierId: supplier.id, invoice, payment, bookedId });
  },
);
