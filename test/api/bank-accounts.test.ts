import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { postJournalEntry } from '../../activities/events/post-entry';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { accountBalance, createLoanWorld, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Bank accounts (issue 28, docs/domain.md §12.6): each opens its own sub-account of a leaf of 560; refused
 * parents and numbers; renamed and deactivated; its book balance is its account's; transfers between the till
 * and the banks under four eyes. Every figure computed here by hand.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let accountant: Record<string, string>;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'BKA');
  await createUser(knex, 'accountant_bka', [{ role: 'accountant', enterpriseId: world.enterpriseId, branchId: null }]);
  accountant = await bearer(app, 'accountant_bka', '10.71.0.1');
});

const create = (json: Record<string, unknown>, headers = accountant) =>
  app.request('POST', '/api/v1/accounting/bank-accounts/', {
    headers,
    json: { enterprise: world.enterpriseId, ...json },
  });
const get = (path: string, headers = accountant) =>
  app.request('GET', `/api/v1/accounting/bank-accounts/${path}`, { headers });
const labelOf = async (code: string) =>
  await knex('company_chart_entries').where({ enterprise_id: world.enterpriseId, code }).first('label', 'parent_code');

/** Refused creations: a parent outside the 560 leaves, a number taken, a formula, a cashier; nothing written. */
async function assertCreationsRefused(t: ExecutionContext) {
  t.like((await create({ bank_name: 'Till', account_number: 'CAISSE-01', parent_account: '5710' })).body, {
    status: 422,
    code: 'bank_parent_account_refused',
    errors: [{ field: 'parent_account' }],
  });
  t.like(
    (await create({ bank_name: 'EMF', account_number: 'EMF-000001', parent_account: '5609' })).body,
    { code: 'bank_parent_account_refused' },
    '5609 has leaves below it',
  );
  t.like((await create({ bank_name: 'Twin', account_number: '10003-00100-0500012345-07' })).body, {
    status: 409,
    code: 'bank_account_number_taken',
    errors: [{ field: 'account_number' }],
  });
  t.like((await create({ bank_name: 'Formula', account_number: '=HYPERLINK(1)' })).body, {
    status: 400,
    errors: [{ field: 'account_number' }],
  });
  t.is(
    (await create({ bank_name: 'Refused', account_number: 'REFUSED-01' }, world.users.cashier!.headers)).status,
    403,
    'a cashier keeps no books',
  );
  t.is(
    (await knex('bank_accounts').where({ enterprise_id: world.enterpriseId })).length,
    3,
    'nothing written by the refusals',
  );
}

test.serial(
  'bank accounts open the next sub-accounts of their 560 leaf; ' +
    'bad parents and taken numbers are refused naming the field',
  async (t) => {
    const afriland = await create({
      bank_name: 'Afriland First Bank',
      account_number: 'CM21 10005 00001 01234567890 12',
      bank_branch: 'Douala Akwa',
    });
    t.is(afriland.status, 201, afriland.text);
    t.like(afriland.body, {
      account: '5603001',
      branch: null,
      is_active: true,
      balance: '0',
      bank_branch: 'Douala Akwa',
    });
    t.deepEqual(await labelOf('5603001'), {
      label: 'Afriland First Bank CM21 10005 00001 01234567890 12',
      parent_code: '5603',
    });
    t.like((await create({ bank_name: 'SGC', account_number: '10003-00100-0500012345-07' })).body, {
      account: '5603002',
    });
    const sahel = await create({
      bank_name: 'Crédit du Sahel',
      account_number: '10020-09999-1',
      parent_account: '5602',
      branch: world.headOffice,
    });
    t.like(sahel.body, { account: '5602001', branch: world.headOffice });

    await assertCreationsRefused(t);

    const listed = async (headers: Record<string, string>) =>
      (await get(`?enterprise=${world.enterpriseId}`, headers)).body.results.map(
        (row: { account: string }) => row.account,
      );
    t.deepEqual(await listed(accountant), ['5603001', '5602001', '5603002'], 'by bank name, then number');
    t.deepEqual(
      await listed(world.users.other_head!.headers),
      [],
      "another branch sees neither the enterprise's accounts nor the head office's",
    );
    t.is((await get(`${sahel.body.id}/`, world.users.other_head!.headers)).status, 404, "another branch's account");
    t.is(
      (await get(`${afriland.body.id}/`, world.users.other_head!.headers)).status,
      403,
      "the enterprise's: for its whole-enterprise roles",
    );
  },
);

/** 500 000 from the till to the bank, then 2 500 of fees the bank took: 497 500 at the bank, by hand. */
async function postTillToBankWithFees() {
  await knex.transaction(async (trx) => {
    const post = (lines: [string, string, number][]) =>
      postJournalEntry(trx, {
        enterpriseId: world.enterpriseId,
        branchId: world.headOffice,
        entryDate: '2026-04-10',
        description: 'test',
        journal: 'BQ',
        createdBy: world.rootId,
        lines: lines.map(([account, side, amount]) => ({
          account,
          debit: new Money(side === 'D' ? amount : 0),
          credit: new Money(side === 'C' ? amount : 0),
        })),
      });
    await post([
      ['5603001', 'D', 500_000],
      ['5710', 'C', 500_000],
    ]);
    await post([
      ['6065', 'D', 2_500],
      ['5603001', 'C', 2_500],
    ]);
  });
}

test.serial(
  "renamed, its label follows; deactivated, it stays in the chart; its balance is its account's",
  async (t) => {
    const { id } = (await get(`?enterprise=${world.enterpriseId}&is_active=true`)).body.results.find(
      (row: { account: string }) => row.account === '5603001',
    );
    const renamed = await app.request('PATCH', `/api/v1/accounting/bank-accounts/${id}/`, {
      headers: accountant,
      json: { bank_name: 'Afriland', bank_branch: null },
    });
    t.like(renamed.body, { bank_name: 'Afriland', bank_branch: null, account: '5603001' });
    t.is((await labelOf('5603001')).label, 'Afriland CM21 10005 00001 01234567890 12');
    const unchanged = await app.request('PATCH', `/api/v1/accounting/bank-accounts/${id}/`, {
      headers: accountant,
      json: {},
    });
    t.like(
      unchanged.body,
      { bank_name: 'Afriland', account: '5603001', is_active: true },
      'a PATCH of no field changes nothing',
    );

    await postTillToBankWithFees();
    t.is(await accountBalance(knex, world.enterpriseId, '5603001'), '497500');
    t.like((await get(`${id}/`)).body, { balance: '497500' });

    const deactivated = await app.request('PATCH', `/api/v1/accounting/bank-accounts/${id}/`, {
      headers: accountant,
      json: { is_active: false },
    });
    t.like(deactivated.body, { is_active: false, balance: '497500' });
    t.deepEqual(
      (await get(`?enterprise=${world.enterpriseId}&is_active=false`)).body.results.map(
        (row: { id: string }) => row.id,
      ),
      [id],
    );
    t.is(
      (
        await knex('company_chart_entries')
          .where({ enterprise_id: world.enterpriseId, code: '5603001' })
          .first('is_active')
      ).is_active,
      true,
      'its account stays open',
    );
    const audit = await knex('audit_events').where({ entity_id: id }).orderBy('id').pluck('action');
    t.deepEqual(audit, ['bank_account.create', 'bank_account.update', 'bank_account.deactivate']);
  },
);

const transfer = (json: Record<string, unknown>, headers: Record<string, string>) =>
  app.request('POST', '/api/v1/accounting/treasury-transfers/', {
    headers,
    json: { enterprise: world.enterpriseId, branch: world.headOffice, transfer_date: '2026-04-15', ...json },
  });
const decide = (requestId: string, headers: Record<string, string>) =>
  app.request('POST', `/api/v1/approvals/requests/${requestId}/approve/`, {
    headers,
    json: { reason: 'deposit slip seen' },
  });

/** 300 000 from the till to SGC, sent with an Idempotency-Key; the maker cannot approve it. */
async function depositTillToSgc(t: ExecutionContext, sgc: string) {
  const keyed = (json: Record<string, unknown>) =>
    app.request('POST', '/api/v1/accounting/treasury-transfers/', {
      headers: { ...accountant, 'idempotency-key': 'versement-7' },
      json: { enterprise: world.enterpriseId, branch: world.headOffice, transfer_date: '2026-04-15', ...json },
    });
  const deposit = { to_bank_account: sgc, amount: '300000', reference: 'bordereau 7' };
  const requested = await keyed(deposit);
  t.like(requested.body, {
    operation: 'treasury.transfer',
    status: 'pending',
    approver_roles: ['branch_head', 'direction', 'admin'],
  });
  t.is((await keyed(deposit)).body.id, requested.body.id, 'a retry while it waits: the same request');
  t.is(await accountBalance(knex, world.enterpriseId, '5603002'), '0', 'nothing is booked before the approval');
  t.is((await decide(requested.body.id, accountant)).status, 403, 'the accountant decides nothing');
  t.like((await decide(requested.body.id, world.users.branch_head!.headers)).body, { status: 'approved' });
  const replayed = await keyed(deposit);
  t.is(replayed.status, 201, replayed.text);
  t.is(replayed.headers.get('idempotent-replayed'), 'true');
  t.like(replayed.body, {
    from_bank_account: null,
    from_account: '5710',
    to_bank_account: sgc,
    to_account: '5603002',
    amount: '300000',
    reference: 'bordereau 7',
  });
  t.is((await knex('journal_entries').where({ id: replayed.body.entry }).first('journal_code')).journal_code, 'BQ');
}

test.serial(
  'transfers: the till to a bank approved by a second person, a ' +
    'bank to another by the branch head; the same side twice refused',
  async (t) => {
    const accounts = (await get(`?enterprise=${world.enterpriseId}&is_active=true`)).body.results as {
      id: string;
      account: string;
    }[];
    const sgc = accounts.find((row) => row.account === '5603002')!.id;
    const sahel = accounts.find((row) => row.account === '5602001')!.id;
    const tillBefore = new Money(await accountBalance(knex, world.enterpriseId, '5710'));

    await withWorker(
      knex,
      async () => {
        await depositTillToSgc(t, sgc);
        // 120 000 from SGC to Crédit du Sahel, made by the branch head: the direction approves it, not its maker.
        const between = await transfer(
          { from_bank_account: sgc, to_bank_account: sahel, amount: '120000' },
          world.users.branch_head!.headers,
        );
        t.is(between.status, 202, between.text);
        t.like((await decide(between.body.id, world.users.branch_head!.headers)).body, {
          status: 403,
          code: 'approval_own_request',
        });
        t.like((await decide(between.body.id, world.users.direction!.headers)).body, { status: 'approved' });
      },
      taskQueue,
    );

    t.like((await transfer({ from_bank_account: sgc, to_bank_account: sgc, amount: '1' }, accountant)).body, {
      status: 422,
      code: 'treasury_transfer_same_account',
      errors: [{ field: 'to_bank_account' }],
    });
    t.like(
      (await transfer({ amount: '1' }, accountant)).body,
      { status: 422, code: 'treasury_transfer_same_account' },
      'the till to the till',
    );
    t.like(
      (await transfer({ to_bank_account: sgc, amount: '1', transfer_date: '2100-01-04' }, accountant)).body,
      { status: 422, code: 'as_of_after_business_date', errors: [{ field: 'transfer_date' }] },
      'after the business date: refused before any request',
    );
    t.like((await transfer({ to_bank_account: sgc, amount: '-5' }, accountant)).body, {
      status: 400,
      errors: [{ field: 'amount' }],
    });
    t.is((await transfer({ to_bank_account: sgc, amount: '5' }, world.users.cashier!.headers)).status, 403);

    // SGC: +300 000 − 120 000; Sahel: +120 000; the till: −300 000.
    t.is(await accountBalance(knex, world.enterpriseId, '5603002'), '180000');
    t.is(await accountBalance(knex, world.enterpriseId, '5602001'), '120000');
    t.is(await accountBalance(knex, world.enterpriseId, '5710'), tillBefore.minus(300_000).toFixed(0));
    t.like((await get(`${sgc}/`)).body, { balance: '180000' });
    const listed = (
      await app.request('GET', `/api/v1/accounting/treasury-transfers/?enterprise=${world.enterpriseId}`, {
        headers: accountant,
      })
    ).body.results;
    t.deepEqual(listed.map((row: { amount: string }) => row.amount).sort(), ['120000', '300000']);
  },
);

const importStatement = (bankAccount: string, file: Buffer | string, extra: Record<string, unknown> = {}) =>
  app.request('POST', `/api/v1/accounting/bank-accounts/${bankAccount}/statements/`, {
    headers: accountant,
    json: { file_name: 'releve.csv', content: Buffer.from(file).toString('base64'), ...extra },
  });
const postEntry = (date: string, description: string, lines: [string, number][]) =>
  knex.transaction((trx) =>
    postJournalEntry(trx, {
      enterpriseId: world.enterpriseId,
      branchId: world.headOffice,
      entryDate: date,
      description,
      journal: 'BQ',
      createdBy: world.rootId,
      lines: lines.map(([account, amount]) => ({
        account,
        debit: new Money(Math.max(amount, 0)),
        credit: new Money(Math.max(-amount, 0)),
      })),
    }),
  );
const ledgerLineOf = async (entryId: string, code: string) =>
  (
    await knex('journal_lines as l')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .where({ 'l.entry_id': entryId, 'c.code': code })
      .first(knex.raw('l.id::text AS id'))
  ).id as string;
const matchLine = (statementLine: string, journalLine: string | null) =>
  app.request('POST', `/api/v1/accounting/statement-lines/${statementLine}/match/`, {
    headers: accountant,
    json: { journal_line: journalLine },
  });

/**
 * The fees booked by the accountant's manual entry (a bank account is no subledger account), approved by the branch
 * head. Returns the journal entry it posted.
 */
async function bookFeesByManualEntry(t: ExecutionContext): Promise<string> {
  return await withWorker(
    knex,
    async () => {
      const created = await app.request('POST', '/api/v1/accounting/manual-entries/', {
        headers: accountant,
        json: {
          enterprise: world.enterpriseId,
          entry_date: '2026-04-30',
          reference: 'RELEVE-04',
          label: 'Frais de tenue de compte avril',
          lines: [
            { account: '6065', branch: world.headOffice, debit: '3500' },
            { account: '5603002', branch: world.headOffice, credit: '3500' },
          ],
        },
      });
      t.is(created.status, 201, created.text);
      const submitted = await app.request('POST', `/api/v1/accounting/manual-entries/${created.body.id}/submission/`, {
        headers: accountant,
      });
      t.like((await decide(submitted.body.id, world.users.branch_head!.headers)).body, { status: 'approved' });
      return (
        await app.request('GET', `/api/v1/accounting/manual-entries/${created.body.id}/`, { headers: accountant })
      ).body.journal_entries[0].id as string;
    },
    taskQueue,
  );
}

/** The état de rapprochement of SGC, by hand, once its statement lines but the agios are matched. */
async function assertReconciliation(t: ExecutionContext, sgc: string, agios: string) {
  // A deposit of 50 000 booked on 29 April the bank has not shown yet.
  await postEntry('2026-04-29', 'Versement 9', [
    ['5603002', 50_000],
    ['5710', -50_000],
  ]);
  const report = async (date: string, format = 'json') =>
    app.request('GET', `/api/v1/accounting/bank-accounts/${sgc}/reconciliation/?date=${date}&format=${format}`, {
      headers: accountant,
    });
  // 30 April: books 300 000 − 120 000 − 3 500 + 50 000 = 226 500; bank 175 500 (the last line's balance);
  // 226 500 − 50 000 (not on the statement) − 1 000 (the agios, not in the books) = 175 500.
  const april = (await report('2026-04-30')).body;
  t.like(april, {
    book_balance: '226500',
    bank_balance: '175500',
    reconciled_balance: '175500',
    difference: '0',
    reconciled: true,
    account: '5603002',
  });
  t.deepEqual(
    april.unmatched_ledger_lines.map((line: { amount: string; date: string }) => [line.date, line.amount]),
    [['2026-04-29', '50000']],
  );
  t.deepEqual(
    april.unmatched_statement_lines.map((line: { statement_line: string; amount: string }) => [
      line.statement_line,
      line.amount,
    ]),
    [[agios, '-1000']],
  );
  // 16 April: books 180 000; bank 300 000 (the deposit's line); the 120 000 sent reaches the statement on the 17th.
  t.like((await report('2026-04-16')).body, {
    book_balance: '180000',
    bank_balance: '300000',
    reconciled: true,
    unmatched_ledger_lines: [{ amount: '-120000' }],
    unmatched_statement_lines: [],
  });
  const csvReport = await report('2026-04-30', 'csv');
  t.is(csvReport.status, 200);
  t.true(csvReport.text.includes("'=SUM(A1) agios"), 'a formula is written as text in the download');
  t.true(csvReport.text.includes('175500'));
  t.is((await report('2026-04-30', 'xlsx')).status, 200);
}

test.serial(
  'a statement: one line matches by itself, one by hand, the fees ' +
    'once booked by a manual entry; the reconciliation by hand',
  async (t) => {
    const sgc = (await get(`?enterprise=${world.enterpriseId}&is_active=true`)).body.results.find(
      (row: { account: string }) => row.account === '5603002',
    ).id as string;
    // SGC's ledger so far: +300 000 (bordereau 7) and −120 000, both on 2026-04-15 (the transfers above).
    const csv = [
      'date;value date;label;reference;debit;credit;balance',
      '16/04/2026;;VERSEMENT ESPECES;bordereau 7;;300 000;300000',
      '17/04/2026;;VIREMENT EMIS;ORD-55;120000;;180000',
      '',
      '30/04/2026;;FRAIS TENUE DE COMPTE;;3500;;176500',
      '30/04/2026;;"=SUM(A1) agios";;1000;;175500',
    ].join('\r\n');
    const imported = await importStatement(sgc, csv);
    t.is(imported.status, 201, imported.text);
    t.is(imported.body.matched, 1, 'the deposit: same amount, a day apart, its reference in the entry');
    const [deposit, sent, fees, agios] = imported.body.lines as {
      id: string;
      amount: string;
      journal_line: string | null;
      label: string;
    }[];
    t.deepEqual([deposit!.amount, sent!.amount, fees!.amount, agios!.amount], ['300000', '-120000', '-3500', '-1000']);
    t.not(deposit!.journal_line, null);
    t.is(sent!.journal_line, null, 'ORD-55 is in no entry: left for a person');
    t.is(agios!.label, '=SUM(A1) agios', 'a formula is stored as text');
    t.like((await app.request('GET', imported.headers.get('location')!, { headers: accountant })).body, {
      id: imported.body.id,
      bank_account: sgc,
      matched: 1,
    });

    // By hand: the transfer sent, then the fees once booked by the accountant.
    const sentEntry = (await knex('treasury_transfers').where({ from_account_code: '5603002' }).first('entry_id'))
      .entry_id as string;
    const sentLine = await ledgerLineOf(sentEntry, '5603002');
    t.like(
      (await matchLine(sent!.id, deposit!.journal_line)).body,
      { status: 422, code: 'bank_statement_match_refused', errors: [{ field: 'journal_line' }] },
      'not the same amount',
    );
    t.is((await matchLine(sent!.id, sentLine)).status, 200);
    const feesLine = await ledgerLineOf(await bookFeesByManualEntry(t), '5603002');
    t.is((await matchLine(fees!.id, feesLine)).status, 200);
    t.like(
      (await matchLine(agios!.id, feesLine)).body,
      { status: 422, code: 'bank_statement_match_refused' },
      'the fees line is of another amount',
    );
    t.is(
      (await app.request('POST', `/api/v1/accounting/statement-lines/${fees!.id}/unmatch/`, { headers: accountant }))
        .status,
      200,
    );
    t.is((await matchLine(fees!.id, feesLine)).status, 200, 'matched again');
    const matches = await knex('bank_statement_lines')
      .whereIn('id', [deposit!.id, sent!.id, fees!.id, agios!.id])
      .orderBy('position')
      .pluck('matched_how');
    t.deepEqual(matches, ['auto', 'manual', 'manual', null]);
    t.deepEqual(await knex('audit_events').where({ entity_id: fees!.id }).orderBy('id').pluck('action'), [
      'bank_statement_line.match',
      'bank_statement_line.unmatch',
      'bank_statement_line.match',
    ]);
    await assertReconciliation(t, sgc, agios!.id);
  },
);

test.serial('hostile statement files are refused whole, naming the row and column', async (t) => {
  const sgc = (await get(`?enterprise=${world.enterpriseId}&is_active=true`)).body.results.find(
    (row: { account: string }) => row.account === '5603002',
  ).id as string;
  const refused = async (file: Buffer | string, field: string) => {
    const answer = await importStatement(sgc, file);
    t.like(answer.body, { status: 400, code: 'bank_statement_invalid', errors: [{ field }] }, field);
  };
  const header = 'date,label,amount\n';
  await refused(Buffer.concat([Buffer.from(header), Buffer.from([0x31, 0x36, 0x2f, 0xe9, 0x0a])]), 'file');
  await refused(`${header}2026-04-16,ok,100\n2026-02-31,bad,100\n`, 'row 3, date');
  await refused(`${header}2026-04-16,formula,=1+2\n`, 'row 2, amount');
  await refused(`${header}2026-04-16,fraction,10.5\n`, 'row 2, amount');
  await refused(`${header}${'2026-04-16,line,1\n'.repeat(5001)}`, 'file');
  await refused(`${header}2026-04-16,${'x'.repeat(600 * 1024)},1\n`, 'file');
  await refused('date,label,amount,cmd\n2026-04-16,l,1,x\n', 'header, column 4');
  await refused(`${header}2026-04-16,too,1,many\n`, 'row 2');
  t.like(
    (
      await app.request('POST', `/api/v1/accounting/bank-accounts/${sgc}/statements/`, {
        headers: accountant,
        json: { content: '@@not base64' },
      })
    ).body,
    { status: 400, errors: [{ field: 'content' }] },
  );
  t.is((await knex('bank_statements').where({ bank_account_id: sgc })).length, 1, 'nothing stored by the refusals');
});

test.serial(
  "a transfer with another branch's bank account or a deactivated one " +
    'is refused at the request, naming the field, before any approval',
  async (t) => {
    const elsewhere = await create({
      bank_name: "Banque de l'agence",
      account_number: 'AG-2-001',
      parent_account: '5602',
      branch: world.otherBranch,
    });
    t.is(elsewhere.status, 201, elsewhere.text);
    const closed = await create({ bank_name: 'Banque fermée', account_number: 'FERME-001', parent_account: '5602' });
    t.is(
      (
        await app.request('PATCH', `/api/v1/accounting/bank-accounts/${closed.body.id as string}/`, {
          headers: accountant,
          json: { is_active: false },
        })
      ).status,
      200,
    );
    const requests = async () =>
      Number((await knex('approval_requests').where({ operation: 'treasury.transfer' }).count('* as n').first())!.n);
    const before = await requests();

    t.like(
      (await transfer({ to_bank_account: elsewhere.body.id, amount: '1000' }, accountant)).body,
      { status: 422, code: 'bank_account_unknown', errors: [{ field: 'to_bank_account' }] },
      "the head office's till to the other branch's bank",
    );
    t.like((await transfer({ from_bank_account: elsewhere.body.id, amount: '1000' }, accountant)).body, {
      status: 422,
      code: 'bank_account_unknown',
      errors: [{ field: 'from_bank_account' }],
    });
    t.like(
      (await transfer({ to_bank_account: closed.body.id, amount: '1000' }, accountant)).body,
      { status: 422, code: 'bank_account_inactive', errors: [{ field: 'to_bank_account' }] },
      'a deactivated account takes no transfer',
    );
    t.like((await transfer({ from_bank_account: closed.body.id, amount: '1000' }, accountant)).body, {
      status: 422,
      code: 'bank_account_inactive',
      errors: [{ field: 'from_bank_account' }],
    });
    t.is(await requests(), before, 'no request for a second person to decide');
  },
);

test.serial(
  "the statement lines of every statement are listed by bank account, matched or not, within the caller's branches",
  async (t) => {
    const sgc = (await get(`?enterprise=${world.enterpriseId}&is_active=true`)).body.results.find(
      (row: { account: string }) => row.account === '5603002',
    ).id as string;
    const listed = async (filters: string, headers = accountant) => {
      const answer = await app.request(
        'GET',
        `/api/v1/accounting/statement-lines/?enterprise=${world.enterpriseId}${filters}&page_size=100`,
        { headers },
      );
      t.is(answer.status, 200, answer.text);
      return answer.body.results as {
        id: string;
        date: string;
        amount: string;
        journal_line: string | null;
        bank_account: string;
        statement: string;
      }[];
    };
    // What the earlier tests imported and matched, read from the tables.
    const stored = await knex('bank_statement_lines')
      .where({ bank_account_id: sgc })
      .select('id', 'journal_line_id', 'statement_id');
    const unmatched = stored
      .filter((row) => row.journal_line_id === null)
      .map((row) => row.id as string)
      .sort();
    const matched = stored
      .filter((row) => row.journal_line_id !== null)
      .map((row) => row.id as string)
      .sort();
    t.true(unmatched.length > 0 && matched.length > 0, 'both kinds exist');
    t.deepEqual((await listed(`&bank_account=${sgc}&matched=false`)).map((line) => line.id).sort(), unmatched);
    t.deepEqual((await listed(`&bank_account=${sgc}&matched=true`)).map((line) => line.id).sort(), matched);
    const all = await listed(`&bank_account=${sgc}`);
    t.is(all.length, stored.length);
    t.true(
      all.every(
        (line) =>
          line.bank_account === sgc && stored.some((row) => row.id === line.id && row.statement_id === line.statement),
      ),
    );
    t.deepEqual(
      all.map((line) => line.date),
      [...all.map((line) => line.date)].sort().reverse(),
      'newest first',
    );
    t.deepEqual(
      await listed(`&bank_account=${sgc}`, world.users.other_head!.headers),
      [],
      "another branch sees no line of the enterprise's accounts",
    );
    t.is(
      (await app.request('GET', '/api/v1/accounting/statement-lines/', { headers: world.users.cashier!.headers }))
        .status,
      403,
    );
  },
);
