import type { ReportColumn, ReportDocument } from '../accounts/report-document';

/**
 * The write-off alert and the write-off register as documents (docs/architecture.md §10): titles in French, as the
 * credit staff read them.
 */

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;
type Row = Readonly<Record<string, string | null>>;

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'text'): ReportColumn => ({
  key,
  title,
  kind,
});
const loanColumns = [
  column('number', 'Prêt'),
  column('branch_code', 'Agence'),
  column('member_number', 'Sociétaire'),
  column('member_name', 'Nom'),
];

export function writeOffCandidatesDocument(header: Header, date: string, rows: readonly Row[]): ReportDocument {
  return {
    title: 'Créances douteuses de plus de 3 ans à passer en pertes (COBAC R-2017/07 art. 10)',
    ...header,
    asOf: date,
    sheets: [
      {
        name: 'A passer en pertes',
        columns: [
          ...loanColumns,
          column('doubtful_since', 'Douteux depuis', 'date'),
          column('years_doubtful', 'Années', 'integer'),
          column('outstanding_principal', 'Encours', 'money'),
          column('provision_amount', 'Provision', 'money'),
          column('provision_account', 'Compte de provision'),
        ],
        rows,
      },
    ],
  };
}

export function writeOffRegisterDocument(
  header: Header,
  period: { from: string; to: string },
  rows: readonly Row[],
  totals: Row,
): ReportDocument {
  return {
    title: 'Registre des créances passées en pertes et des récupérations',
    ...header,
    period,
    sheets: [
      {
        name: 'Passages en pertes',
        columns: [
          ...loanColumns,
          column('written_off_on', 'Date', 'date'),
          column('written_off_amount', 'Montant passé en pertes', 'money'),
          column('proposed_by_name', 'Proposé par'),
          column('approved_by_name', 'Approuvé par'),
          column('recovered', 'Récupéré', 'money'),
          column('net_loss', 'Perte nette', 'money'),
        ],
        rows: [...rows, totals],
      },
    ],
  };
}
