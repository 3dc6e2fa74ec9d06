import { formatAmount } from '../money';
import type { ReportColumn, ReportDocument } from './report-document';
import type { Part } from './prudential-parts';
import type { PrudentialRatios, Ratio } from './prudential-ratios';

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt' | 'openExercices'>;

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'text'): ReportColumn => ({
  key,
  title,
  kind,
});
const yesNo = (value: boolean) => (value ? 'oui' : 'non');

const ratioColumns = [
  column('code', 'Ratio'),
  column('label', 'Libellé'),
  column('numerator', 'Numérateur', 'money'),
  column('denominator', 'Dénominateur', 'money'),
  column('value', 'Valeur', 'ratio'),
  column('comparison', 'Norme'),
  column('threshold', 'Seuil', 'ratio'),
  column('met', 'Respecté'),
  column('cobac_emf_norm', 'Norme COBAC EMF'),
  column('source', 'Source'),
];
const partColumns = [
  column('ratio', 'Ratio'),
  column('side', 'Terme'),
  column('part', 'Composante'),
  column('rate', 'Taux', 'ratio'),
  column('part_amount', 'Montant retenu', 'money'),
  column('account', 'Compte'),
  column('account_amount', 'Solde du compte', 'money'),
];
const borrowerColumns = [
  column('ratio', 'Ratio'),
  column('member_number', 'Sociétaire'),
  column('name', 'Nom'),
  column('outstanding', 'Encours', 'money'),
  column('provisions', 'Provisions', 'money'),
  column('exposure', 'Risque net', 'money'),
  column('share', 'Part des fonds propres nets', 'ratio'),
  column('exceeds', 'Au-delà de la limite'),
];
const capColumns = [
  column('member_number', 'Sociétaire'),
  column('name', 'Nom'),
  column('code', 'Plafond'),
  column('limit', 'Limite', 'money'),
  column('outstanding', 'Encours', 'money'),
];

/** A part's rows: one per account it reads, or one alone for a figure from the loans. */
function partRows(ratio: string, side: string, parts: readonly Part[]): Record<string, string | null>[] {
  return parts.flatMap((part): Record<string, string | null>[] => {
    const head = { ratio, side, part: part.label, rate: part.rate.toString(), part_amount: formatAmount(part.amount) };
    if (part.accounts.length === 0) return [{ ...head, account: null, account_amount: null }];
    return part.accounts.map((row) => ({ ...head, account: row.account, account_amount: formatAmount(row.amount) }));
  });
}

const ratioRow = (ratio: Ratio) => ({
  code: ratio.code,
  label: ratio.label,
  numerator: formatAmount(ratio.numerator),
  denominator: formatAmount(ratio.denominator),
  value: ratio.value?.toFixed(6) ?? null,
  comparison: ratio.comparison === 'at_least' ? 'minimum' : 'maximum',
  threshold: ratio.threshold.toString(),
  met: yesNo(ratio.met),
  cobac_emf_norm: yesNo(ratio.cobacEmfNorm),
  source: ratio.source,
});

/**
 * The COBAC prudential ratios at a date (docs/domain.md §10) as a document: the ratios, what feeds them, the borrowers
 * named, the R-2017/08 breaches.
 */
export function prudentialRatiosDocument(header: Header, asOf: string, report: PrudentialRatios): ReportDocument {
  const parts = [
    ...partRows('net_equity', 'fonds propres nets', report.netEquity.parts),
    ...report.ratios.flatMap((ratio) => [
      ...partRows(ratio.code, 'numérateur', ratio.numeratorParts),
      ...partRows(ratio.code, 'dénominateur', ratio.denominatorParts),
    ]),
  ];
  const borrowers = report.ratios.flatMap((ratio) =>
    (ratio.borrowers ?? []).map((borrower) => ({
      ratio: ratio.code,
      member_number: borrower.memberNumber,
      name: borrower.name,
      outstanding: formatAmount(borrower.outstanding),
      provisions: formatAmount(borrower.provisions),
      exposure: formatAmount(borrower.exposure),
      share: borrower.ratio?.toFixed(6) ?? null,
      exceeds: yesNo(borrower.exceeds),
    })),
  );
  const caps = report.creditCaps.breaches.map(({ exposure, breach }) => ({
    member_number: exposure.memberNumber,
    name: exposure.name,
    code: breach.code,
    limit: formatAmount(breach.limit),
    outstanding: formatAmount(breach.total),
  }));
  return {
    ...header,
    title: 'Ratios prudentiels COBAC',
    asOf,
    sheets: [
      { name: 'Ratios', columns: ratioColumns, rows: report.ratios.map(ratioRow) },
      { name: 'Composantes', columns: partColumns, rows: parts },
      { name: 'Bénéficiaires', columns: borrowerColumns, rows: borrowers },
      { name: 'Plafonds R-2017-08', columns: capColumns, rows: caps },
    ],
  };
}
