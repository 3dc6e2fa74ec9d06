import type { ReportColumn, ReportDocument } from '../accounts/report-document';
import { formatAmount, Money } from '../money';

/**
 * The fixed-asset register at a date (docs/domain.md §12.4): every asset in the books that day (acquired by then,
 * not yet disposed of), its cost, the depreciation booked by then and its net book value, and the totals. Pure.
 */
export interface RegisterLine {
  asset: string;
  label: string;
  category: string;
  branch: string;
  acquisitionDate: string;
  cost: Money;
  accumulated: Money;
}

export interface Register {
  lines: RegisterLine[];
  totals: { cost: Money; accumulated: Money; netBookValue: Money };
}

export function registerOf(lines: RegisterLine[]): Register {
  const cost = lines.reduce((sum, line) => sum.plus(line.cost), new Money(0));
  const accumulated = lines.reduce((sum, line) => sum.plus(line.accumulated), new Money(0));
  return { lines, totals: { cost, accumulated, netBookValue: cost.minus(accumulated) } };
}

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'text'): ReportColumn => ({
  key,
  title,
  kind,
});
const columns = [
  column('label', 'Immobilisation'),
  column('category', 'Catégorie'),
  column('branch', 'Agence'),
  column('acquisition_date', "Date d'acquisition", 'date'),
  column('cost', "Valeur d'origine", 'money'),
  column('accumulated', 'Amortissements cumulés', 'money'),
  column('net_book_value', 'Valeur nette comptable', 'money'),
];

/** The register as a document: one row per asset, then the totals. */
export function fixedAssetRegisterDocument(header: Header, asOf: string, register: Register): ReportDocument {
  const rows = register.lines.map((line) => ({
    label: line.label,
    category: line.category,
    branch: line.branch,
    acquisition_date: line.acquisitionDate,
    cost: formatAmount(line.cost),
    accumulated: formatAmount(line.accumulated),
    net_book_value: formatAmount(line.cost.minus(line.accumulated)),
  }));
  const { totals } = register;
  const total = {
    label: 'Total',
    category: null,
    branch: null,
    acquisition_date: null,
    cost: formatAmount(totals.cost),
    accumulated: formatAmount(totals.accumulated),
    net_book_value: formatAmount(totals.netBookValue),
  };
  return {
    ...header,
    title: 'Registre des immobilisations',
    asOf,
    sheets: [{ name: 'Immobilisations', columns, rows: [...rows, total] }],
  };
}
