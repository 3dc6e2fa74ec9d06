import type { ReportColumn, ReportDocument } from '../accounts/report-document';

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;

/** A payoff quote as the JSON answers it: amounts as whole-franc text. */
export interface PayoffQuoteLine {
  loan_number: string;
  date: string;
  principal: string;
  interest: string;
  penalties: string;
  /** Only when insurance parts are in arrears (docs/domain.md §14.6). */
  insurance?: string;
  fee: string;
  total: string;
  valid_until: string;
}

const column = (key: keyof PayoffQuoteLine, title: string, kind: ReportColumn['kind'] = 'money'): ReportColumn => ({
  key,
  title,
  kind,
});

const columns = [
  column('loan_number', 'Crédit', 'text'),
  column('date', 'Date', 'text'),
  column('principal', 'Capital restant dû'),
  column('interest', 'Intérêts courus'),
  column('penalties', 'Pénalités'),
  column('insurance', 'Assurance échue'),
  column('fee', 'Indemnité de remboursement anticipé'),
  column('total', 'Total à payer'),
  column('valid_until', "Valable jusqu'au", 'text'),
];

/** The quote handed to the member who asks to repay the whole loan (docs/domain.md §14.1): one line, printed. */
export function payoffQuoteDocument(header: Header, quote: PayoffQuoteLine): ReportDocument {
  // A loan without insurance in arrears prints no insurance column.
  const shown =
    quote.insurance === undefined ? columns.filter((shownColumn) => shownColumn.key !== 'insurance') : columns;
  return {
    ...header,
    title: `Décompte de remboursement anticipé du crédit ${quote.loan_number}`,
    asOf: quote.date,
    sheets: [{ name: 'Décompte', columns: shown, rows: [{ ...quote }] }],
  };
}
