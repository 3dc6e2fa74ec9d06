import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ActivityContext } from '../activities/context';
import { createKnex, migrateToLatest, type Knex } from '../db/knex';
import { startEmbeddedPostgres } from '../runtime/embedded-postgres';
import { freePort } from '../test/helpers/ports';
import type { BenchmarkReport } from './benchmark';
import { measurePgbench, type PgbenchReference } from './pgbench';

/**
 * A migrated PostgreSQL of the benchmark's own (a fresh embedded cluster, thrown away afterwards), so that
 * figures do not depend on what else ran. `poolMax` sizes the pool for concurrent writers. The real pgbench
 * runs against it first: its figure goes into the benchmark's JSON and is the reference of its ratios.
 */
export async function withBenchDatabase(
  work: (knex: Knex, url: string, pgbench: PgbenchReference) => Promise<BenchmarkReport>,
  poolMax = 10,
): Promise<BenchmarkReport> {
  // Under /tmp and world-traversable: when run as root, PostgreSQL runs as the `postgres` user.
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-bench-'));
  fs.chmodSync(workDir, 0o755);
  const postgres = await startEmbeddedPostgres({
    dataDir: path.join(workDir, 'pg'),
    port: await freePort(),
    password: randomBytes(16).toString('hex'),
  });
  // The cluster is thrown away afterwards: its maintenance database will do.
  const knex = createKnex(postgres.url, { poolMax });
  try {
    await migrateToLatest(knex);
    const pgbench = await measurePgbench(knex, postgres.url);
    const report = await work(knex, postgres.url, pgbench);
    return { ...report, result: { ...report.result, pgbench } };
  } finally {
    await knex.destroy();
    await postgres.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** What activities called directly by a benchmark receive: no token is ever signed with these settings. */
export const benchActivityContext = (knex: Knex): ActivityContext => ({
  knex,
  clock: () => new Date(),
  auth: { jwtSecret: 'unused'.repeat(8), accessTokenTtlSeconds: 60, refreshTokenTtlSeconds: 60, sessionTtlSeconds: 60 },
});
