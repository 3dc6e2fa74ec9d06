import test from 'ava';
import type { Knex } from 'knex';
import { postJournalEntry } from '../../activities/events/post-entry';
import { reverseEntries } from '../../activities/events/reverse-entries';
import { inTransaction } from '../../db/transaction';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { memberOf, openSavingsAccount } from '../helpers/loans';
import { depositTo } from '../helpers/savings';
import { openNextYear, smallCooperative, type SmallCooperative } from '../helpers/small-cooperative';
import { fileTeardown } from '../helpers/teardown';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let coop: SmallCooperative;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  coop = await smallCooperative(app, knex, 'JRN');
  await openNextYear(coop);
});

interface NumberedEntry {
  id: string;
  year: string;
  journal: string;
  number: number;
  kind: string | null;
  accounts: string[];
}

/** Every entry of the cooperative with its year, journal, number, kind and accounts, read straight from the tables. */
async function numberedEntries(): Promise<NumberedEntry[]> {
  const rows = await knex('journal_entries as e')
    .join('exercices_comptables as y', 'y.id', 'e.exercice_id')
    .join('journal_entry_numbers as n', 'n.entry_id', 'e.id')
    .leftJoin('business_event_logs as ev', 'ev.id', 'e.event_id')
    .leftJoin('accounting_rule_configs as r', 'r.id', 'e.rule_config_id')
    .where('e.enterprise_id', coop.world.enterpriseId)
    .select(
      'e.id',
      'y.code as year',
      'e.journal_code as journal',
      'n.number',
      knex.raw('coalesce(r.kind, ev.kind) AS kind'),
      knex.raw(
        '(SELECT array_agg(c.code) FROM journal_lines l JOIN company_chart_entries ' +
          'c ON c.id = l.chart_entry_id WHERE l.entry_id = e.id) AS accounts',
      ),
    );
  return rows as NumberedEntry[];
}

/** Per year and journal, the numbers in order: each must be 1, 2, … n. */
function numbersByJournal(entries: readonly NumberedEntry[]): Map<string, number[]> {
  const byJournal = new Map<string, number[]>();
  for (const entry of entries)
    byJournal.set(`${entry.year}/${entry.journal}`, [
      ...(byJournal.get(`${entry.year}/${entry.journal}`) ?? []),
      entry.number,
    ]);
  for (const numbers of byJournal.values()) numbers.sort((a, b) => a - b);
  return byJournal;
}

const counting = (n: number) => Array.from({ length: n }, (_, index) => index + 1);

test(
  'each entry has its year, a journal and a number 1, 2, … n per ' +
    'journal and year; the journal follows from what the entry is',
  async (t) => {
    const entries = await numberedEntries();
    // The rule written out here: automatic kinds to their journals, then class 9 alone HB (the loans' engagements),
    // then cash (57) CAI, else OD.
    const automatic: Record<string, string> = {
      reclassification_doubtful: 'PRV',
      reclassification_overdue: 'PRV',
      provision_charge: 'PRV',
      provision_reversal: 'PRV',
      interest_accrual: 'INT',
    };
    for (const entry of entries) {
      const offBalance = entry.accounts.every((code) => code.startsWith('9')) ? 'HB' : undefined;
      const expected =
        automatic[entry.kind ?? ''] ??
        offBalance ??
        (entry.accounts.some((code) => code.startsWith('57')) ? 'CAI' : 'OD');
      t.is(entry.journal, expected, `${entry.kind ?? 'manual'} on ${entry.accounts.join(', ')}`);
    }
    t.true(
      entries.some((entry) => entry.kind === 'reclassification_doubtful' && entry.journal === 'PRV'),
      'the year-end downgrade is a provisions entry',
    );
    t.true(
      entries.some((entry) => entry.kind === 'loan_disbursement' && entry.journal === 'CAI'),
      'a disbursement in cash is a cash entry',
    );
    t.true(
      entries.some((entry) => entry.kind === 'share_subscription' && entry.journal === 'OD'),
      'a subscription moves no cash',
    );
    for (const [journal, numbers] of numbersByJournal(entries)) t.deepEqual(numbers, counting(numbers.length), journal);
  },
);

test(
  'concurrent deposits take numbers with no gap; a posting rolled ' +
    'back or refused takes none; a reversal stays in its journal',
  async (t) => {
    const { world } = coop;
    const accounts = await Promise.all(
      Array.from({ length: 6 }, async () => openSavingsAccount(world, await memberOf(world), '1000')),
    );
    await Promise.all(
      accounts.flatMap((account) => [depositTo(world, account, '2500'), depositTo(world, account, '700')]),
    );
    const cashIn2027 = () =>
      knex('journal_entry_numbers as n')
        .join('exercices_comptables as y', 'y.id', 'n.exercice_id')
        .where({ 'n.enterprise_id': world.enterpriseId, 'n.journal_code': 'CAI', 'y.code': '2027' })
        .orderBy('n.number')
        .pluck('n.number');
    t.deepEqual(await cashIn2027(), counting(18), 'six openings and twelve deposits of 2027, numbered from 1');

    const till = (amount: number) => [
      { account: '6511', debit: new Money(amount), credit: new Money(0) },
      { account: '5710', debit: new Money(0), credit: new Money(amount) },
    ];
    const draft = {
      enterpriseId: world.enterpriseId,
      branchId: world.headOffice,
      entryDate: '2027-01-05',
      description: 'till',
      createdBy: world.rootId,
    };
    await t.throwsAsync(
      inTransaction(knex, async (trx) => {
        await postJournalEntry(trx, { ...draft, lines: till(100) });
        throw new Error('the caller fails after posting');
      }),
      { message: 'the caller fails after posting' },
    );
    await t.throwsAsync(
      inTransaction(knex, (trx) =>
        postJournalEntry(trx, {
          ...draft,
          lines: [
            { account: '99999', debit: new Money(5), credit: new Money(0) },
            { account: '5710', debit: new Money(0), credit: new Money(5) },
          ],
        }),
      ),
      { code: 'account_unknown' } as never,
    );
    const kept = await inTransaction(knex, (trx) => postJournalEntry(trx, { ...draft, lines: till(200) }));
    await inTransaction(knex, (trx) =>
      reverseEntries(trx, world.rootId, trx('journal_entries').where({ id: kept }).select('id'), 'erreur de saisie'),
    );
    t.deepEqual(await cashIn2027(), counting(20), 'the failed postings left no hole');
    const reversal = await knex('journal_entries as e')
      .join('journal_entry_numbers as n', 'n.entry_id', 'e.id')
      .where({ 'e.reverses_entry_id': kept })
      .first('e.journal_code', 'n.number');
    t.like(reversal, { journal_code: 'CAI', number: 20 });
    t.deepEqual(
      (await numberedEntries())
        .filter((entry) => entry.year === '2026' && entry.journal === 'CAI')
        .map((entry) => entry.number)
        .sort((a, b) => a - b)
        .slice(0, 1),
      [1],
      '2026 kept its own numbers',
    );
  },
);

test(
  'the entry list filters by journal, year and number range; the ' +
    'entry shows its reference; bad filters are refused by name',
  async (t) => {
    const { world } = coop;
    const headers = world.users.direction!.headers;
    const list = (query: string) =>
      app.request('GET', `/api/v1/accounts/journal-entries/?enterprise=${world.enterpriseId}&${query}`, { headers });
    const range = await list('journal=CAI&exercice=2026&number_from=2&number_to=4');
    t.is(range.status, 200, range.text);
    t.deepEqual(range.body.results.map((entry: { number: number }) => entry.number).sort(), [2, 3, 4]);
    t.true(
      range.body.results.every(
        (entry: { journal: string; exercice: string; reference: string; number: number }) =>
          entry.journal === 'CAI' &&
          entry.exercice === '2026' &&
          entry.reference === `CAI-2026-${String(entry.number).padStart(6, '0')}`,
      ),
    );
    const withAccount = await list('journal=CAI&exercice=2026&account=6511&date_from=2026-06-01&date_to=2026-06-30');
    t.deepEqual(
      withAccount.body.results.map((entry: { description: string }) => entry.description),
      ['salaries of June'],
    );

    t.like((await list('number_from=5&number_to=4')).body, { status: 400, errors: [{ field: 'number_to' }] });
    t.like((await list('journal=cai')).body, { status: 400, errors: [{ field: 'journal' }] });
    t.like((await list('number_from=0')).body, { status: 400, errors: [{ field: 'number_from' }] });

    const journals = await app.request('GET', '/api/v1/accounts/journals/', { headers: world.users.cashier!.headers });
    t.deepEqual(
      journals.body.results.map((journal: { code: string }) => journal.code),
      ['AFF', 'AN', 'BQ', 'CAI', 'CLO', 'DAT', 'HB', 'INT', 'OD', 'PRV'],
    );
    t.true(
      journals.body.results
        .find((journal: { code: string }) => journal.code === 'PRV')
        .event_kinds.includes('provision_charge'),
    );
  },
);
