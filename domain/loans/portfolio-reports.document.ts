import type { ReportColumn, ReportDocument } from '../accounts/report-document';
import { parThresholds } from './portfolio-reports';

/**
 * The portfolio reports (docs/domain.md §14.5) as documents, built from the very answers the JSON routes send so a
 * CSV or a workbook shows the same figures. Titles in French: the board reads them as such.
 */

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;
type Figures = Readonly<Record<string, unknown>>;

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'text'): ReportColumn => ({
  key,
  title,
  kind,
});

const parColumns = [
  column('grouping', 'Regroupement'),
  column('code', 'Code'),
  column('name', 'Nom'),
  column('loans', 'Crédits', 'integer'),
  column('outstanding', 'Encours', 'money'),
  ...parThresholds.flatMap((threshold) => [
    column(`par${threshold}_loans`, `PAR ${threshold} crédits`, 'integer'),
    column(`par${threshold}_outstanding`, `PAR ${threshold} encours`, 'money'),
    column(`par${threshold}_ratio`, `PAR ${threshold} taux`, 'ratio'),
  ]),
];

interface ParAnswerFigures {
  loans: number;
  outstanding: string;
  buckets: readonly { threshold: number; loans: number; outstanding: string; ratio: string }[];
}

const parRow = (grouping: string, named: { code: string; name: string }, figures: ParAnswerFigures) => ({
  grouping,
  code: named.code,
  name: named.name,
  loans: String(figures.loans),
  outstanding: figures.outstanding,
  ...Object.fromEntries(
    figures.buckets.flatMap((bucket) => [
      [`par${bucket.threshold}_loans`, String(bucket.loans)],
      [`par${bucket.threshold}_outstanding`, bucket.outstanding],
      [`par${bucket.threshold}_ratio`, bucket.ratio],
    ]),
  ),
});

type Grouped = readonly ({ id: string; code: string; name: string } & ParAnswerFigures)[];

interface ParAnswer {
  date: string;
  total: ParAnswerFigures;
  by_product: Grouped;
  by_branch: Grouped;
  by_officer: Grouped;
}

/** The portfolio at risk: the whole, then per product, branch and loan officer, one line each. */
export function portfolioAtRiskDocument(header: Header, answer: ParAnswer): ReportDocument {
  const groups = (grouping: string, rows: Grouped) => rows.map((row) => parRow(grouping, row, row));
  return {
    ...header,
    title: 'Portefeuille à risque',
    asOf: answer.date,
    sheets: [
      {
        name: 'PAR',
        columns: parColumns,
        rows: [
          parRow('total', { code: '', name: 'Portefeuille' }, answer.total),
          ...groups('produit', answer.by_product),
          ...groups('agence', answer.by_branch),
          ...groups('agent de crédit', answer.by_officer),
        ],
      },
    ],
  };
}

const officerColumns = [
  column('username', 'Agent de crédit'),
  column('name', 'Nom'),
  column('loans', 'Crédits', 'integer'),
  column('outstanding', 'Encours', 'money'),
  column('arrears', 'Impayés', 'money'),
  column('par30_loans', 'PAR 30 crédits', 'integer'),
  column('par30_outstanding', 'PAR 30 encours', 'money'),
  column('par30_ratio', 'PAR 30 taux', 'ratio'),
  column('disbursed', 'Décaissements', 'money'),
  column('collected', 'Recouvrements', 'money'),
];

const officerRow = (username: string, name: string, row: Figures) => ({
  username,
  name,
  loans: String(row.loans),
  outstanding: row.outstanding as string,
  arrears: row.arrears as string,
  par30_loans: String(row.par30_loans),
  par30_outstanding: row.par30_outstanding as string,
  par30_ratio: row.par30_ratio as string,
  disbursed: row.disbursed as string,
  collected: row.collected as string,
});

/** Each loan officer's portfolio at the end of the period, and what they disbursed and collected over it. */
export function officerPortfoliosDocument(
  header: Header,
  answer: { from: string; to: string; officers: readonly Figures[]; total: Figures },
): ReportDocument {
  return {
    ...header,
    title: 'Portefeuille des agents de crédit',
    period: { from: answer.from, to: answer.to },
    sheets: [
      {
        name: 'Agents de crédit',
        columns: officerColumns,
        rows: [
          ...answer.officers.map((row) => officerRow(row.username as string, row.name as string, row)),
          officerRow('total', '', answer.total),
        ],
      },
    ],
  };
}

const ladderTitles: Record<string, string> = {
  past_due: 'Échu impayé',
  up_to_1_month: '≤ 1 mois',
  from_1_to_3_months: '1 à 3 mois',
  from_3_to_6_months: '3 à 6 mois',
  from_6_to_12_months: '6 à 12 mois',
  from_1_to_2_years: '1 à 2 ans',
  from_2_to_5_years: '2 à 5 ans',
  over_5_years: '> 5 ans',
  within_three_months: 'Dont ≤ 3 mois',
  total: 'Total',
};

interface LadderAnswer {
  date: string;
  past_due: string;
  periods: readonly { period: string; principal: string }[];
  within_three_months: string;
  total: string;
}

/**
 * The maturity ladder: the principal past due, then falling due by period, the part within three months and the total.
 */
export function maturityLadderDocument(header: Header, answer: LadderAnswer): ReportDocument {
  const line = (key: string, principal: string) => ({ period: ladderTitles[key] ?? key, principal });
  return {
    ...header,
    title: 'Échéancier du portefeuille de crédits',
    asOf: answer.date,
    sheets: [
      {
        name: 'Échéances',
        columns: [column('period', 'Période'), column('principal', 'Capital', 'money')],
        rows: [
          line('past_due', answer.past_due),
          ...answer.periods.map((row) => line(row.period, row.principal)),
          line('within_three_months', answer.within_three_months),
          line('total', answer.total),
        ],
      },
    ],
  };
}
