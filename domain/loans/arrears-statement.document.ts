import { formatAmount } from '../money';
import type { ReportColumn, ReportDocument } from '../accounts/report-document';
import type { ArrearsFigures, ArrearsStatement, LedgerAgreement } from './arrears-statement';

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt' | 'openExercices'>;

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'text'): ReportColumn => ({
  key,
  title,
  kind,
});

const figureColumns = [
  column('loans', 'Crédits', 'integer'),
  column('litigious', 'Dont litigieux', 'integer'),
  column('outstanding', 'Encours', 'money'),
  column('arrears', 'Impayés', 'money'),
  column('guaranteed', 'Part garantie', 'money'),
  column('provisions', 'Provisions', 'money'),
];
const summaryColumns = [
  column('classification', 'Classe'),
  column('days_from', 'Jours de retard, de', 'integer'),
  column('days_to', 'à', 'integer'),
  ...figureColumns,
];
const ledgerColumns = [
  column('figure', 'Rubrique'),
  column('statement', 'État', 'money'),
  column('ledger', 'Comptabilité', 'money'),
  column('agrees', 'Concordance'),
  column('accounts', 'Comptes'),
];
const loanColumns = [
  column('number', 'Crédit'),
  column('member_number', 'Sociétaire'),
  column('member_name', 'Nom'),
  column('classification', 'Classe'),
  column('litigious', 'Litigieux'),
  column('days_past_due', 'Jours de retard', 'integer'),
  column('outstanding', 'Encours', 'money'),
  column('arrears', 'Impayés', 'money'),
  column('guaranteed', 'Part garantie', 'money'),
  column('provisions', 'Provisions', 'money'),
];

const figures = (row: ArrearsFigures) => ({
  loans: String(row.loans),
  litigious: String(row.litigious),
  outstanding: formatAmount(row.outstanding),
  arrears: formatAmount(row.arrears),
  guaranteed: formatAmount(row.guaranteed),
  provisions: formatAmount(row.provisions),
});

/**
 * The statement of loans in arrears (docs/domain.md §10) as a document: the classes by age band and the total, the
 * ledger beside them, every loan.
 */
export function arrearsStatementDocument(
  header: Header,
  asOf: string,
  statement: ArrearsStatement,
  agreement: readonly LedgerAgreement[],
): ReportDocument {
  const groups = statement.groups.map((group) => ({
    classification: group.classification,
    days_from: String(group.band.days_from),
    days_to: group.band.days_to === null ? null : String(group.band.days_to),
    ...figures(group),
  }));
  return {
    ...header,
    title: 'État des créances en souffrance et des provisions',
    asOf,
    sheets: [
      {
        name: 'Synthèse',
        columns: summaryColumns,
        rows: [...groups, { classification: 'total', days_from: null, days_to: null, ...figures(statement.totals) }],
      },
      {
        name: 'Rapprochement',
        columns: ledgerColumns,
        rows: agreement.map((row) => ({
          figure: row.figure,
          statement: formatAmount(row.statement),
          ledger: formatAmount(row.ledger),
          agrees: row.agrees ? 'oui' : 'non',
          accounts: row.accounts.map((account) => account.account).join(' '),
        })),
      },
      {
        name: 'Détail',
        columns: loanColumns,
        rows: statement.loans.map((loan) => ({
          number: loan.loanNumber,
          member_number: loan.memberNumber,
          member_name: loan.memberName,
          classification: loan.classification,
          litigious: loan.litigious ? 'oui' : 'non',
          days_past_due: String(loan.daysPastDue),
          outstanding: formatAmount(loan.outstanding),
          arrears: formatAmount(loan.arrears),
          guaranteed: formatAmount(loan.outstanding.minus(loan.uncovered)),
          provisions: formatAmount(loan.provisions),
        })),
      },
    ],
  };
}
