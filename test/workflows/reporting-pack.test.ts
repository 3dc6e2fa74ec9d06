import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { reportingPackReports } from '../../activities/accounts/reporting-pack-reports';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { createLoanWorld, setBusinessDate } from '../helpers/loans';
import { postJournalEntry } from '../../activities/events/post-entry';
import { inTransaction } from '../../db/transaction';
import { Money } from '../../domain/money';
import { closeYear, openNextYear, smallCooperative, type SmallCooperative } from '../helpers/small-cooperative';
import { fileTeardown } from '../helpers/teardown';
import { untilWorkflow } from '../helpers/until';
import { newTaskQueue, withWorker, type WorkerContext } from '../helpers/worker';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

const packs = '/api/v1/accounts/reporting-packs/';
// Recorded with RECORD_HISTORIES=1: a change to the workflow that breaks the histories of packs in flight fails here.
const historyFile = path.join(__dirname, 'histories', 'reporting-pack-stored.json');

/**
 * Whether the pack's general ledger and journal book of the month (issue 28) carry the totals their JSON routes give.
 */
async function monthBooksInPack(
  coop: SmallCooperative,
  packId: string,
  from: string,
  to: string,
): Promise<[boolean, boolean]> {
  const headers = coop.world.users.direction!.headers;
  const period = `date_from=${from}&date_to=${to}`;
  const ledger = (
    await app.request('GET', `/api/v1/accounts/charts/${coop.chartId}/general-ledger/?${period}`, { headers })
  ).body;
  const ledgerFile = (await fileOf(`${packs}${packId}/files/general-ledger.csv/`, headers)).bytes.toString('utf8');
  const book = (
    await app.request('GET', `/api/v1/accounts/journal-book/?enterprise=${coop.world.enterpriseId}&${period}`, {
      headers,
    })
  ).body;
  const bookFile = (await fileOf(`${packs}${packId}/files/journal-book.csv/`, headers)).bytes.toString('utf8');
  return [
    ledgerFile.includes(
      `\r\n;;;;;;Total général des mouvements;${ledger.totals.movement_debit};${ledger.totals.movement_credit};\r\n`,
    ),
    bookFile.includes(`\r\n;Total;${book.totals.entries};${book.totals.debit};${book.totals.credit}\r\n`),
  ];
}

async function fileOf(path: string, headers: Record<string, string>) {
  const response = await fetch(`${app.baseUrl}${path}`, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    digest: response.headers.get('repr-digest'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/** Requests the month's pack and waits for its workflow to store it (or fail). */
async function packOf(coop: SmallCooperative, period: string) {
  const headers = coop.world.users.direction!.headers;
  const requested = await app.request('POST', packs, {
    headers,
    json: { enterprise: coop.world.enterpriseId, period },
  });
  if (requested.status !== 202) throw new Error(requested.text);
  return untilWorkflow({
    workflowId: requested.body.workflow_id,
    what: `the reporting pack of ${period}`,
    read: async () => {
      const pack = await app.request('GET', `${packs}${requested.body.id}/`, { headers });
      return pack.body.status === 'running' ? undefined : { requested, pack: pack.body };
    },
  });
}

test('report names of the pack are unique file names', (t) => {
  const names = reportingPackReports.map((report) => report.name);
  t.deepEqual(new Set(names).size, names.length);
  t.true(names.every((name) => /^[a-z0-9-]{1,40}$/.test(name)));
});

/**
 * The chains' heads as the pack was stored: each is a link of its chain, and the ledger verification holds through it.
 */
async function anchorsHold(t: ExecutionContext, coop: SmallCooperative, stored: unknown): Promise<void> {
  const { world } = coop;
  const anchors = stored as { chain: string; position: number; head_hash: string }[];
  t.deepEqual(
    anchors.map((anchor) => anchor.chain),
    ['journal_entries', 'audit_events'],
  );
  for (const anchor of anchors) {
    const link = await knex('ledger_chain_links')
      .where({ chain: anchor.chain, chain_key: world.enterpriseId, position: anchor.position })
      .first(knex.raw("encode(hash, 'hex') AS hash"));
    t.is(link.hash, anchor.head_hash, `${anchor.chain}: the anchor is the chain's link at its position`);
  }
  t.true(anchors[0]!.position > 0, "the half year's entries are in the chain");
  const verified = await app.request(
    'GET',
    `/api/v1/enterprise/ledger/verification/?enterprise=${world.enterpriseId}` +
      `&anchor_position=${anchors[0]!.position}&anchor_hash=${anchors[0]!.head_hash}`,
    { headers: world.users.direction!.headers },
  );
  t.like(verified.body, { verified: true, chains: [{ anchor: { position: anchors[0]!.position, holds: true } }] });
}

/** Refusals before anything is recorded: the role, the field, a month not over. */
async function refusedBeforeAnyPack(t: ExecutionContext, coop: SmallCooperative): Promise<void> {
  const { world } = coop;
  const headers = world.users.direction!.headers;
  t.is(
    (
      await app.request('POST', packs, {
        headers: world.users.cashier!.headers,
        json: { enterprise: world.enterpriseId, period: '2026-06' },
      })
    ).status,
    403,
  );
  t.like(
    (await app.request('POST', packs, { headers, json: { enterprise: world.enterpriseId, period: '2026-13' } })).body,
    { status: 400, errors: [{ field: 'period' }] },
  );
  t.like(
    (await app.request('POST', packs, { headers, json: { enterprise: world.enterpriseId, period: '2026-07' } })).body,
    { status: 422, code: 'period_not_ended', errors: [{ field: 'period' }] },
  );
  t.is(Number((await knex('reporting_packs').count<{ count: string }[]>())[0]!.count), 0);
}

type StoredFile = { name: string; format: string; sha256: string; size_bytes: number };

/** Each file downloads as stored: its bytes hash to the recorded SHA-256. */
async function filesDownloadAsStored(
  t: ExecutionContext,
  pack: { id: string; files: StoredFile[] },
  headers: Record<string, string>,
): Promise<void> {
  for (const stored of pack.files) {
    const download = await fileOf(`${packs}${pack.id}/files/${stored.name}/`, headers);
    t.is(download.status, 200);
    t.is(
      download.type,
      stored.format === 'csv'
        ? 'text/csv; charset=utf-8'
        : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    t.is(createHash('sha256').update(download.bytes).digest('hex'), stored.sha256);
    t.is(download.bytes.length, stored.size_bytes);
    t.is(download.digest, `sha-256=:${createHash('sha256').update(download.bytes).digest('base64')}:`);
    t.is(download.disposition, `attachment; filename="${stored.name.replace('.', '-RP1-2026-06.')}"`);
  }
}

/**
 * The figures, to the franc: the result of January to June computed by hand (interest and fees earned, salaries
 * paid).
 */
async function juneFiguresInPack(t: ExecutionContext, coop: SmallCooperative, pack: { id: string }): Promise<void> {
  const { expected } = coop;
  const headers = coop.world.users.direction!.headers;
  const income = (await fileOf(`${packs}${pack.id}/files/income-statement.csv/`, headers)).bytes.toString('utf8');
  t.true(income.includes('\r\nPériode;2026-01-01;2026-06-30\r\n'));
  t.true(income.includes(`\r\nRésultat (produits − charges);${expected.result.toFixed(0)};0\r\n`));
  const sheet = (await fileOf(`${packs}${pack.id}/files/balance-sheet.csv/`, headers)).bytes.toString('utf8');
  const json = await app.request('GET', `/api/v1/accounts/charts/${coop.chartId}/balance-sheet/?date=2026-06-30`, {
    headers,
  });
  t.true(sheet.includes(`\r\nDate;2026-06-30\r\n`));
  t.true(sheet.includes(`\r\n;Total actif;${json.body.totals.assets};${json.body.totals.prior_assets}\r\n`));
  t.true(sheet.includes(`\r\n;Total passif;${json.body.totals.liabilities};${json.body.totals.prior_liabilities}\r\n`));
  t.deepEqual(
    await monthBooksInPack(coop, pack.id, '2026-06-01', '2026-06-30'),
    [true, true],
    "the pack's general ledger and journal book total as their routes",
  );
}

/**
 * Asked again, through the API or by the month end's start of the workflow: the stored pack, nothing made again.
 * It is listed under its month only.
 */
async function storedNotMadeAgain(
  t: ExecutionContext,
  client: WorkerContext['client'],
  coop: SmallCooperative,
  pack: { id: string; workflow_id: string; generated_at: string; files: StoredFile[] },
): Promise<void> {
  const { world } = coop;
  const headers = world.users.direction!.headers;
  const again = await app.request('POST', packs, {
    headers,
    json: { enterprise: world.enterpriseId, period: '2026-06' },
  });
  t.like(again.body, { id: pack.id, status: 'stored', generated_at: pack.generated_at });
  t.deepEqual(again.body.files, pack.files);
  const rerun = await client.workflow.execute('reportingPack', {
    taskQueue,
    workflowId: pack.workflow_id,
    args: [{ enterpriseId: world.enterpriseId, period: '2026-06' }],
  });
  t.deepEqual(rerun, { packId: pack.id, files: 0 });
  t.is(
    Number((await knex('reporting_pack_files').where({ pack_id: pack.id }).count<{ count: string }[]>())[0]!.count),
    reportingPackReports.length * 2,
  );
  await t.throwsAsync(knex('reporting_pack_files').where({ pack_id: pack.id }).update({ size_bytes: 1 }), {
    message: /append-only/,
  });

  const listed = await app.request('GET', `${packs}?period=2026-06`, { headers });
  t.like(listed.body, { count: 1, results: [{ id: pack.id }] });
  t.is((await app.request('GET', `${packs}?period=2026-05`, { headers })).body.count, 0);
}

/** A user of another enterprise sees none of it. */
async function hiddenFromAnotherEnterprise(t: ExecutionContext, coop: SmallCooperative, pack: { id: string }) {
  const { world } = coop;
  const stranger = (await createLoanWorld(app, knex, 'RP2')).users.direction!.headers;
  t.is((await app.request('GET', `${packs}${pack.id}/`, { headers: stranger })).status, 404);
  t.is((await fileOf(`${packs}${pack.id}/files/balance-sheet.csv/`, stranger)).status, 404);
  t.is((await app.request('GET', packs, { headers: stranger })).body.count, 0);
  t.is(
    (
      await app.request('POST', packs, {
        headers: stranger,
        json: { enterprise: world.enterpriseId, period: '2026-06' },
      })
    ).status,
    404,
  );
}

test.serial(
  'a month’s pack: stored as made with the right figures, never made again, listed, downloaded, ' +
    'hidden from another enterprise; the history replays',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'RP1');
    const { world } = coop;
    const headers = world.users.direction!.headers;
    await setBusinessDate(world, '2026-07-05');

    await refusedBeforeAnyPack(t, coop);

    await withWorker(
      knex,
      async ({ client }) => {
        const { requested, pack } = await packOf(coop, '2026-06');
        t.is(requested.headers.get('location'), `${packs}${pack.id}/`);
        t.like(pack, {
          status: 'stored',
          period: '2026-06',
          requested_by: world.users.direction!.id,
          workflow_id: `reporting-pack-${world.enterpriseId}-2026-06`,
        });
        // The history of the run that made it (a later start of the same id is another run).
        const { events } = await client.workflow.getHandle(pack.workflow_id).fetchHistory();
        t.deepEqual(
          pack.files.map((stored: { name: string }) => stored.name),
          [
            'arrears-statement',
            'balance-sheet',
            'fixed-asset-register',
            'general-ledger',
            'income-statement',
            'intermediate-balances',
            'journal-book',
            'off-balance',
            'prudential-ratios',
            'supplier-balances',
            'trial-balance',
          ].flatMap((report) => [`${report}.csv`, `${report}.xlsx`]),
        );

        await filesDownloadAsStored(t, pack, headers);
        await juneFiguresInPack(t, coop, pack);

        await anchorsHold(t, coop, pack.chain_anchors);

        await storedNotMadeAgain(t, client, coop, pack);
        await hiddenFromAnotherEnterprise(t, coop, pack);

        await t.notThrowsAsync(
          Worker.runReplayHistory(
            { workflowBundle: { codePath: testEnvironment().bundlePath } },
            { events },
            pack.workflow_id,
          ),
        );
        if (process.env.RECORD_HISTORIES === '1')
          fs.writeFileSync(historyFile, historyToJSON(temporal.api.history.v1.History.create({ events })));
      },
      taskQueue,
    );
  },
);

test.serial('a recorded history of a pack replays against the current workflow code', async (t) => {
  const history = JSON.parse(fs.readFileSync(historyFile, 'utf8'));
  await t.notThrowsAsync(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: testEnvironment().bundlePath } },
      history,
      'recorded-reporting-pack',
    ),
  );
});

/** Waits for a version of a pack, started already, to be stored (or fail). */
async function storedPack(coop: SmallCooperative, pack: { id: string; workflow_id: string }) {
  return untilWorkflow({
    workflowId: pack.workflow_id,
    what: `the reporting pack ${pack.id}`,
    read: async () => {
      const current = await app.request('GET', `${packs}${pack.id}/`, { headers: coop.world.users.direction!.headers });
      return current.body.status === 'running' ? undefined : current.body;
    },
  });
}

type Difference = {
  report: string;
  sheet: string;
  row: string;
  column: string;
  before: string | null;
  after: string | null;
};

/** Reissues a version of a pack, as direction. */
function reissue(coop: SmallCooperative, id: string, json: object) {
  return app.request('POST', `${packs}${id}/reissue/`, { headers: coop.world.users.direction!.headers, json });
}

/** The first version, made while 2026 is open: provisional, and its balance sheet says so. */
async function firstIsProvisional(t: ExecutionContext, coop: SmallCooperative, first: { id: string }) {
  const headers = coop.world.users.direction!.headers;
  t.like(first, {
    status: 'stored',
    version: 1,
    supersedes: null,
    reissue_reason: null,
    provisional: true,
    open_exercices: ['2026'],
    differences: null,
  });
  const firstSheet = (await fileOf(`${packs}${first.id}/files/balance-sheet.csv/`, headers)).bytes.toString('utf8');
  t.true(firstSheet.includes('\r\nProvisoire;soldes reportés par calcul des exercices non clôturés 2026\r\n'));
}

/** 2026's result, hand-computed, moved from the pending result (13) to the profit the closing posted (131). */
function closingMovedTheResult(t: ExecutionContext, coop: SmallCooperative, second: { differences: unknown }) {
  const { expected } = coop;
  const differences = second.differences as Difference[];
  const result = expected.result.toFixed(0);
  t.deepEqual(
    differences.filter(
      (difference) =>
        difference.report === 'trial-balance' &&
        difference.sheet === 'Balance' &&
        difference.column === 'opening_credit',
    ),
    [
      {
        report: 'trial-balance',
        sheet: 'Balance',
        row: '13 | Résultat en instance d’affectation (exercice 2026 non clôturé)',
        column: 'opening_credit',
        before: result,
        after: null,
      },
      {
        report: 'trial-balance',
        sheet: 'Balance',
        row: '131 | Bénéfice de l’exercice',
        column: 'opening_credit',
        before: null,
        after: result,
      },
    ],
  );
  t.false(
    differences.some((difference) => difference.report === 'balance-sheet' && difference.sheet === 'Actif'),
    'the assets did not change',
  );
}

/** The version reissued is kept exactly as it was stored, and refused further reissues. */
async function reissuedKeptAsStored(
  t: ExecutionContext,
  coop: SmallCooperative,
  first: { id: string; files: unknown },
  second: { id: string },
): Promise<void> {
  const headers = coop.world.users.direction!.headers;
  t.deepEqual((await app.request('GET', `${packs}${first.id}/`, { headers })).body.files, first.files);
  await t.throwsAsync(knex('reporting_packs').where({ id: first.id }).update({ failure: 'x' }), {
    message: /is stored/,
  });
  t.like((await reissue(coop, first.id, { reason: 'again please' })).body, {
    status: 409,
    code: 'reporting_pack_superseded',
  });
  t.like((await reissue(coop, second.id, { reason: 'again please' })).body, {
    status: 409,
    code: 'reporting_pack_current',
  });
}

/** A late entry into January: 20 000 of salaries paid from the till on the 20th, posted in February. */
async function postLateSalaries(coop: SmallCooperative, salaries: Money): Promise<void> {
  const { world } = coop;
  await inTransaction(knex, (trx) =>
    postJournalEntry(trx, {
      enterpriseId: world.enterpriseId,
      branchId: world.headOffice,
      entryDate: '2027-01-20',
      description: 'salaries of January, late',
      lines: [
        { account: '6511', debit: salaries, credit: new Money(0) },
        { account: '5710', debit: new Money(0), credit: salaries },
      ],
      createdBy: world.rootId,
    }),
  );
}

test.serial(
  'a pack made while the previous year is open is provisional; reissued once it is closed, and ' +
    'after a late entry: every version kept as stored, the new one says why and what changed',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'RP3');
    const { world } = coop;
    const headers = world.users.direction!.headers;
    await openNextYear(coop);
    await setBusinessDate(world, '2027-02-03');
    await withWorker(
      knex,
      async () => {
        const { pack: first } = await packOf(coop, '2027-01');
        await firstIsProvisional(t, coop, first);

        t.is((await closeYear(coop)).body.closing.status, 'closed');
        t.like((await reissue(coop, first.id, {})).body, { status: 400, errors: [{ field: 'reason' }] });
        t.is(
          (
            await app.request('POST', `${packs}${first.id}/reissue/`, {
              headers: world.users.branch_head!.headers,
              json: { reason: 'closed now' },
            })
          ).status,
          403,
        );
        const requested = await reissue(coop, first.id, {
          reason: '2026 is closed: January carried it by computation',
        });
        t.is(requested.status, 202, requested.text);
        t.like(requested.body, {
          version: 2,
          supersedes: first.id,
          status: 'running',
          workflow_id: `reporting-pack-${world.enterpriseId}-2027-01-v2`,
        });
        const second = await storedPack(coop, requested.body);
        t.like(second, {
          status: 'stored',
          version: 2,
          provisional: false,
          open_exercices: [],
          reissue_reason: '2026 is closed: January carried it by computation',
        });
        closingMovedTheResult(t, coop, second);
        await reissuedKeptAsStored(t, coop, first, second);
        const salaries = new Money(20_000);
        await postLateSalaries(coop, salaries);
        const third = await storedPack(
          coop,
          (await reissue(coop, second.id, { reason: 'January salaries booked late' })).body,
        );
        t.like(third, { version: 3, supersedes: second.id, provisional: false });
        const cash = (third.differences as Difference[]).find(
          (difference) =>
            difference.report === 'balance-sheet' &&
            difference.row.startsWith('A5 |') &&
            difference.column === 'amount',
        )!;
        t.is(new Money(cash.before!).minus(cash.after!).toFixed(0), salaries.toFixed(0), 'the cash 20 000 lower');
        t.like((await app.request('GET', `${packs}?period=2027-01`, { headers })).body, {
          count: 3,
          results: [{ version: 3 }, { version: 2 }, { version: 1 }],
        });
        t.like(await knex('audit_events').where({ action: 'reporting_pack.reissue', entity_id: third.id }).first(), {
          actor_id: world.users.direction!.id,
          details: { version: 3, late_entries: 1 },
        });
      },
      taskQueue,
    );
  },
);
