import type { ReportColumn, ReportDocument } from '../accounts/report-document';
import { denominationNames, denominations } from './till-counts';

/**
 * The till journal (brouillard de caisse, docs/domain.md §13.1) as a document: titles in French, as the branch prints
 * it.
 */

type Header = Pick<ReportDocument, 'enterprise' | 'branch' | 'generatedAt'>;

type Count = Readonly<Record<string, number>>;

export interface TillJournalFigures {
  date: string;
  sessions: readonly {
    till_code: string;
    status: string;
    opening_count: Count;
    opening_total: string;
    opening_book_balance: string;
    opening_difference: string | null;
    closing_count: Count | null;
    closing_total: string | null;
    closing_book_balance: string | null;
    closing_difference: string | null;
  }[];
  lines: readonly {
    created_at: string;
    number: string;
    till_code: string;
    account: string;
    description: string;
    amount: string;
  }[];
  totals: { cash_in: string; cash_out: string };
}

const column = (key: string, title: string, kind: ReportColumn['kind'] = 'money'): ReportColumn => ({
  key,
  title,
  kind,
});

const countRow = (till: string, moment: string, count: Count | null, total: string | null) => ({
  till,
  moment,
  ...Object.fromEntries(denominationNames.map((name) => [name, count === null ? null : String(count[name] ?? 0)])),
  total,
});

export function tillJournalDocument(header: Header, figures: TillJournalFigures): ReportDocument {
  const cashIn = (amount: string) => (amount.startsWith('-') ? null : amount);
  const cashOut = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : null);
  return {
    title: 'Brouillard de caisse',
    ...header,
    asOf: figures.date,
    sheets: [
      {
        name: 'Opérations',
        columns: [
          column('created_at', 'Heure', 'text'),
          column('number', 'Pièce', 'text'),
          column('till_code', 'Caisse', 'text'),
          column('account', 'Compte', 'text'),
          column('description', 'Libellé', 'text'),
          column('cash_in', 'Entrée'),
          column('cash_out', 'Sortie'),
        ],
        rows: [
          ...figures.lines.map((line) => ({ ...line, cash_in: cashIn(line.amount), cash_out: cashOut(line.amount) })),
          {
            created_at: '',
            number: '',
            till_code: '',
            account: '',
            description: 'Total',
            cash_in: figures.totals.cash_in,
            cash_out: figures.totals.cash_out,
          },
        ],
      },
      {
        name: 'Arrêtés',
        columns: [
          column('till_code', 'Caisse', 'text'),
          column('status', 'État', 'text'),
          column('opening_total', 'Ouverture comptée'),
          column('opening_book_balance', "Solde comptable à l'ouverture"),
          column('opening_difference', "Écart à l'ouverture"),
          column('closing_total', 'Clôture comptée'),
          column('closing_book_balance', 'Solde comptable à la clôture'),
          column('closing_difference', 'Écart à la clôture'),
        ],
        rows: figures.sessions.map(({ opening_count: _opening, closing_count: _closing, ...session }) => session),
      },
      {
        name: 'Billetage',
        columns: [
          column('till', 'Caisse', 'text'),
          column('moment', 'Comptage', 'text'),
          ...denominationNames.map((name) =>
            column(name, `${name.startsWith('note') ? 'Billets' : 'Pièces'} de ${denominations[name]}`, 'integer'),
          ),
          column('total', 'Total'),
        ],
        rows: figures.sessions.flatMap((session) => [
          countRow(session.till_code, 'Ouverture', session.opening_count, session.opening_total),
          countRow(session.till_code, 'Clôture', session.closing_count, session.closing_total),
        ]),
      },
    ],
  };
}
