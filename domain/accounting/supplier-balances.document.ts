import type { ReportColumn, ReportDocument } from '../accounts/report-document';

/** The supplier balances report as a document (docs/architecture.md §10): titles in French, as sent to the auditors. */

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt' | 'openExercices'>;

export interface SupplierBalancesFigures {
  date: string;
  suppliers: readonly {
    account: string;
    name: string;
    invoiced: string;
    paid: string;
    balance: string;
    ledger_balance: string;
  }[];
  totals: { invoiced: string; paid: string; balance: string; ledger_balance: string; account_401: string };
}

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'money'): ReportColumn => ({
  key,
  title,
  kind,
});

export function supplierBalancesDocument(header: Header, figures: SupplierBalancesFigures): ReportDocument {
  const { totals } = figures;
  return {
    title: 'Balance des fournisseurs',
    ...header,
    asOf: figures.date,
    sheets: [
      {
        name: 'Fournisseurs',
        columns: [
          column('account', 'Compte', 'text'),
          column('name', 'Fournisseur', 'text'),
          column('invoiced', 'Facturé'),
          column('paid', 'Réglé'),
          column('balance', 'Solde dû'),
          column('ledger_balance', 'Solde comptable'),
        ],
        rows: [
          // Each supplier's row carries the columns' keys (and its id, which no column shows).
          ...figures.suppliers,
          {
            account: '',
            name: 'Total',
            invoiced: totals.invoiced,
            paid: totals.paid,
            balance: totals.balance,
            ledger_balance: totals.ledger_balance,
          },
          {
            account: '401',
            name: 'Compte 401 au grand livre',
            invoiced: null,
            paid: null,
            balance: null,
            ledger_balance: totals.account_401,
          },
        ],
      },
    ],
  };
}
