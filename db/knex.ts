import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// A DATE is a calendar day, not an instant: keep PostgreSQL's 'YYYY-MM-DD' rather than a Date shifted by
// the server's time zone. (NUMERIC already arrives as a string, which money code turns into a Decimal.)
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

export type { Knex };

const migrationsDirectory = path.join(__dirname, 'migrations');

/** `.ts` when run from the sources (tsx: development, tests), `.js` when compiled into dist/ (production). */
const moduleExtension = path.extname(__filename);

/**
 * The migrations of db/migrations, each named as its TypeScript source (`20261122000000_foundation.ts`) whether
 * the running code is the sources or their compiled `.js`: knex_migrations records these names, so a database
 * migrated by either is up to date for the other and nothing runs twice. Only files of the running code's own
 * extension are loaded.
 */
const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    const files = await fs.promises.readdir(migrationsDirectory);
    return files
      .filter((file) => path.extname(file) === moduleExtension)
      .map((file) => `${path.basename(file, moduleExtension)}.ts`)
      .sort(); // knex's own order: by recorded name
  },
  getMigrationName: (name) => name,
  getMigration: (name) =>
    Promise.resolve(
      require(path.join(migrationsDirectory, `${path.basename(name, '.ts')}${moduleExtension}`)) as Knex.Migration,
    ),
};

export interface KnexOptions {
  poolMax?: number;
  /** Tag shown in pg_stat_activity, so operators can tell the API from the worker. */
  applicationName?: string;
  /**
   * How long a query waits for a pooled connection (all busy, or a new one slow to open) before it fails, in ms:
   * a request then answers 503 instead of queueing without end.
   */
  acquireTimeoutMs?: number;
  /** PostgreSQL's statement_timeout for every statement of the pool, in ms; unset: none. */
  statementTimeoutMs?: number;
  /** Where knex's own warnings go (a refused connection, one found dead in the pool); unset: the console. */
  onWarning?: (message: string) => void;
}

const defaultAcquireTimeoutMs = 10_000;

export function createKnex(databaseUrl: string, options: KnexOptions = {}): Knex {
  const acquireTimeoutMs = options.acquireTimeoutMs ?? defaultAcquireTimeoutMs;
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: databaseUrl,
      application_name: options.applicationName ?? 'coopbank',
      // A server that accepts the TCP connection but never answers (hung, half-down) fails the attempt too.
      connectionTimeoutMillis: acquireTimeoutMs,
      ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
    },
    pool: { min: 0, max: options.poolMax ?? 10 },
    migrations: { migrationSource, tableName: 'knex_migrations' },
    acquireConnectionTimeout: acquireTimeoutMs,
    ...(options.onWarning === undefined
      ? {}
      : { log: { warn: options.onWarning, error: options.onWarning, deprecate: options.onWarning } }),
  });
}

/** The advisory lock that lets one process at a time migrate: "COOPMIGR" read as a number. */
const migrationLockKey = 0x434f4f504d494752n;

/**
 * Applies every pending migration; returns the names of those it ran. They run on a connection of their own
 * without the pool's statement_timeout: rewriting a large table may take longer than any request should.
 * Several API processes starting at once (`docker compose up --scale api=2`) take turns on a session advisory
 * lock held on that one connection: knex's own lock table makes the second fail ("already locked") instead of
 * waiting, and the process would then die at start. The next one finds nothing left to run.
 */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const config = knex.client.config as Knex.Config;
  const migrator = knexFactory({
    ...config,
    connection: { ...(config.connection as object), statement_timeout: 0 },
    pool: { min: 1, max: 1 },
  });
  try {
    await migrator.raw('SELECT pg_advisory_lock(?::bigint)', [migrationLockKey.toString()]);
    const [, applied] = (await migrator.migrate.latest()) as [number, string[]];
    await migrator.raw('SELECT pg_advisory_unlock(?::bigint)', [migrationLockKey.toString()]);
    return applied;
  } finally {
    await migrator.destroy();
  }
}
