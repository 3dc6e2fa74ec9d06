import test from 'ava';
import type { Knex } from 'knex';
import { businessDateOf, businessDateSql } from '../../activities/enterprise/configuration.activity';
import { defaultRoleAccounts } from '../../activities/events/default-rules';
import { recordBusinessEvent } from '../../activities/events/record-business-event';
import { moveCash } from '../../activities/members/cash-operations.activity';
import { effectiveBusinessDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { linesForEvent } from '../../domain/events/journal';
import type { RoleAccounts, RuleLeg } from '../../domain/events/rules';
import { Money } from '../../domain/money';
import { assertAboveMinimum } from '../../domain/members/overdraft';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import {
  approvedLoan,
  confirmedGuarantee,
  createLoanWorld,
  memberOf,
  openSavingsAccount,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { testClock } from '../helpers/clock';

/**
 * Rules written twice, in TypeScript and in the SQL of db/sql, run on the same table of cases through both: each
 * case in a transaction rolled back, so the cases do not see each other. (The choice of an entry's journal has no
 * TypeScript twin: coopbank_post_entry alone makes it; its table of cases runs through that alone, last.)
 */

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'TWN');
});

/** `work` in a transaction that is always rolled back: what it answers, or the error it threw. */
async function rolledBack<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const trx = await knex.transaction();
  try {
    return await work(trx);
  } finally {
    await trx.rollback();
  }
}

/** The accounting year of `date`, opened in `trx` when the enterprise has none. */
async function yearOf(trx: Knex.Transaction, date: string): Promise<void> {
  const year = date.slice(0, 4);
  await trx('exercices_comptables')
    .insert({ enterprise_id: world.enterpriseId, code: year, start_date: `${year}-01-01`, end_date: `${year}-12-31` })
    .onConflict(['enterprise_id', 'code'])
    .ignore();
}

const depositEvent = (amount: Money, key: string) => ({
  enterpriseId: world.enterpriseId,
  branchId: world.headOffice,
  kind: 'deposit' as const,
  amount,
  payload: {},
  idempotencyKey: key,
  actorId: world.rootId,
});

// (a) The business date: effectiveBusinessDate (domain/calendar.ts), businessDateSql (its SQL for reads) and
// coopbank_record_event's date of an event.
const businessDateCases: { now: string; businessDate: string | null; timeZone: string; expected: string }[] = [
  { now: '2026-03-10T22:59:59Z', businessDate: null, timeZone: 'Africa/Douala', expected: '2026-03-10' },
  { now: '2026-03-10T23:00:00Z', businessDate: null, timeZone: 'Africa/Douala', expected: '2026-03-11' },
  { now: '2026-12-31T23:59:59.999Z', businessDate: null, timeZone: 'UTC', expected: '2026-12-31' },
  { now: '2026-12-31T10:00:00Z', businessDate: null, timeZone: 'Pacific/Kiritimati', expected: '2027-01-01' },
  { now: '2026-03-08T07:59:00Z', businessDate: null, timeZone: 'America/Los_Angeles', expected: '2026-03-07' },
  { now: '2026-11-01T07:30:00Z', businessDate: null, timeZone: 'America/Los_Angeles', expected: '2026-11-01' },
  { now: '2026-06-30T18:29:59Z', businessDate: null, timeZone: 'Asia/Kolkata', expected: '2026-06-30' },
  { now: '2026-06-30T18:30:00Z', businessDate: null, timeZone: 'Asia/Kolkata', expected: '2026-07-01' },
  { now: '2026-05-10T12:00:00Z', businessDate: '2026-05-04', timeZone: 'Africa/Douala', expected: '2026-05-04' },
  { now: '2026-04-30T23:30:00Z', businessDate: '2026-05-04', timeZone: 'Pacific/Kiritimati', expected: '2026-05-04' },
];

test(
  'the business date: effectiveBusinessDate, businessDateSql ' + 'and coopbank_record_event agree on every case',
  async (t) => {
    for (const [index, { now, businessDate, timeZone, expected }] of businessDateCases.entries()) {
      const at = new Date(now);
      const sql = await rolledBack(async (trx) => {
        await trx('enterprise_configurations')
          .where({ enterprise_id: world.enterpriseId })
          .update({ business_date: businessDate, time_zone: timeZone });
        await yearOf(trx, expected);
        const read = await trx('enterprise_configurations as c')
          .where('c.enterprise_id', world.enterpriseId)
          .first(trx.raw('? AS date', [businessDateSql(trx, 'c', at)]));
        const recorded = await recordBusinessEvent(trx, at, depositEvent(new Money(1000), `twin:date:${index}`));
        return {
          read: read.date as string,
          recorded: recorded.businessDate,
          activity: await businessDateOf(trx, world.enterpriseId, at),
        };
      });
      const ts = effectiveBusinessDate({ businessDate, timeZone }, at);
      t.is(ts, expected, `${now} ${timeZone} ${businessDate}`);
      t.deepEqual(sql, { read: ts, recorded: ts, activity: ts }, `${now} ${timeZone} ${businessDate}`);
    }
  },
);

// (b) The overdraft rule: assertAboveMinimum (domain/members/overdraft.ts) and coopbank_move_cash's withdrawal.
// Amounts in whole francs: XAF has no decimals, and the balances' columns keep none.
const overdraftCases: { balance: string; minimum: string; held: string; amount: string; allowed: boolean }[] = [
  { balance: '100000', minimum: '0', held: '0', amount: '100000', allowed: true },
  { balance: '100000', minimum: '0', held: '0', amount: '100001', allowed: false },
  { balance: '100000', minimum: '5000', held: '0', amount: '95000', allowed: true },
  { balance: '100000', minimum: '5000', held: '0', amount: '95001', allowed: false },
  { balance: '100000', minimum: '5000', held: '30000', amount: '65000', allowed: true },
  { balance: '100000', minimum: '5000', held: '30000', amount: '65001', allowed: false },
  { balance: '100000', minimum: '0', held: '100000', amount: '1', allowed: false },
  { balance: '3000', minimum: '5000', held: '0', amount: '1', allowed: false },
  { balance: '50000', minimum: '0', held: '80000', amount: '1', allowed: false },
  { balance: '0', minimum: '0', held: '0', amount: '1', allowed: false },
  { balance: '999999999999', minimum: '1', held: '1', amount: '999999999997', allowed: true },
];

type Outcome = 'allowed' | { kind: string; code: string; message: string; fields: unknown };
const outcomeOf = (error: unknown): Outcome => {
  if (!(error instanceof AppError)) throw error;
  return { kind: error.kind, code: error.code, message: error.message, fields: error.fieldErrors };
};

test(
  'the overdraft rule: assertAboveMinimum and coopbank_move_cash allow and refuse the same withdrawals, with ' +
    'the same message',
  async (t) => {
    const client = await memberOf(world);
    const account = await openSavingsAccount(world, client, '1000000');
    const loan = await approvedLoan(world, client);
    const pledge = await confirmedGuarantee(world, {
      loan,
      kind: 'pledged_deposit',
      value: '1000',
      account,
      start_date: '2026-01-15',
    });
    const actor = { userId: world.users.cashier!.id, grants: [], requestId: 'twins' };
    for (const { balance, minimum, held, amount, allowed } of overdraftCases) {
      const ts = ((): Outcome => {
        try {
          assertAboveMinimum(new Money(balance), new Money(balance).minus(amount), new Money(minimum), new Money(held));
          return 'allowed';
        } catch (error) {
          return outcomeOf(error);
        }
      })();
      const sql = await rolledBack(async (trx) => {
        await trx('comptes_clients').where({ id: account }).update({ balance });
        await trx('savings_products').where({ id: world.savingsProductId }).update({ minimum_balance: minimum });
        // No hold: the pledge refused, which the holds leave out.
        await trx('loan_guarantees')
          .where({ id: pledge.id as string })
          .update(held === '0' ? { status: 'refused' } : { value: held });
        const withdrawal = {
          accountId: account,
          amount: new Money(amount),
          channel: 'cash' as const,
          reference: '',
          idempotencyKey: null,
        };
        return moveCash(trx, testClock(), actor, 'withdrawal', withdrawal).then((): Outcome => 'allowed', outcomeOf);
      });
      const label = `balance ${balance}, minimum ${minimum}, held ${held}, withdrawal ${amount}`;
      t.is(ts === 'allowed', allowed, label);
      t.deepEqual(sql, ts, label);
    }
  },
);

// (c) The journal lines of an event: linesForEvent (domain/events/journal.ts) and coopbank_record_event's lines.
const roles = defaultRoleAccounts;
const linesCases: { legs: RuleLeg[]; amount: string; productAccounts: Partial<RoleAccounts> }[] = [
  { legs: [{ debit: { role: 'cash' }, credit: { role: 'member_deposits' } }], amount: '1000', productAccounts: {} },
  {
    legs: [{ debit: { role: 'cash' }, credit: { role: 'member_deposits' } }],
    amount: '1',
    productAccounts: { member_deposits: '3712' },
  },
  {
    legs: [{ debit: { account: roles.cash }, credit: { account: roles.interest_income } }],
    amount: '123456789012',
    productAccounts: { cash: '3712' },
  },
  {
    legs: [
      { debit: { role: 'member_deposits' }, credit: { role: 'cash' } },
      { debit: { role: 'interest_expense' }, credit: { account: roles.withholding_tax } },
      { debit: { role: 'cash' }, credit: { role: 'fee_income' } },
    ],
    amount: '2501',
    productAccounts: { member_deposits: '3712', fee_income: roles.interest_income },
  },
];

type Line = { account: string; debit: string; credit: string };
const sorted = (lines: Line[]) =>
  lines
    .map((line) => ({ ...line, debit: new Money(line.debit).toString(), credit: new Money(line.credit).toString() }))
    .sort((a, b) => `${a.account}|${a.debit}|${a.credit}`.localeCompare(`${b.account}|${b.debit}|${b.credit}`));

test(
  'the journal lines: linesForEvent and coopbank_record_event post the same lines for the same rule, amount ' +
    'and product accounts',
  async (t) => {
    for (const [index, { legs, amount, productAccounts }] of linesCases.entries()) {
      const ts = linesForEvent(legs, new Money(amount), roles, productAccounts).map((line) => ({
        account: line.account,
        debit: line.debit.toString(),
        credit: line.credit.toString(),
      }));
      const sql = await rolledBack(async (trx) => {
        const { version } = (await trx('accounting_rule_configs')
          .where({ enterprise_id: world.enterpriseId, kind: 'deposit' })
          .max('version as version')
          .first()) as { version: number };
        await trx('accounting_rule_configs').insert({
          enterprise_id: world.enterpriseId,
          kind: 'deposit',
          version: Number(version) + 1,
          legs: JSON.stringify(legs),
          is_active: true,
          reason: 'twin test',
        });
        const recorded = await recordBusinessEvent(trx, testClock(), {
          ...depositEvent(new Money(amount), `twin:lines:${index}`),
          productAccounts,
        });
        return trx('journal_lines as l')
          .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
          .where('l.entry_id', recorded.entryId!)
          .select<Line[]>('c.code as account', 'l.debit', 'l.credit');
      });
      t.is(ts.length, legs.length * 2);
      t.deepEqual(sorted(sql), sorted(ts), JSON.stringify(legs));
    }
  },
);

// The journal of an entry, coopbank_post_entry's alone (no TypeScript twin): its cases, in the order it tries them.
const journalCases: {
  label: string;
  accounts: [string, string];
  journal?: string;
  ruleKind?: string;
  reversesKind?: string;
  expected: string;
}[] = [
  { label: 'cash lines', accounts: [roles.cash, roles.member_deposits], expected: 'CAI' },
  { label: 'a correspondent', accounts: ['5601', roles.member_deposits], expected: 'BQ' },
  { label: 'cash and a correspondent', accounts: ['5601', roles.cash], expected: 'CAI' },
  { label: 'neither', accounts: [roles.loan_portfolio, roles.member_deposits], expected: 'OD' },
  { label: 'off-balance lines alone (class 9)', accounts: ['922', '9922'], expected: 'HB' },
  { label: 'off-balance, a journal named by the caller', accounts: ['922', '9922'], journal: 'OD', expected: 'OD' },
  {
    label: 'named by the caller, over the lines',
    accounts: [roles.cash, roles.member_deposits],
    journal: 'CLO',
    expected: 'CLO',
  },
  {
    label: 'the kind of the rule, over the lines',
    accounts: [roles.cash, roles.member_deposits],
    ruleKind: 'provision_charge',
    expected: 'PRV',
  },
  {
    label: 'a kind no journal lists: by the lines',
    accounts: [roles.cash, roles.member_deposits],
    ruleKind: 'deposit',
    expected: 'CAI',
  },
  {
    label: "the reversed entry's, over the kind and the lines",
    accounts: [roles.cash, roles.member_deposits],
    ruleKind: 'deposit',
    reversesKind: 'provision_charge',
    expected: 'PRV',
  },
  {
    label: "named by the caller, over the reversed entry's",
    accounts: [roles.cash, roles.member_deposits],
    journal: 'OD',
    reversesKind: 'provision_charge',
    expected: 'OD',
  },
];

test(
  "the journal of an entry: named, else the reversed entry's, else its kind's, " +
    'else by its lines (57 CAI, 56 BQ, else OD)',
  async (t) => {
    const post = async (
      trx: Knex.Transaction,
      accounts: [string, string],
      journal: string | null,
      ruleKind: string | null,
      reverses: string | null,
    ) => {
      const rule =
        ruleKind === null
          ? null
          : (
              await trx('accounting_rule_configs')
                .where({ enterprise_id: world.enterpriseId, kind: ruleKind })
                .orderBy('version', 'desc')
                .first('id')
            ).id;
      const lines = JSON.stringify([
        { account: accounts[0], debit: '100', credit: '0' },
        { account: accounts[1], debit: '0', credit: '100' },
      ]);
      const { rows } = await trx.raw('SELECT coopbank_post_entry(?, ?, ?, ?::jsonb, ?, NULL, ?, ?, ?, ?) AS id', [
        world.enterpriseId,
        world.headOffice,
        '2026-06-01',
        lines,
        'twin test',
        rule,
        reverses,
        world.rootId,
        journal,
      ]);
      return (await trx('journal_entries').where({ id: rows[0].id }).first('id', 'journal_code')) as {
        id: string;
        journal_code: string;
      };
    };
    for (const { label, accounts, journal, ruleKind, reversesKind, expected } of journalCases) {
      const chosen = await rolledBack(async (trx) => {
        await yearOf(trx, '2026-06-01');
        const reversed = reversesKind === undefined ? null : await post(trx, accounts, null, reversesKind, null);
        return (await post(trx, accounts, journal ?? null, ruleKind ?? null, reversed?.id ?? null)).journal_code;
      });
      t.is(chosen, expected, label);
    }
  },
);
