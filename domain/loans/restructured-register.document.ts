import type { ReportColumn, ReportDocument } from '../accounts/report-document';
import type { LoanClass } from './classification';

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;

/** A register's loan as the document reads it (activities/loans/loan-restructurings.queries.ts). */
interface RegisterLoan {
  number: string;
  memberNumber: string;
  memberName: string;
  classification: LoanClass;
  outstanding: string;
  restructurings: readonly {
    number: number;
    effectiveOn: string;
    classBefore: LoanClass;
    restructuredAmount: string;
    requiredPayment: string;
    teg: string;
  }[];
}

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'text'): ReportColumn => ({
  key,
  title,
  kind,
});

const columns = [
  column('number', 'Crédit'),
  column('member_number', 'Sociétaire'),
  column('member_name', 'Nom'),
  column('count', 'Restructurations', 'integer'),
  column('restructuring', 'N°', 'integer'),
  column('effective_on', 'Date', 'date'),
  column('class_before', 'Classe avant'),
  column('restructured_amount', 'Montant restructuré', 'money'),
  column('required_payment', 'Paiement exigé (art. 14)', 'money'),
  column('teg', 'TEG'),
  column('classification', 'Classe à la date'),
  column('outstanding', 'Encours à la date', 'money'),
];

/**
 * The restructured-loan register (R-2017/07 Arts. 11–14) as a document: one row per restructuring, its loan's figures
 * at the date beside it.
 */
export function restructuredRegisterDocument(
  header: Header,
  asOf: string,
  loans: readonly RegisterLoan[],
): ReportDocument {
  const rows = loans.flatMap((loan) =>
    loan.restructurings.map((item) => ({
      number: loan.number,
      member_number: loan.memberNumber,
      member_name: loan.memberName,
      count: String(loan.restructurings.length),
      restructuring: String(item.number),
      effective_on: item.effectiveOn,
      class_before: item.classBefore,
      restructured_amount: item.restructuredAmount,
      required_payment: item.requiredPayment,
      teg: item.teg,
      classification: loan.classification,
      outstanding: loan.outstanding,
    })),
  );
  return { ...header, title: 'Registre des crédits restructurés', asOf, sheets: [{ name: 'Registre', columns, rows }] };
}
