import type { Session } from './api-client';
import type { Cooperative } from './cooperative';

/** What the accountant's part of the demo leaves behind, for the summary and the test. */
export interface BooksOutcome {
  /** The business date the month's expenses and the motorcycle were booked at. */
  date: string;
  openingEntry: string;
  salaries: string;
  suppliers: { electricity: string; landlord: string };
  fixedAsset: string;
}

/** A bank account of the cooperative (PCEMF 5603, comptes à vue nostri, banques non associées). */
const bank = '5603';

interface Posted {
  id: string;
}

/** Direction's approval of a request of the accountant (four eyes). */
type Approve = (what: string, request: { id: string }) => Promise<unknown>;

/**
 * The accountant's first month on Coopbank (docs/domain.md §12): the opening balance sheet, salaries, two suppliers'
 * invoices and their payment, a motorcycle for the loan officers. Each posting is the accountant's request, applied
 * only once direction, a second person, approves it (four eyes, docs/domain.md §11).
 */
export async function keepTheBooks(cooperative: Cooperative, today: string): Promise<BooksOutcome> {
  const { accountant, direction } = cooperative.staff;
  const akwa = cooperative.branchIds.akwa;
  const approve = (what: string, request: { id: string }) =>
    direction.session.post(`approve: ${what}`, `/api/v1/approvals/requests/${request.id}/approve/`, {
      reason: 'Pièce vérifiée',
    });
  const line = (account: string, side: 'debit' | 'credit', amount: string, label?: string) => ({
    account,
    branch: akwa,
    [side]: amount,
    ...(label === undefined ? {} : { label }),
  });

  // The balance sheet at the cut-over: the bank, the reserves and a guarantee fund; the member deposits the go-live
  // import will bring (5 000 000) wait on the suspense account 4780 until then.
  const opening = await accountant.session.post<Posted>(
    'draft the opening balance sheet',
    '/api/v1/accounting/manual-entries/opening/',
    {
      enterprise: cooperative.enterpriseId,
      reference: 'BILAN-OUVERTURE',
      lines: [line(bank, 'debit', '8000000'), line('111', 'credit', '2000000'), line('16300', 'credit', '1000000')],
    },
  );
  await submitAndApprove(accountant.session, opening.id, 'the opening balance sheet', approve);

  const salaries = await accountant.session.post<Posted>(
    "draft the month's salaries",
    '/api/v1/accounting/manual-entries/',
    {
      enterprise: cooperative.enterpriseId,
      entry_date: today,
      reference: 'PAIE-01',
      label: 'Salaires du mois',
      lines: [
        line('6511', 'debit', '600000', 'Salaires des employés'),
        line('422', 'credit', '600000', 'Rémunérations dues'),
      ],
    },
  );
  await submitAndApprove(accountant.session, salaries.id, 'the salaries', approve);

  const suppliers = await expenses(cooperative, accountant.session, today, approve);
  const fixedAsset = await buyMotorcycle(cooperative, accountant.session, today, approve);
  return { date: today, openingEntry: opening.id, salaries: salaries.id, suppliers, fixedAsset };
}

/** A motorcycle for the loan officers, in a new category of vehicles, paid from the bank; its fixed asset's id. */
async function buyMotorcycle(
  cooperative: Cooperative,
  accountant: Session,
  today: string,
  approve: Approve,
): Promise<string> {
  const akwa = cooperative.branchIds.akwa;
  const category = await accountant.post<Posted>(
    'create the category of vehicles',
    '/api/v1/accounting/fixed-asset-categories/',
    {
      enterprise: cooperative.enterpriseId,
      name: 'Matériel de transport',
      depreciation_months: 36,
      asset_account: '225',
      depreciation_account: '2825',
      charge_account: '6824',
    },
  );
  const motorcycle = await accountant.post<Posted>(
    'buy a motorcycle for the loan officers',
    '/api/v1/accounting/fixed-assets/',
    {
      category: category.id,
      branch: akwa,
      label: 'Moto Yamaha AG 100 des agents de crédit',
      supplier: 'Moto Center Douala',
      acquisition_date: today,
      cost: '1200000',
      funding_account: bank,
    },
  );
  await approve("the motorcycle's purchase", motorcycle);
  const assets = await accountant.get<{ results: { id: string }[] }>(
    'find the motorcycle',
    '/api/v1/accounting/fixed-assets/',
    { enterprise: cooperative.enterpriseId, category: category.id },
  );
  return assets.results[0]!.id;
}

async function submitAndApprove(accountant: Session, entry: string, what: string, approve: Approve): Promise<void> {
  const request = await accountant.post<{ id: string }>(
    `submit ${what}`,
    `/api/v1/accounting/manual-entries/${entry}/submission/`,
    {},
  );
  await approve(what, request);
}

/** Electricity and rent, each an invoice booked to its supplier's own account, then paid from the bank. */
async function expenses(
  cooperative: Cooperative,
  accountant: Session,
  today: string,
  approve: Approve,
): Promise<BooksOutcome['suppliers']> {
  const supplier = (name: string, taxId: string) =>
    accountant.post<Posted>(`register the supplier ${name}`, '/api/v1/accounting/suppliers/', {
      enterprise: cooperative.enterpriseId,
      branch: cooperative.branchIds.akwa,
      name,
      tax_id: taxId,
    });
  const [electricity, landlord] = [
    await supplier('ENEO Cameroun', 'M049800012345A'),
    await supplier('SCI Les Palmiers', 'M011700098765B'),
  ];
  const invoice = async (of: Posted, number: string, account: string, amount: string, label: string) => {
    const request = await accountant.post<{ id: string }>(
      `book the invoice ${number}`,
      '/api/v1/accounting/supplier-invoices/',
      {
        supplier: of.id,
        number,
        invoice_date: today,
        due_date: today,
        label,
        amount,
        lines: [{ account, amount, label }],
      },
    );
    await approve(`the invoice ${number}`, request);
    const booked = await accountant.get<{ results: { id: string }[] }>(
      `find the invoice ${number}`,
      '/api/v1/accounting/supplier-invoices/',
      { enterprise: cooperative.enterpriseId, supplier: of.id },
    );
    return booked.results[0]!.id;
  };
  const pay = async (of: Posted, invoiceId: string, amount: string, what: string) =>
    approve(
      what,
      await accountant.post<{ id: string }>(
        what,
        '/api/v1/accounting/supplier-payments/',
        {
          supplier: of.id,
          payment_date: today,
          amount,
          paying_account: bank,
          allocations: [{ invoice: invoiceId, amount }],
        },
        `${cooperative.code}:supplier-payment:${what.replaceAll(' ', '-')}`,
      ),
    );
  await pay(
    electricity,
    await invoice(electricity, 'ENEO-2026-0147', '65211', '85000', 'Électricité du siège'),
    '85000',
    'pay ENEO in full',
  );
  // Half the rent now, the rest at the end of the month: an open item to see.
  await pay(
    landlord,
    await invoice(landlord, 'LOY-2026-01', '65234', '250000', "Loyer de l'agence d'Akwa"),
    '125000',
    'pay half the rent',
  );
  return { electricity: electricity.id, landlord: landlord.id };
}
