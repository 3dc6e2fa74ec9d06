import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ActivityContext } from '../activities/context';
import { createKnex, migrateToLatest, type Knex } from '../db/knex';
import { startEmbeddedPostgres } from '../runtime/embedded-postgres';
import { freePort } from '../test/helpers/ports';

/**
 * A migrated PostgreSQL of the benchmark's own (a fresh embedded cluster, thrown away afterwards), so that
 * figures do not depend on what else ran. `poolMax` sizes the pool for concurrent writers.
 */
export async function withBenchDatabase<T>(work: (knex: Knex, url: string) => Promise<T>, poolMax = 10): Promise<T> {
  // Under /tmp and world-traversable: when run as root, PostgreSQL runs as the `postgres` user.
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-bench-'));
  fs.chmodSync(workDir, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(workDir, 'pg'), port: await freePort(), password: randomBytes(16).toString('hex') });
  const knex = createKnex(postgres.url, { poolMax }); // the cluster is thrown away afterwards: its maintenance database will do
  try {
    await migrateToLatest(knex);
    return await work(knex, postgres.url);
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
