import type { Knex } from 'knex';
import { doubtfulAccounts, provisionAccounts } from '../../domain/loans/doubtful-accounts';
import { Money } from '../../domain/money';
import { testClock } from '../helpers/clock';
import type { LoanWorld } from '../helpers/loans';
import { capitalBooks } from '../helpers/shares';

/**
 * What an auditor checks after every operation of a random sequence: each found breach is a sentence, and an
 * empty list means the books tie out. Everything is read from the database and the API as they are.
 */
export async function booksBreaches(world: LoanWorld, posted: Map<string, string>): Promise<string[]> {
  const checks = await Promise.all([
    unbalancedEntries(world),
    changedPostings(world, posted),
    reconciliationGaps(world),
    portfolioGaps(world),
    capitalGaps(world),
    statementGaps(world),
    liaisonGaps(world),
    monthTotalGaps(world),
  ]);
  return checks.flat();
}

/** Every entry balances (the database refuses otherwise at commit: this proves the refusal held). */
export async function unbalancedEntries({
  knex,
  enterpriseId,
}: Pick<LoanWorld, 'knex' | 'enterpriseId'>): Promise<string[]> {
  const rows: { id: string }[] = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where('e.enterprise_id', enterpriseId)
    .groupBy('e.id')
    .havingRaw('sum(l.debit) <> sum(l.credit)')
    .select('e.id');
  return rows.map((row) => `entry ${row.id} does not balance`);
}

/**
 * The month totals the reports read (ledger_month_totals) equal the sums of the lines, per year, month, branch and
 * account.
 */
async function monthTotalGaps({ knex, enterpriseId }: Pick<LoanWorld, 'knex' | 'enterpriseId'>): Promise<string[]> {
  const { rows } = await knex.raw('SELECT * FROM coopbank_month_total_gaps(?)', [enterpriseId]);
  return (rows as Record<string, unknown>[]).map(
    (row) =>
      `month total of ${String(row.chart_entry_id)} in ${String(row.month)} ` +
      `differs from its lines: ${JSON.stringify(row)}`,
  );
}

/**
 * No posted line changed or vanished since the previous check; the lines posted since are added to `posted`
 * (id → account, debit, credit), so the next check covers them too.
 */
async function changedPostings({ knex, enterpriseId }: LoanWorld, posted: Map<string, string>): Promise<string[]> {
  const rows: { id: string; line: string }[] = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where('e.enterprise_id', enterpriseId)
    .select('l.id', knex.raw(`concat_ws(' ', l.chart_entry_id, l.debit, l.credit) AS line`));
  const now = new Map(rows.map((row) => [row.id, row.line]));
  const breaches = [...posted]
    .filter(([id, line]) => now.get(id) !== line)
    .map(([id]) => `posted line ${id} changed or vanished`);
  for (const [id, line] of now) posted.set(id, line);
  return breaches;
}

/**
 * The statements at the business date balance: the balance sheet's assets equal its liabilities (the period's
 * result included), consolidated and for each branch, and the trial balance's debits equal its credits.
 */
async function statementGaps(world: LoanWorld): Promise<string[]> {
  const { knex, enterpriseId } = world;
  const chart = await knex('company_charts').where({ enterprise_id: enterpriseId }).first('id');
  // The business date in force: the one set, or the tests' today in the enterprise's time zone (domain/calendar.ts).
  const today = knex.raw(
    `to_char(COALESCE(business_date, (?::timestamptz AT TIME ZONE time_zone)::date), 'YYYY-MM-DD') AS business_date`,
    [testClock().toISOString()],
  );
  const { business_date: date } = await knex('enterprise_configurations')
    .where({ enterprise_id: enterpriseId })
    .first(today);
  const headers = world.users.direction!.headers;
  const scopes = [
    ['consolidated', ''],
    ['head office', `&branch=${world.headOffice}`],
    ['other branch', `&branch=${world.otherBranch}`],
  ];
  const answers = await Promise.all([
    ...scopes.map(([name, branch]) =>
      world.app
        .request('GET', `/api/v1/accounts/charts/${chart.id}/balance-sheet/?date=${date}${branch}`, { headers })
        .then((answer) => ({ name: `${name} balance sheet`, answer })),
    ),
    world.app
      .request('GET', `/api/v1/accounts/charts/${chart.id}/trial-balance/?date=${date}`, { headers })
      .then((answer) => ({ name: 'trial balance', answer })),
  ]);
  const breaches = answers.flatMap(({ name, answer }) => {
    if (answer.status !== 200) return [`${name} answered ${answer.status}`];
    return answer.body.totals.balanced === true
      ? []
      : [`${name} does not balance: ${JSON.stringify(answer.body.totals)}`];
  });
  return answers[0]!.answer.status === 200
    ? [...breaches, ...(await sheetOutsideGaps(world, date, answers[0]!.answer.body))]
    : breaches;
}

type SheetLine = { code: string; accounts: { account: string; amount: string }[] };

/**
 * The consolidated balance sheet at `date` against the outside sum of every entry up to that date, whatever its
 * accounting year: each balance-sheet account as it stands, and the income and expenses of every year not closed
 * (the model closes none) as the result lines, pending (P4) and of the period (P5).
 */
async function sheetOutsideGaps(
  { knex, enterpriseId }: LoanWorld,
  date: string,
  sheet: { assets: SheetLine[]; liabilities: SheetLine[] },
): Promise<string[]> {
  const rows: { code: string; class: number; balance: string }[] = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('e.enterprise_id', enterpriseId)
    .where('e.entry_date', '<=', date)
    .groupBy('c.code', 'c.class')
    .select('c.code', 'c.class', knex.raw('sum(l.debit - l.credit)::text AS balance'));
  // As the sheet counts them: debit minus credit on the assets side, credit minus debit on the liabilities side.
  const sheetAccounts = new Map<string, Money>();
  for (const [lines, sign] of [
    [sheet.assets, 1],
    [sheet.liabilities, -1],
  ] as const) {
    for (const line of lines.filter((each) => !['P4', 'P5'].includes(each.code))) {
      for (const { account, amount } of line.accounts)
        sheetAccounts.set(account, (sheetAccounts.get(account) ?? new Money(0)).plus(new Money(amount).times(sign)));
    }
  }
  const breaches = rows
    .filter((row) => row.class <= 5 && !new Money(row.balance).eq(sheetAccounts.get(row.code) ?? 0))
    .map((row) => {
      const inTheSheet = (sheetAccounts.get(row.code) ?? new Money(0)).toFixed(0);
      return `${row.code} at ${date}: ${row.balance} in the entries, ${inTheSheet} in the balance sheet`;
    });
  const outsideResult = rows.filter((row) => row.class >= 6).reduce((sum, row) => sum.minus(row.balance), new Money(0));
  const sheetResult = sheet.liabilities
    .filter((line) => ['P4', 'P5'].includes(line.code))
    .flatMap((line) => line.accounts)
    .reduce((sum, account) => sum.plus(account.amount), new Money(0));
  if (!outsideResult.eq(sheetResult))
    breaches.push(
      `result at ${date}: ${outsideResult.toFixed(0)} in the entries, ${sheetResult.toFixed(0)} in the balance sheet`,
    );
  return breaches;
}

/** Each member account's balance equals its deposit account's lines for it (the API's own reconciliation). */
async function reconciliationGaps(world: LoanWorld): Promise<string[]> {
  const response = await world.app.request('GET', `/api/v1/members/reconciliation/?enterprise=${world.enterpriseId}`, {
    headers: world.users.direction!.headers,
  });
  if (response.status !== 200) return [`reconciliation answered ${response.status}`];
  return (response.body.results as { number: string; balance: string; ledger_balance: string }[]).map(
    (gap) => `account ${gap.number}: balance ${gap.balance}, ledger ${gap.ledger_balance}`,
  );
}

/**
 * The loans' outstanding principal equals the account holding it (3221, 3312, and each doubtful account of a cover:
 * 3332, 3342, 3352); their provisions equal each provision account (39100, 3921–3924, 3931–3933).
 */
export async function portfolioGaps({
  knex,
  enterpriseId,
}: Pick<LoanWorld, 'knex' | 'enterpriseId'>): Promise<string[]> {
  const loans = () => knex('loans').where({ enterprise_id: enterpriseId }).whereIn('status', ['active', 'closed']);
  const principal: { account: string; amount: string }[] = await loans()
    .groupByRaw(`1`)
    .select(
      knex.raw(
        `CASE classification WHEN 'performing' THEN '3221' WHEN 'overdue' THEN '3312'
              ELSE doubtful_account_code END AS account`,
      ),
      knex.raw('sum(outstanding_principal)::text AS amount'),
    );
  const provisions: { account: string; amount: string }[] = await loans()
    .where('provision_amount', '>', 0)
    .groupBy('provision_account_code')
    .select('provision_account_code AS account', knex.raw('sum(provision_amount)::text AS amount'));
  const heldBy = (rows: { account: string; amount: string }[], code: string) =>
    new Money(rows.find((row) => row.account === code)?.amount ?? 0);
  const ledger = await balancesOf(knex, enterpriseId, ['3221', '3312', ...doubtfulAccounts, ...provisionAccounts]);
  const breaches = ['3221', '3312', ...doubtfulAccounts].flatMap((code) =>
    heldBy(principal, code).eq(ledger.get(code)!)
      ? []
      : [`principal ${heldBy(principal, code).toFixed(0)} but ${code} holds ${ledger.get(code)!.toFixed(0)}`],
  );
  for (const code of provisionAccounts) {
    if (!heldBy(provisions, code).negated().eq(ledger.get(code)!))
      breaches.push(
        `provisions ${heldBy(provisions, code).toFixed(0)} but ${code} holds ${ledger.get(code)!.toFixed(0)}`,
      );
  }
  return breaches;
}

/**
 * The capital register (paid, unpaid, what members owe, what is owed to members leaving) equals 1000x, 1001x, 4411 and
 * 4417.
 */
async function capitalGaps(world: LoanWorld): Promise<string[]> {
  const books = await capitalBooks(world);
  return (['paid', 'unpaid', 'members', 'refunds'] as const)
    .filter((side) => books.ledger[side] !== books.register[side])
    .map((side) => `capital ${side}: ledger ${books.ledger[side]}, register ${books.register[side]}`);
}

/**
 * Issue 29: the liaison between branches nets to zero consolidated (45200 over every branch), and each branch's
 * 45200 is the liaison movements noted for it, which the liaison report reads.
 */
async function liaisonGaps({ knex, enterpriseId }: LoanWorld): Promise<string[]> {
  const lines = () =>
    knex('journal_lines as l')
      .join('journal_entries as e', 'e.id', 'l.entry_id')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .where({ 'e.enterprise_id': enterpriseId, 'c.code': '45200' })
      .select(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  const [total] = await lines();
  const breaches = new Money(total.balance).isZero()
    ? []
    : [`45200 consolidated holds ${new Money(total.balance).toFixed(0)}, not zero`];
  // Per branch, the operations' own postings (events) against what the liaison noted: an accountant's manual entry may
  // also use 45200 between branches, balanced in itself, and is no liaison movement.
  const ledger: { branch_id: string; balance: string }[] = await lines()
    .whereNotNull('e.event_id')
    .groupBy('e.branch_id')
    .select('e.branch_id');
  const noted: { branch_id: string; balance: string }[] = await knex('liaison_movements')
    .where({ enterprise_id: enterpriseId })
    .groupBy('branch_id')
    .select('branch_id', knex.raw('sum(amount)::text AS balance'));
  const notedOf = (branchId: string) => new Money(noted.find((row) => row.branch_id === branchId)?.balance ?? 0);
  for (const row of ledger)
    if (!notedOf(row.branch_id).eq(row.balance))
      breaches.push(
        `45200 of branch ${row.branch_id}: ${row.balance} in the ledger, ${notedOf(row.branch_id).toFixed(0)} noted`,
      );
  return breaches;
}

/** Debit − credit of each code over the enterprise's ledger (0 for an account without lines). */
async function balancesOf(knex: Knex, enterpriseId: string, codes: readonly string[]): Promise<Map<string, Money>> {
  const rows: { code: string; balance: string }[] = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('e.enterprise_id', enterpriseId)
    .whereIn('c.code', codes)
    .groupBy('c.code')
    .select('c.code', knex.raw('sum(l.debit - l.credit)::text AS balance'));
  return new Map(codes.map((code) => [code, new Money(rows.find((row) => row.code === code)?.balance ?? 0)]));
}

/** Rows that a refused operation must not add: events, entries, repayments, subscriptions. */
export async function footprint({ knex, enterpriseId }: LoanWorld): Promise<string> {
  const counts = await Promise.all(
    ['business_event_logs', 'journal_entries', 'loan_repayments', 'share_subscriptions', 'loan_applications'].map(
      async (table) => {
        const row = await knex(table).where({ enterprise_id: enterpriseId }).count({ n: '*' }).first();
        return `${table}=${String(row?.n)}`;
      },
    ),
  );
  return counts.join(' ');
}
