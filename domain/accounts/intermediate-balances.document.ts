import { formatAmount, type Money } from '../money';
import type { ReportColumn, ReportDocument } from './report-document';
import type { IntermediateBalance } from './intermediate-balances';

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;

const balanceColumns: readonly ReportColumn[] = [
  { key: 'code', title: 'Code', kind: 'text' },
  { key: 'label', title: 'Solde intermédiaire de gestion', kind: 'text' },
  { key: 'amount', title: 'Période', kind: 'money' },
  { key: 'prior_amount', title: 'Période précédente', kind: 'money' },
];

const accountColumns: readonly ReportColumn[] = [
  { key: 'code', title: 'Solde', kind: 'text' },
  { key: 'account', title: 'Compte', kind: 'text' },
  { key: 'amount', title: 'Effet sur le résultat', kind: 'money' },
];

/**
 * The SIG (docs/domain.md §10) as a document: the balances beside the prior period, then the accounts of each balance.
 */
export function intermediateBalancesDocument(
  header: Header,
  period: { from: string; to: string },
  balances: readonly (IntermediateBalance & { prior: Money })[],
): ReportDocument {
  return {
    ...header,
    title: 'Soldes intermédiaires de gestion',
    period,
    sheets: [
      {
        name: 'SIG',
        columns: balanceColumns,
        rows: balances.map((line) => ({
          code: line.code,
          label: line.label,
          amount: formatAmount(line.amount),
          prior_amount: formatAmount(line.prior),
        })),
      },
      {
        name: 'Comptes',
        columns: accountColumns,
        rows: balances.flatMap((line) =>
          line.accounts.map((row) => ({ code: line.code, account: row.account, amount: formatAmount(row.amount) })),
        ),
      },
    ],
  };
}
