import test from 'ava';
import { csvChunks } from '../../domain/accounts/report-csv';
import {
  generalLedgerAnswer,
  generalLedgerDocument,
  generalLedgerRows,
  type LedgerAccount,
  type LedgerMovement,
} from '../../domain/accounts/general-ledger';
import { Money } from '../../domain/money';

const movement = (entryDate: string, debit: number, credit: number, number: string): LedgerMovement => ({
  entry_date: entryDate,
  journal: number.slice(0, number.indexOf('-')),
  number,
  branch: 'HQ',
  description: `line ${number}`,
  debit: String(debit),
  credit: String(credit),
});

const account = (code: string, opening: number): LedgerAccount => ({
  id: `id-${code}`,
  code,
  label: `Compte ${code}`,
  opening: new Money(opening),
});

async function* streamOf(movements: readonly LedgerMovement[], pulled: { count: number } = { count: 0 }) {
  for (const line of movements) {
    pulled.count += 1;
    yield line;
  }
}

/** Each account's movements by code, as the activity reads them account by account. */
const byAccount = (movements: Record<string, LedgerMovement[]>) => (of: LedgerAccount) =>
  streamOf(movements[of.code] ?? []);

test(
  'accounts come in code order (as text), each with its opening, its running balances and its closing; totals ' +
    'by side',
  async (t) => {
    const accounts = [account('5710', 600_000), account('10000', -1_000_000), account('56090', 0)];
    const movements = {
      56090: [movement('2026-03-05', 0, 2_500, 'OD-2026-000001')],
      5710: [
        movement('2026-03-10', 100_000, 0, 'BQ-2026-000002'),
        movement('2026-03-20', 300_000, 0, 'CAI-2026-000002'),
      ],
    };
    const answer = await generalLedgerAnswer(generalLedgerRows(accounts, byAccount(movements)));
    // By hand: 56090 has no opening (0 − 2500); the vault 600 000 + 100 000 + 300 000; the capital does not move.
    t.deepEqual(
      answer.accounts.map((line) => [
        line.account,
        line.opening_balance,
        line.movements.map((moved) => moved.balance),
        line.closing_balance,
      ]),
      [
        ['10000', '-1000000', [], '-1000000'],
        ['56090', '0', ['-2500'], '-2500'],
        ['5710', '600000', ['700000', '1000000'], '1000000'],
      ],
    );
    t.deepEqual(answer.totals, {
      opening_debit: '600000',
      opening_credit: '1000000',
      movement_debit: '400000',
      movement_credit: '2500',
      closing_debit: '1000000',
      closing_credit: '1002500',
    });
  },
);

test(
  'the rows come as the movements do: the first movement ' + "is out before the account's stream is read further",
  async (t) => {
    const pulled = { count: 0 };
    const many = Array.from({ length: 10_000 }, (_, index) =>
      movement('2026-03-01', 1, 0, `CAI-2026-${String(index + 1).padStart(6, '0')}`),
    );
    const rows = generalLedgerRows([account('5710', 0)], () => streamOf(many, pulled))[Symbol.asyncIterator]();
    t.is((await rows.next()).value?.kind, 'opening');
    t.is((await rows.next()).value?.kind, 'movement');
    t.true(pulled.count <= 1, `pulled ${pulled.count} movements for two rows`);
  },
);

test(
  'the ledger document can be written more than once (the pack writes its figures, CSV and XLSX) and ends with ' +
    'the grand total',
  async (t) => {
    const movements = {
      5710: [
        movement('2026-03-10', 100_000, 0, 'BQ-2026-000002'),
        movement('2026-03-12', 0, 40_000, 'CAI-2026-000003'),
      ],
    };
    const document = generalLedgerDocument(
      {
        enterprise: { code: 'GL', name: 'Coop' },
        generatedAt: '2026-04-01T08:00:00.000Z',
        period: { from: '2026-03-01', to: '2026-03-31' },
      },
      () => generalLedgerRows([{ ...account('5710', 5_000), label: 'Caisse' }], byAccount(movements)),
    );
    const csv = async () => {
      let all = '';
      for await (const chunk of csvChunks(document)) all += chunk;
      return all;
    };
    const first = await csv();
    t.is(await csv(), first);
    t.true(
      first.includes('\r\n5710;Caisse;2026-03-12;CAI;CAI-2026-000003;HQ;line CAI-2026-000003;0;40000;65000\r\n'),
      '5000 + 100000 − 40000',
    );
    t.true(first.includes('\r\n5710;Caisse;;;;;Total du compte et solde de clôture;100000;40000;65000\r\n'));
    t.true(first.endsWith('\r\n;;;;;;Total général des mouvements;100000;40000;\r\n'));
  },
);
