import type { ReportColumn, ReportDocument } from '../accounts/report-document';
import { formatAmount, Money } from '../money';

/**
 * The bank reconciliation statement (état de rapprochement, docs/domain.md §12.6): the book balance, corrected by
 * what the books have and the bank not yet (less) and what the bank has and the books not yet (plus), must give
 * the bank's balance. Pure.
 */

export interface UnmatchedLedgerLine {
  journal_line: string;
  date: string;
  description: string;
  amount: string;
}
export interface UnmatchedStatementLine {
  statement_line: string;
  date: string;
  label: string;
  reference: string;
  amount: string;
}

export interface ReconciliationFigures {
  date: string;
  account: string;
  book_balance: string;
  bank_balance: string;
  unmatched_ledger_lines: readonly UnmatchedLedgerLine[];
  unmatched_statement_lines: readonly UnmatchedStatementLine[];
  /** The book balance less the unmatched ledger lines plus the unmatched statement lines. */
  reconciled_balance: string;
  /** The bank balance less the reconciled balance: zero when the statement reconciles. */
  difference: string;
  reconciled: boolean;
}

const sum = (rows: readonly { amount: string }[]) => rows.reduce((total, row) => total.plus(row.amount), new Money(0));

export function reconcile(
  input: Omit<ReconciliationFigures, 'reconciled_balance' | 'difference' | 'reconciled'>,
): ReconciliationFigures {
  const reconciled = new Money(input.book_balance)
    .minus(sum(input.unmatched_ledger_lines))
    .plus(sum(input.unmatched_statement_lines));
  const difference = new Money(input.bank_balance).minus(reconciled);
  return {
    ...input,
    reconciled_balance: formatAmount(reconciled),
    difference: formatAmount(difference),
    reconciled: difference.isZero(),
  };
}

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'text'): ReportColumn => ({
  key,
  title,
  kind,
});

/** The statement as a document (CSV, XLSX): one sheet, the balances then each unmatched line, titles in French. */
export function reconciliationDocument(
  header: Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>,
  figures: ReconciliationFigures,
): ReportDocument {
  const row = (item: string, date: string, label: string, amount: string) => ({ item, date, label, amount });
  return {
    title: `État de rapprochement bancaire ${figures.account}`,
    ...header,
    asOf: figures.date,
    sheets: [
      {
        name: 'Rapprochement',
        columns: [
          column('item', 'Rubrique'),
          column('date', 'Date', 'date'),
          column('label', 'Libellé'),
          column('amount', 'Montant', 'money'),
        ],
        rows: [
          row('Solde comptable', figures.date, figures.account, figures.book_balance),
          ...figures.unmatched_ledger_lines.map((line) =>
            row('Écriture non relevée (à déduire)', line.date, line.description, line.amount),
          ),
          ...figures.unmatched_statement_lines.map((line) =>
            row('Opération du relevé non comptabilisée (à ajouter)', line.date, line.label, line.amount),
          ),
          row('Solde rapproché', figures.date, '', figures.reconciled_balance),
          row('Solde bancaire', figures.date, '', figures.bank_balance),
          row('Écart', figures.date, '', figures.difference),
        ],
      },
    ],
  };
}
