import type { ReportColumn, ReportDocument } from '../accounts/report-document';

/**
 * The liaison balances report as a document (docs/architecture.md §10): titles in French, as the branches' accountants
 * read them.
 */

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;

export interface LiaisonBalancesFigures {
  date: string;
  pairs: readonly {
    branch_a_code: string;
    branch_b_code: string;
    balance_a: string;
    balance_b: string;
    difference: string;
  }[];
  total: string;
}

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'money'): ReportColumn => ({
  key,
  title,
  kind,
});

export function liaisonBalancesDocument(header: Header, figures: LiaisonBalancesFigures): ReportDocument {
  return {
    title: 'Soldes des comptes de liaison entre agences (45200)',
    ...header,
    asOf: figures.date,
    sheets: [
      {
        name: 'Liaisons',
        columns: [
          column('branch_a_code', 'Agence A', 'text'),
          column('branch_b_code', 'Agence B', 'text'),
          column('balance_a', 'Solde de A envers B'),
          column('balance_b', 'Solde de B envers A'),
          column('difference', 'Écart'),
        ],
        rows: [
          ...figures.pairs,
          { branch_a_code: 'Total', branch_b_code: '', balance_a: null, balance_b: null, difference: figures.total },
        ],
      },
    ],
  };
}
