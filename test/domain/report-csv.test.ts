import test from 'ava';
import { csvCell, csvChunks, csvField } from '../../domain/accounts/report-csv';
import type { ReportDocument } from '../../domain/accounts/report-document';

const text = async (document: ReportDocument) => {
  let all = '';
  for await (const chunk of csvChunks(document)) all += chunk;
  return all;
};

const document = (rows: Record<string, string | null>[]): ReportDocument => ({
  title: 'Bilan',
  enterprise: { code: 'COOP', name: 'Coopérative d’Épargne; Douala' },
  asOf: '2026-11-30',
  generatedAt: '2026-12-01T08:00:00.000Z',
  sheets: [
    {
      name: 'Actif',
      columns: [
        { key: 'label', title: 'Libellé', kind: 'text' },
        { key: 'amount', title: 'Montant', kind: 'money' },
      ],
      rows,
    },
  ],
});

test('RFC 4180 quoting: separator, quotes and line breaks quoted, quotes doubled; plain text as is', (t) => {
  t.is(csvField('Caisse'), 'Caisse');
  t.is(csvField('a;b'), '"a;b"');
  t.is(csvField('dit "oui"'), '"dit ""oui"""');
  t.is(csvField('ligne\r\nsuivante'), '"ligne\r\nsuivante"');
  t.is(csvField('a,b'), 'a,b', 'the comma is no separator in the French dialect');
});

test('formula injection neutralised in text cells only; money stays a number, checked', (t) => {
  for (const start of ['=', '+', '-', '@', '\t', '\r'])
    t.is(csvCell(`${start}1+1`, 'text').replace(/^"/, '').slice(0, 2), `'${start}`);
  for (const start of ['＝', '＋', '－', '＠', '﹦', '﹢', '﹣', '﹫'])
    t.is(csvCell(`${start}1+1`, 'text'), `'${start}1+1`, `full-width ${start} starts a formula too`);
  t.is(csvCell('=HYPERLINK("http://x";"clic")', 'text'), '"\'=HYPERLINK(""http://x"";""clic"")"');
  t.is(csvCell('-1500', 'money'), '-1500');
  t.is(csvCell('0.1534', 'ratio'), '0.1534');
  t.is(csvCell(null, 'money'), '');
  t.is(csvCell('2026-11-30', 'date'), '2026-11-30');
  t.throws(() => csvCell('=1+1', 'money'), { message: /decimal string/ });
  t.throws(() => csvCell('1e5', 'money'));
  t.throws(() => csvCell('1.5', 'integer'));
  t.throws(() => csvCell('30/11/2026', 'date'));
});

test(
  'a document: BOM, header block, the sheet with its ' + 'titles and rows, CRLF; money never through a JS number',
  async (t) => {
    const csv = await text(
      document([
        { label: 'Caisse', amount: '123456789012345678' },
        { label: '=cmd', amount: '-1500' },
        { label: 'Vide', amount: null },
      ]),
    );
    t.true(csv.startsWith('\uFEFFRapport;Bilan\r\n'));
    t.is(
      csv,
      [
        '\uFEFFRapport;Bilan',
        'Entreprise;COOP;"Coopérative d’Épargne; Douala"',
        'Date;2026-11-30',
        'Agence;Consolidé',
        'Généré le;2026-12-01T08:00:00.000Z',
        '',
        'Actif',
        'Libellé;Montant',
        'Caisse;123456789012345678',
        "'=cmd;-1500",
        'Vide;',
        '',
      ].join('\r\n'),
    );
  },
);

test('large documents stream: the first chunk leaves long before the last row is produced', async (t) => {
  let produced = 0;
  const rowsTotal = 200_000;
  async function* rows() {
    for (let index = 0; index < rowsTotal; index += 1) {
      produced += 1;
      yield { label: `Compte ${index}`, amount: String(index * 1000) };
    }
  }
  let producedAtFirstChunk = -1;
  let characters = 0;
  let chunksMax = 0;
  for await (const chunk of csvChunks({ ...document([]), sheets: [{ ...document([]).sheets[0]!, rows: rows() }] })) {
    if (producedAtFirstChunk < 0 && characters > 0) producedAtFirstChunk = produced;
    characters += chunk.length;
    chunksMax = Math.max(chunksMax, chunk.length);
  }
  t.is(produced, rowsTotal);
  t.true(
    producedAtFirstChunk >= 0 && producedAtFirstChunk < 5_000,
    `first rows left after ${producedAtFirstChunk} rows`,
  );
  t.true(chunksMax < 70 * 1024, 'no chunk holds more than about 64 KiB: memory bounded by the chunk, not the document');
  t.true(characters > 4_000_000);
});
