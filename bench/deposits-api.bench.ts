import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import { hashPassword } from '../activities/auth/passwords';
import type { Actor } from '../activities/context';
import { round, type Benchmark } from './benchmark';
import { withBenchDatabase } from './bench-database';
import { measureLedgerPosting, newEnterprise } from './ledger-posting.bench';
import { runLoad } from './load';
import { startServerProcess } from './server-process';

const clients = 16;
export const tellerPassword = 'bench password 123';

/**
 * Cash deposits per second through the HTTP API (authentication from the database, validation, account
 * lock, balance, event, entry, all in the real app in its own process) with 16 concurrent clients, each
 * on its own member account; beside the raw recordBusinessEvent rate with 16 writers on the same database
 * in the same run. The ratio is what the API layer costs.
 */
export const depositsApiBenchmark: Benchmark = {
  name: 'deposits-api',
  run: () => withBenchDatabase(measure, clients + 4),
};

async function measure(knex: Knex, url: string) {
  const enterpriseId = await newEnterprise(knex);
  const { accounts } = await seedAccounts(knex, enterpriseId, clients);
  const jwtSecret = randomBytes(32).toString('hex');
  const server = await startServerProcess('servers/koa-app.ts', { BENCH_DATABASE_URL: url, BENCH_JWT_SECRET: jwtSecret });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const token = await fetch(`${base}/api/v1/token/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'teller', password: tellerPassword }) });
    if (!token.ok) throw new Error(`sign-in failed: ${token.status} ${await token.text()}`);
    const { access } = (await token.json()) as { access: string };
    const cpuBefore = await server.cpuMicros();
    const api = await runLoad({
      url: (connection) => `${base}/api/v1/members/accounts/${accounts[connection]}/deposits/`,
      method: 'POST',
      headers: { authorization: `Bearer ${access}` },
      body: JSON.stringify({ amount: '2500', reference: 'bench' }),
      connections: clients,
      warmupMs: 1000,
      durationMs: 5000,
      requestTimeoutMs: 5000,
      maxSamples: 200_000,
    });
    // Includes the warm-up second: an upper bound of the API process's own CPU per deposit.
    const serverCpuMicrosPerDeposit = ((await server.cpuMicros()) - cpuBefore) / Math.max(1, api.requests);
    const ledger = await measureLedgerPosting(knex, enterpriseId, clients);
    const mismatched = await knex.raw(`
      SELECT count(*)::int AS n FROM comptes_clients a
      WHERE a.balance <> (SELECT coalesce(sum(l.credit - l.debit), 0) FROM business_event_logs ev JOIN journal_entries e ON e.event_id = ev.id
        JOIN journal_lines l ON l.entry_id = e.id JOIN company_chart_entries c ON c.id = l.chart_entry_id AND c.code = '373' WHERE ev.subject_id = a.id)`);
    const result = {
      name: 'deposits-api',
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.availableParallelism(),
      clients,
      api: {
        deposits: api.requests,
        errors: api.errors,
        perSecond: round(api.rps, 1),
        p50Ms: round(api.p50Ms, 2),
        p99Ms: round(api.p99Ms, 2),
        serverCpuMicrosPerDeposit: round(serverCpuMicrosPerDeposit, 0),
      },
      ledger: { perSecond: ledger.perSecond, p50Ms: ledger.p50Ms, p99Ms: ledger.p99Ms, failures: ledger.failures },
      ratio: { throughput: round(api.rps / ledger.perSecond, 3) },
      accountsOutOfBalance: mismatched.rows[0].n as number,
      notes: [
        'API: the production app (createApp, info-level logging to /dev/null) in its own Node process; 16 keep-alive clients in this process, each depositing on its own account, Bearer token.',
        'ledger: recordBusinessEvent with 16 writers in this process, same database, right after.',
        'One embedded PostgreSQL (default settings) for both, on the same 2-core machine: the three compete for CPU.',
      ],
    };
    const summary = `API deposits ${result.api.perSecond}/s (p50 ${result.api.p50Ms} ms, p99 ${result.api.p99Ms} ms, API process ${result.api.serverCpuMicrosPerDeposit} µs CPU each) vs ledger ${ledger.perSecond}/s: ratio ${result.ratio.throughput}; accounts out of balance: ${result.accountsOutOfBalance}`;
    return { result, summary };
  } finally {
    await server.stop();
  }
}

/** A teller (cashier of the whole enterprise), a savings product on 373, and one member with `count` open accounts. */
export async function seedAccounts(knex: Knex, enterpriseId: string, count: number): Promise<{ accounts: string[]; teller: Actor }> {
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id', 'code')) as { id: string; code: string };
  const [teller] = await knex('users').insert({ username: 'teller', password_hash: await hashPassword(tellerPassword), full_name: 'Teller' }).returning('id');
  await knex('role_grants').insert({ user_id: teller.id, role: 'cashier', enterprise_id: enterpriseId, branch_id: null });
  const [product] = await knex('savings_products').insert({ enterprise_id: enterpriseId, code: 'EPA', name: 'Épargne', kind: 'demand_deposit', deposit_account_code: '373' }).returning('id');
  const [client] = await knex('client_profiles')
    .insert({ enterprise_id: enterpriseId, branch_id: branch.id, member_number: 'BENCH-1', kind: 'natural_person', first_name: 'Bench', last_name: 'Member', id_document_type: 'national_id', id_document_number: 'BENCH1', birth_date: '1990-01-01', membership_date: '2026-01-01', created_by: teller.id })
    .returning('id');
  const rows = await knex('comptes_clients')
    .insert(Array.from({ length: count }, (_, index) => ({ enterprise_id: enterpriseId, branch_id: branch.id, client_id: client.id, product_id: product.id, number: `${branch.code}-EPA-${index}`, opened_on: '2026-01-01' })))
    .returning('id');
  return { accounts: rows.map((row) => row.id as string), teller: { userId: teller.id as string, grants: [{ role: 'cashier', enterpriseId, branchId: null }], requestId: 'bench' } };
}
