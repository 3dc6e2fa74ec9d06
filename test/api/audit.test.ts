import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { recordBusinessEvent } from '../../activities/events/record-business-event';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

/**
 * Issue 27: the audit trail read through the API (scoped, filtered, exported), append-only; the hash chains of
 * the journal entries and of the audit rows, recomputed by the verification, which names a row edited behind the
 * database's back; the auditor reads and changes nothing.
 */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let root: Record<string, string>;
const now = new Date('2026-11-22T09:00:00Z');

async function newEnterprise(code: string) {
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: { code, name: `Coop ${code}`, legal_form: 'C', country: 'CM' },
  });
  const headOffice = (await knex('branches').where({ enterprise_id: created.body.id }).first('id')).id as string;
  return { id: created.body.id as string, headOffice };
}

const deposit = (enterpriseId: string, branchId: string, amount: string, key: string) =>
  inTransaction(knex, (trx) =>
    recordBusinessEvent(trx, now, {
      enterpriseId,
      branchId,
      kind: 'deposit',
      amount: new Money(amount),
      payload: { key },
      idempotencyKey: key,
      actorId: null,
    }),
  );

const verification = async (enterpriseId: string, headers = root) =>
  app.request('GET', `/api/v1/enterprise/ledger/verification/?enterprise=${enterpriseId}`, { headers });

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, clock: () => now });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  root = await bearer(app, 'root');
});

/** The trail filtered by user, kind and resource, and by dates; a reversed date range is refused. */
async function assertFilters(
  t: ExecutionContext,
  ownId: string,
  directionId: string,
  latest: { id: string; resource: { id: string } },
  auditor: Record<string, string>,
) {
  const byUser = await app.request(
    'GET',
    `/api/v1/audit/events/?enterprise=${ownId}&user=${directionId}&kind=configuration.update` +
      `&resource_type=configuration&resource_id=${latest.resource.id}`,
    { headers: auditor },
  );
  t.deepEqual(
    byUser.body.results.map((row: { id: string }) => row.id),
    [latest.id],
  );
  t.is(
    (
      await app.request('GET', `/api/v1/audit/events/?enterprise=${ownId}&date_from=2000-01-01&date_to=2000-12-31`, {
        headers: auditor,
      })
    ).body.count,
    0,
  );
  t.is(
    (
      await app.request('GET', `/api/v1/audit/events/?enterprise=${ownId}&date_from=2026-01-02&date_to=2026-01-01`, {
        headers: auditor,
      })
    ).status,
    400,
  );
}

/** The CSV export: UTF-8 with its BOM, a title block, then one line per event. */
async function assertCsvExport(t: ExecutionContext, ownId: string, latestId: string, auditor: Record<string, string>) {
  const csv = await fetch(`${app.baseUrl}/api/v1/audit/events/?enterprise=${ownId}&format=csv`, {
    headers: auditor,
  });
  t.is(csv.status, 200);
  t.is(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  const text = Buffer.from(await csv.arrayBuffer()).toString('utf8');
  t.true(text.startsWith("\uFEFFRapport;Journal d'audit\r\nEntreprise;AUD1;"), text.slice(0, 80));
  const lines = text.split('\r\n');
  t.true(
    lines.some(
      (line) =>
        line.startsWith(`${latestId};`) &&
        line.includes(';aud-direction;configuration.update;configuration;') &&
        line.includes('203.0.113.9'),
    ),
    text,
  );
}

test(
  'the audit trail: who, what, from where, with which request, ' + 'before and after; filtered, scoped, newest first',
  async (t) => {
    const own = await newEnterprise('AUD1');
    const foreign = await newEnterprise('AUD2');
    const directionId = await createUser(knex, 'aud-direction', [
      { role: 'direction', enterpriseId: own.id, branchId: null },
    ]);
    await createUser(knex, 'aud-auditor', [{ role: 'auditor', enterpriseId: own.id, branchId: null }]);
    await createUser(knex, 'aud-cashier', [{ role: 'cashier', enterpriseId: own.id, branchId: own.headOffice }]);
    await createUser(knex, 'aud-foreign', [{ role: 'direction', enterpriseId: foreign.id, branchId: null }]);
    const direction = await bearer(app, 'aud-direction', '10.27.0.1');
    const auditor = await bearer(app, 'aud-auditor', '10.27.0.2');
    const requestId = 'f27a0c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b';
    const changed = await app.request('PATCH', `/api/v1/enterprise/enterprises/${own.id}/configuration/`, {
      headers: { ...direction, 'x-forwarded-for': '203.0.113.9', 'x-request-id': requestId },
      json: { provisioning_hour: 4 },
    });
    t.is(changed.status, 200);

    const list = await app.request('GET', `/api/v1/audit/events/?enterprise=${own.id}`, { headers: auditor });
    t.is(list.status, 200);
    const [latest] = list.body.results;
    t.like(latest, {
      kind: 'configuration.update',
      user: { id: directionId, username: 'aud-direction' },
      resource: { type: 'configuration' },
      enterprise: own.id,
      address: '203.0.113.9',
    });
    t.is(latest.request_id, requestId);
    t.deepEqual([latest.before, latest.after], [{ provisioningHour: 2 }, { provisioningHour: 4 }]);
    const times = list.body.results.map((row: { occurred_at: string }) => row.occurred_at);
    t.deepEqual(times, [...times].sort().reverse(), 'newest first');
    t.true(
      list.body.results.every((row: { enterprise: string }) => row.enterprise === own.id),
      'only the enterprise asked for',
    );

    await assertFilters(t, own.id, directionId, latest, auditor);

    // Cashiers do not read the trail; another enterprise's direction does not learn it exists.
    t.is(
      (
        await app.request('GET', `/api/v1/audit/events/?enterprise=${own.id}`, {
          headers: await bearer(app, 'aud-cashier', '10.27.0.3'),
        })
      ).status,
      403,
    );
    t.is(
      (
        await app.request('GET', `/api/v1/audit/events/?enterprise=${own.id}`, {
          headers: await bearer(app, 'aud-foreign', '10.27.0.4'),
        })
      ).status,
      404,
    );

    await assertCsvExport(t, own.id, latest.id, auditor);
  },
);

test('audit rows are append-only in the database', async (t) => {
  const [{ id: row }] = await knex('audit_events')
    .insert({ action: 'test.row', entity_type: 'test', details: '{}' })
    .returning('id');
  await t.throwsAsync(knex('audit_events').where({ id: row }).update({ action: 'nothing' }), {
    message: /append-only/,
  });
  await t.throwsAsync(knex('audit_events').where({ id: row }).del(), { message: /append-only/ });
});

test(
  'the chains verify, postings committed concurrently included; ' +
    'an entry or audit row edited behind the triggers is named',
  async (t) => {
    const enterprise = await newEnterprise('AUD3');
    await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        deposit(enterprise.id, enterprise.headOffice, String(1000 + index), `chain-${index}`),
      ),
    );
    const clean = await verification(enterprise.id);
    t.is(clean.status, 200);
    t.true(clean.body.verified, JSON.stringify(clean.body));
    const entries = Number(
      (await knex('journal_entries').where({ enterprise_id: enterprise.id }).count({ n: '*' }))[0]!.n,
    );
    const audits = Number((await knex('audit_events').where({ enterprise_id: enterprise.id }).count({ n: '*' }))[0]!.n);
    t.like(clean.body.chains[0], {
      chain: 'journal_entries',
      rows: entries,
      verified: true,
      first_mismatch: null,
      message: `All ${entries} journal entries verified.`,
    });
    t.like(clean.body.chains[1], { chain: 'audit_events', rows: audits, verified: true });
    t.true(entries >= 12 && audits >= 1);
    t.regex(clean.body.chains[0].head_hash, /^[0-9a-f]{64}$/);
    t.deepEqual(clean.body.month_totals, {
      verified: true,
      gaps: 0,
      first_gap: null,
      message: 'The month totals equal the lines.',
    });

    const [, victim] = await knex('journal_entries')
      .where({ enterprise_id: enterprise.id })
      .join('ledger_chain_links as l', 'l.entry_id', 'journal_entries.id')
      .orderBy('l.position')
      .pluck('journal_entries.id');
    const [auditVictim] = await knex('audit_events').where({ enterprise_id: enterprise.id }).orderBy('id').pluck('id');
    await knex.transaction(async (trx) => {
      // What only someone past the application and the database's own refusals can do.
      await trx.raw('SET LOCAL session_replication_role = replica');
      await trx('journal_lines')
        .where({ entry_id: victim })
        .update({
          debit: trx.raw('CASE WHEN debit > 0 THEN debit + 1 ELSE 0 END'),
          credit: trx.raw('CASE WHEN credit > 0 THEN credit + 1 ELSE 0 END'),
        });
      await trx('audit_events')
        .where({ id: auditVictim })
        .update({ details: JSON.stringify({ edited: true }) });
    });
    const tampered = await verification(enterprise.id);
    t.false(tampered.body.verified);
    t.like(tampered.body.chains[0].first_mismatch, {
      position: 2,
      id: victim,
      reason: 'the row or its hash was altered',
    });
    t.like(tampered.body.chains[1].first_mismatch, { position: 1, id: String(auditVictim) });
    t.regex(tampered.body.chains[0].message, new RegExp(`^Journal entry ${victim} \\(link 2\\): `));
    // The victim's lines each grew by 1: their accounts' month totals no longer equal them.
    t.like(tampered.body.month_totals, { verified: false, gaps: 2 });

    // Another enterprise's chains are untouched; the auditor reads the verification, a cashier does not.
    const other = await newEnterprise('AUD4');
    await deposit(other.id, other.headOffice, '500', 'other-1');
    await createUser(knex, 'aud4-auditor', [{ role: 'auditor', enterpriseId: other.id, branchId: null }]);
    await createUser(knex, 'aud4-cashier', [{ role: 'cashier', enterpriseId: other.id, branchId: other.headOffice }]);
    t.true((await verification(other.id, await bearer(app, 'aud4-auditor', '10.27.1.1'))).body.verified);
    t.is((await verification(other.id, await bearer(app, 'aud4-cashier', '10.27.1.2'))).status, 403);
  },
);

// Serial: the trigger is disabled for the whole table a moment, and ava runs serial tests before the others.
test.serial('an entry slipped in with the chain trigger disabled is named as unchained', async (t) => {
  const enterprise = await newEnterprise('AUD5');
  await deposit(enterprise.id, enterprise.headOffice, '700', 'slip-1');
  await knex.raw('ALTER TABLE journal_entries DISABLE TRIGGER journal_entries_chained');
  try {
    await deposit(enterprise.id, enterprise.headOffice, '800', 'slip-2');
  } finally {
    await knex.raw('ALTER TABLE journal_entries ENABLE TRIGGER journal_entries_chained');
  }
  const slipped = await knex('journal_entries')
    .where({ enterprise_id: enterprise.id })
    .whereNotExists((sub) => sub.select(1).from('ledger_chain_links as l').whereRaw('l.entry_id = journal_entries.id'))
    .first('id');
  const answer = await verification(enterprise.id);
  t.like(answer.body.chains[0], {
    verified: false,
    first_mismatch: { position: null, id: slipped.id, reason: 'the row is in no link of the chain' },
  });
});

test("the auditor role is granted through the users' routes, and the grant is in the trail", async (t) => {
  const enterprise = await newEnterprise('AUD6');
  const userId = await createUser(knex, 'aud6-auditor');
  const granted = await app.request('POST', `/api/v1/auth/users/${userId}/roles/`, {
    headers: { ...root, 'x-forwarded-for': '198.51.100.7' },
    json: { role: 'auditor', enterprise: enterprise.id, branch: null },
  });
  t.is(granted.status, 201);
  t.is(granted.body.role, 'auditor');
  const auditor = await bearer(app, 'aud6-auditor', '10.27.2.1');
  const trail = await app.request('GET', `/api/v1/audit/events/?enterprise=${enterprise.id}&kind=user.grant_role`, {
    headers: auditor,
  });
  t.is(trail.status, 200);
  t.like(trail.body.results[0], {
    resource: { type: 'user', id: userId },
    address: '198.51.100.7',
    details: { role: 'auditor' },
  });
  // Reads yes, changes no.
  t.is(
    (await app.request('GET', `/api/v1/enterprise/enterprises/${enterprise.id}/configuration/`, { headers: auditor }))
      .status,
    200,
  );
  t.is(
    (
      await app.request('PATCH', `/api/v1/enterprise/enterprises/${enterprise.id}/configuration/`, {
        headers: auditor,
        json: { provisioning_hour: 5 },
      })
    ).status,
    403,
  );
});

test(
  'an auditor is granted over the whole enterprise only: a branch ' +
    'grant is refused, 422 naming the branch, nothing written',
  async (t) => {
    const enterprise = await newEnterprise('AUD7');
    const userId = await createUser(knex, 'aud7-auditor');
    const refused = await app.request('POST', `/api/v1/auth/users/${userId}/roles/`, {
      headers: root,
      json: { role: 'auditor', enterprise: enterprise.id, branch: enterprise.headOffice },
    });
    t.is(refused.status, 422);
    t.like(refused.body, { code: 'auditor_grant_whole_enterprise', errors: [{ field: 'branch' }] });
    const created = await app.request('POST', '/api/v1/auth/users/', {
      headers: root,
      json: {
        username: 'aud7-new',
        full_name: 'Aud Seven',
        email: 'aud7@example.org',
        roles: [{ role: 'auditor', enterprise: enterprise.id, branch: enterprise.headOffice }],
      },
    });
    t.is(created.status, 422);
    t.like(created.body, { code: 'auditor_grant_whole_enterprise', errors: [{ field: 'roles[0].branch' }] });
    t.is(await knex('users').where({ username: 'aud7-new' }).first(), undefined);
    t.is(Number((await knex('role_grants').where({ user_id: userId }).count({ n: '*' }))[0]!.n), 0);
  },
);

test('a change of a row is audited with the values it replaced and wrote, the changed fields only', async (t) => {
  const enterprise = await newEnterprise('AUD8');
  const latest = async (kind: string) =>
    (await app.request('GET', `/api/v1/audit/events/?enterprise=${enterprise.id}&kind=${kind}`, { headers: root })).body
      .results[0];

  t.is(
    (
      await app.request('PATCH', `/api/v1/enterprise/enterprises/${enterprise.id}/`, {
        headers: root,
        json: { name: 'Coop Huit' },
      })
    ).status,
    200,
  );
  t.like(await latest('enterprise.update'), { before: { name: 'Coop AUD8' }, after: { name: 'Coop Huit' } });
  t.deepEqual(Object.keys((await latest('enterprise.update')).after), ['name'], 'only the field changed');

  t.is(
    (
      await app.request('PATCH', `/api/v1/enterprise/branches/${enterprise.headOffice}/`, {
        headers: root,
        json: { city: 'Douala' },
      })
    ).status,
    200,
  );
  t.deepEqual(await latest('branch.update').then((row) => [row.before, row.after]), [{ city: '' }, { city: 'Douala' }]);

  const userId = await createUser(knex, 'aud8-cashier', [
    { role: 'cashier', enterpriseId: enterprise.id, branchId: enterprise.headOffice },
  ]);
  t.is((await app.request('POST', `/api/v1/auth/users/${userId}/deactivate/`, { headers: root })).status, 200);
  const deactivated = await knex('audit_events')
    .where({ entity_id: userId, action: 'user.deactivate' })
    .first('before', 'after');
  t.deepEqual([deactivated.before, deactivated.after], [{ isActive: true }, { isActive: false }]);
});
