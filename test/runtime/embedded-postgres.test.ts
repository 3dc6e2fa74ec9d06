import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../runtime/embedded-postgres';
import { freePort } from '../helpers/ports';

// This test starts clusters of its own; the shared one of the run is not touched.
function freshDataDir(t: import('ava').ExecutionContext): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-pg-'));
  fs.chmodSync(parent, 0o755); // reachable by the postgres user when the tests run as root
  t.teardown(() => fs.rmSync(parent, { recursive: true, force: true }));
  return path.join(parent, 'pg');
}

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

test(
  'data survives a restart; a second server on the same data or port is refused with the reason; a restart ' +
    'after a stop works',
  async (t) => {
    const dataDir = freshDataDir(t);
    const password = randomBytes(8).toString('hex');
    const first = await startEmbeddedPostgres({ dataDir, port: await freePort(), password });
    try {
      await query(first.url, "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('still here')");
      const sameData = await t.throwsAsync(startEmbeddedPostgres({ dataDir, port: await freePort(), password }));
      t.regex(
        sameData?.message ?? '',
        /A PostgreSQL server \(pid \d+\) is already running on .*: is another 'npm start' running\?/,
      );
      const samePort = await t.throwsAsync(
        startEmbeddedPostgres({ dataDir: freshDataDir(t), port: Number(new URL(first.url).port), password }),
      );
      t.regex(
        samePort?.message ?? '',
        /PostgreSQL exited \(code \d+\) before it was ready:[\s\S]*Address already in use/,
      );
    } finally {
      await first.stop();
    }
    t.false(fs.existsSync(path.join(dataDir, 'postmaster.pid')), 'a clean stop leaves no lock behind');

    const second = await startEmbeddedPostgres({ dataDir, port: await freePort(), password });
    try {
      const result = await query(second.url, 'SELECT value FROM kept');
      t.deepEqual(result.rows, [{ value: 'still here' }]);
    } finally {
      await second.stop();
    }
  },
);
