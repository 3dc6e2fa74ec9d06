import test from 'ava';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { createBranch } from '../../activities/enterprise/branches.activity';
import { postJournalEntry, type EntryDraft } from '../../activities/events/post-entry';
import { incomeStatementOf, openingLine } from '../../activities/accounts/financial-statements';
import {
  balanceScopeAt,
  linesInScope,
  totalsInScope,
  type BalanceScope,
} from '../../activities/accounts/year-balances';
import { addDaysTo, parseIsoDate, type IsoDate } from '../../domain/calendar';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { activitySetting } from '../helpers/activity-setting';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { fileTeardown } from '../helpers/teardown';

/**
 * The month totals (ledger_month_totals, docs/architecture.md §4, §9) against the lines they sum: random entries over
 * two years, some of them marked as a closing's or an opening's, read at random dates both ways.
 */
const file = fileTeardown(test);
let knex: Knex;
const seed = Number(process.env.MONTH_TOTALS_SEED ?? 3207);

interface Book {
  enterpriseId: string;
  chartId: string;
  branches: string[];
}
let book: Book;

/**
 * Leaf accounts of the chart for the random entries: balance-sheet, expense, income, and off-balance (posted apart).
 */
async function leaves(enterpriseId: string): Promise<{ onBalance: string[]; offBalance: string[] }> {
  const codes = (accountClass: number, count: number) =>
    knex('company_chart_leaves as leaf')
      .join('company_chart_entries as c', 'c.id', 'leaf.id')
      .where('c.enterprise_id', enterpriseId)
      .where('c.class', accountClass)
      .where('c.is_active', true)
      .orderBy('c.code')
      .limit(count)
      .pluck('c.code');
  const [one, five, six, seven, nine] = await Promise.all([
    codes(1, 2),
    codes(5, 2),
    codes(6, 2),
    codes(7, 2),
    codes(9, 2),
  ]);
  return { onBalance: [...one, ...five, ...six, ...seven], offBalance: nine };
}

const entryArbitrary = (accounts: { onBalance: string[]; offBalance: string[] }) =>
  fc
    .record({
      day: fc.integer({ min: 0, max: 729 }),
      branch: fc.integer({ min: 0, max: 2 }),
      offBalance: fc.integer({ min: 0, max: 9 }).map((draw) => draw === 0),
      pair: fc.tuple(fc.nat(), fc.nat()),
      amount: fc.bigInt({ min: 1n, max: 10_000_000n }),
      reverse: fc.integer({ min: 0, max: 9 }),
      mark: fc.constantFrom('none', 'none', 'none', 'closing', 'opening'),
    })
    .map((entry) => {
      const codes = entry.offBalance ? accounts.offBalance : accounts.onBalance;
      const debit = codes[entry.pair[0] % codes.length]!;
      const others = codes.filter((code) => code !== debit);
      return { ...entry, debit, credit: others[entry.pair[1] % others.length]! };
    });

type RandomEntry = ReturnType<typeof entryArbitrary> extends fc.Arbitrary<infer T> ? T : never;

const dayOf = (offset: number): IsoDate => addDaysTo(parseIsoDate('2026-01-01'), offset);

const branchOf = (entry: RandomEntry) => (entry.branch === 2 ? null : book.branches[entry.branch]!);

/** An entry's draft: its debit and credit accounts, or the other way round for its reversal. */
function draftOf(entry: RandomEntry, reverses?: string): EntryDraft {
  const amount = new Money(entry.amount.toString());
  const [debit, credit] = reverses === undefined ? [entry.debit, entry.credit] : [entry.credit, entry.debit];
  return {
    enterpriseId: book.enterpriseId,
    branchId: branchOf(entry),
    entryDate: dayOf(entry.day),
    description: 'random',
    createdBy: null,
    reversesEntryId: reverses,
    lines: [
      { account: debit, debit: amount, credit: new Money(0) },
      { account: credit, debit: new Money(0), credit: amount },
    ],
  };
}

/** Posts the entries (a tenth reversing an earlier one on its own date) and marks some as a closing step's entries. */
async function post(entries: readonly RandomEntry[], closingId: string): Promise<void> {
  const posted: { id: string; entry: RandomEntry }[] = [];
  for (const entry of entries) {
    // An entry is reversed once at most: taken out of those to reverse.
    const earlier =
      entry.reverse === 0 && posted.length > 0 ? posted.splice(entry.day % posted.length, 1)[0] : undefined;
    const id = await inTransaction(knex, (trx) =>
      postJournalEntry(trx, earlier === undefined ? draftOf(entry) : draftOf(earlier.entry, earlier.id)),
    );
    if (earlier === undefined) posted.push({ id, entry });
    if (earlier === undefined && entry.mark !== 'none')
      await knex('exercice_closing_entries').insert({
        enterprise_id: book.enterpriseId,
        closing_id: closingId,
        step: entry.mark,
        entry_id: id,
      });
  }
}

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  const { context, actor, newEnterprise } = await activitySetting(knex, testClock);
  const enterpriseId = await newEnterprise('MT');
  const headOffice = await knex('branches').where({ enterprise_id: enterpriseId }).first('id');
  const other = await createBranch(context, actor, enterpriseId, {
    code: 'B2',
    name: 'B2',
    isHeadOffice: false,
    address: '',
    city: '',
    phone: '',
  });
  const chart = await knex('company_charts').where({ enterprise_id: enterpriseId }).first('id');
  book = { enterpriseId, chartId: chart.id, branches: [headOffice.id, other.id] };
  for (const year of ['2026', '2027']) {
    await knex('exercices_comptables')
      .insert({ enterprise_id: enterpriseId, code: year, start_date: `${year}-01-01`, end_date: `${year}-12-31` })
      .onConflict(['enterprise_id', 'code'])
      .ignore();
  }
  const years = await knex('exercices_comptables')
    .where({ enterprise_id: enterpriseId })
    .orderBy('start_date')
    .pluck('id');
  // A closing still running: its entries are marked (the reports tell them apart) but it carries nothing yet.
  const [closing] = await knex('exercice_closings')
    .insert({ enterprise_id: enterpriseId, exercice_id: years[0], next_exercice_id: years[1] })
    .returning('id');
  const entries = fc.sample(fc.array(entryArbitrary(await leaves(enterpriseId)), { minLength: 300, maxLength: 300 }), {
    seed,
    numRuns: 1,
  })[0]!;
  await post(entries, closing.id);
});

/**
 * Sums per branch and account of a read, keyed as text: each account's opening and movements as the trial balance
 * splits them at `split`.
 */
async function sums(
  source: (scope: BalanceScope, split: IsoDate) => Knex.QueryBuilder,
  scope: BalanceScope,
  split: IsoDate,
): Promise<Record<string, string>> {
  const opening = openingLine(knex, scope, split);
  const rows: { key: string; opening: string; debit: string; credit: string }[] = await source(scope, split)
    .groupBy('s.branch_id', 'c.code')
    .select(
      knex.raw(`coalesce(s.branch_id::text, '-') || ' ' || c.code AS key`),
      knex.raw('sum(CASE WHEN ? THEN s.debit - s.credit ELSE 0 END)::text AS opening', [opening]),
      knex.raw('sum(CASE WHEN ? THEN 0 ELSE s.debit END)::text AS debit', [opening]),
      knex.raw('sum(CASE WHEN ? THEN 0 ELSE s.credit END)::text AS credit', [opening]),
    );
  return Object.fromEntries(
    rows
      .filter((row) => !(row.opening === '0' && row.debit === '0' && row.credit === '0'))
      .map((row) => [row.key, `${row.opening} ${row.debit} ${row.credit}`]),
  );
}

test(
  'the month totals equal the lines: the check finds no gap, and finds a line changed behind the ' + 'triggers',
  async (t) => {
    t.deepEqual(
      await knex.raw('SELECT * FROM coopbank_month_total_gaps(?)', [book.enterpriseId]).then((result) => result.rows),
      [],
    );
    const lines = await knex('ledger_month_totals')
      .where({ enterprise_id: book.enterpriseId })
      .sum('line_count as count')
      .first();
    t.is(
      Number(lines?.count),
      Number(
        (
          await knex('journal_lines as l')
            .join('journal_entries as e', 'e.id', 'l.entry_id')
            .where('e.enterprise_id', book.enterpriseId)
            .count('* as count')
            .first()
        )?.count,
      ),
    );
    await t.throwsAsync(
      inTransaction(knex, async (trx) => {
        await trx.raw('SET LOCAL session_replication_role = replica');
        const line = await trx('journal_lines as l')
          .join('journal_entries as e', 'e.id', 'l.entry_id')
          .where('e.enterprise_id', book.enterpriseId)
          .where('l.debit', '>', 0)
          .first('l.id', 'l.debit');
        await trx('journal_lines')
          .where({ id: line.id })
          .update({ debit: trx.raw('debit + 1') });
        const gaps = await trx.raw('SELECT * FROM coopbank_month_total_gaps(?)', [book.enterpriseId]);
        t.is(gaps.rows.length, 1, 'one gap: the changed line’s month, branch and account');
        t.is(new Money(gaps.rows[0].line_debit).minus(gaps.rows[0].kept_debit).toString(), '1');
        throw new Error('rolled back');
      }),
      { message: 'rolled back' },
    );
  },
);

test(
  'balances, openings and movements at random dates are the same read from the month totals as from ' + 'the lines',
  async (t) => {
    const dates = fc.tuple(
      fc.integer({ min: 0, max: 729 }),
      fc.integer({ min: 0, max: 729 }),
      fc.constantFrom<'all' | 0 | 1>('all', 0, 1),
    );
    await fc.assert(
      fc.asyncProperty(dates, async ([upTo, from, branch]) => {
        const date = dayOf(Math.max(upTo, from));
        const branches = branch === 'all' ? 'all' : [book.branches[branch]!];
        const { scope } = await balanceScopeAt(knex, book.enterpriseId, date, branches);
        const split = dayOf(Math.min(upTo, from));
        const [fromTotals, fromLines] = await Promise.all([
          sums((s, at) => totalsInScope(knex, s, at), scope, split),
          sums((s) => linesInScope(knex, s), scope, split),
        ]);
        t.deepEqual(fromTotals, fromLines, `at ${date}, movements from ${split}, branches ${String(branch)}`);
      }),
      { seed, numRuns: 60 },
    );
  },
);

test(
  'the income statement between random dates equals the lines of classes 6 and 7, closing entries ' + 'left out',
  async (t) => {
    const period = fc
      .tuple(fc.integer({ min: 0, max: 729 }), fc.integer({ min: 0, max: 729 }))
      .map(([a, b]) => ({ from: dayOf(Math.min(a, b)), to: dayOf(Math.max(a, b)) }));
    await fc.assert(
      fc.asyncProperty(period, async ({ from, to }) => {
        const answer = await incomeStatementOf(
          knex,
          { enterpriseId: book.enterpriseId, chartId: book.chartId, branch: null, branches: 'all' },
          { from, to },
        );
        const expected = await knex('journal_lines as l')
          .join('journal_entries as e', 'e.id', 'l.entry_id')
          .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
          .where('e.enterprise_id', book.enterpriseId)
          .whereBetween('e.entry_date', [from, to])
          .whereIn('c.class', [6, 7])
          .whereNotExists((closing) =>
            closing
              .select(1)
              .from('exercice_closing_entries as x')
              .where('x.step', 'closing')
              .whereRaw('x.entry_id IN (e.id, e.reverses_entry_id)'),
          )
          .first(
            knex.raw(`coalesce(sum(l.credit - l.debit), 0)::text AS result`),
            knex.raw(`coalesce(sum(l.debit - l.credit) FILTER (WHERE c.class = 6), 0)::text AS expenses`),
          );
        t.true(
          new Money(answer.totals.result).eq(expected.result),
          `result ${from} to ${to}: ${answer.totals.result} vs ${expected.result}`,
        );
        t.true(new Money(answer.totals.expenses).eq(expected.expenses), `expenses ${from} to ${to}`);
      }),
      { seed, numRuns: 40 },
    );
  },
);
