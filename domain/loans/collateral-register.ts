import type { ReportColumn, ReportDocument } from '../accounts/report-document';
import { formatAmount, Money } from '../money';
import { coverOf, guaranteeKinds, type GuaranteeKind } from './provisioning';

/**
 * The collateral register at a date (docs/domain.md §14.4): every guarantee in force on a loan of the portfolio, its
 * value as last assessed and what provisioning may count of it (countableValue), with the totals by kind. Pure.
 */
export interface CollateralLine {
  guarantee: string;
  loan: string;
  loanNumber: string;
  branch: string;
  memberNumber: string;
  memberName: string;
  classification: string;
  outstanding: Money;
  kind: GuaranteeKind;
  value: Money;
  valuationDate: string;
  documentReference: string;
  guarantor: string | null;
  guarantorName: string | null;
  account: string | null;
  countableValue: Money;
}

export interface CollateralFigures {
  guarantees: number;
  value: Money;
  countableValue: Money;
}

export interface CollateralRegister {
  lines: readonly CollateralLine[];
  byKind: readonly ({ kind: GuaranteeKind } & CollateralFigures)[];
  totals: CollateralFigures;
}

const figuresOf = (lines: readonly CollateralLine[]): CollateralFigures => ({
  guarantees: lines.length,
  value: lines.reduce((sum, line) => sum.plus(line.value), new Money(0)),
  countableValue: lines.reduce((sum, line) => sum.plus(line.countableValue), new Money(0)),
});

/** The register of `lines`: the kinds that have some, in the kinds' order, and the whole. */
export function collateralRegister(lines: readonly CollateralLine[]): CollateralRegister {
  const byKind = guaranteeKinds
    .map((kind) => ({ kind, ...figuresOf(lines.filter((line) => line.kind === kind)) }))
    .filter((row) => row.guarantees > 0);
  return { lines, byKind, totals: figuresOf(lines) };
}

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'text'): ReportColumn => ({
  key,
  title,
  kind,
});
const summaryColumns = [
  column('kind', 'Nature'),
  column('cover', 'Couverture'),
  column('guarantees', 'Garanties', 'integer'),
  column('value', 'Valeur', 'money'),
  column('countable_value', 'Valeur retenue', 'money'),
];
const lineColumns = [
  column('loan_number', 'Crédit'),
  column('member_number', 'Sociétaire'),
  column('member_name', 'Nom'),
  column('classification', 'Classe'),
  column('outstanding', 'Encours', 'money'),
  column('kind', 'Nature'),
  column('value', 'Valeur', 'money'),
  column('valuation_date', 'Évaluée le', 'date'),
  column('document_reference', 'Acte'),
  column('guarantor_name', 'Caution'),
  column('countable_value', 'Valeur retenue', 'money'),
];

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;

/** The register as a document to download: the totals by kind, then every guarantee. */
export function collateralRegisterDocument(header: Header, asOf: string, register: CollateralRegister): ReportDocument {
  const figures = (row: CollateralFigures) => ({
    guarantees: String(row.guarantees),
    value: formatAmount(row.value),
    countable_value: formatAmount(row.countableValue),
  });
  return {
    ...header,
    title: 'Registre des garanties',
    asOf,
    sheets: [
      {
        name: 'Synthèse',
        columns: summaryColumns,
        rows: [
          ...register.byKind.map((row) => ({ kind: row.kind, cover: coverOf(row.kind), ...figures(row) })),
          { kind: 'total', cover: null, ...figures(register.totals) },
        ],
      },
      {
        name: 'Détail',
        columns: lineColumns,
        rows: register.lines.map((line) => ({
          loan_number: line.loanNumber,
          member_number: line.memberNumber,
          member_name: line.memberName,
          classification: line.classification,
          outstanding: formatAmount(line.outstanding),
          kind: line.kind,
          value: formatAmount(line.value),
          valuation_date: line.valuationDate,
          document_reference: line.documentReference,
          guarantor_name: line.guarantorName,
          countable_value: formatAmount(line.countableValue),
        })),
      },
    ],
  };
}
