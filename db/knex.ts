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
  getMigration: (name) => Promise.resolve(require(path.join(migrationsDirectory, `${path.basename(name, '.ts')}${moduleExtension}`)) as Knex.Migration),
};

export interface KnexOptions {
  poolMax?: number;
  /** Tag shown in pg_stat_activity, so operators can tell the API from the worker. */
  applicationName?: string;
}

export function createKnex(databaseUrl: string, options: KnexOptions = {}): Knex {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: databaseUrl, application_name: options.applicationName ?? 'coopbank' },
    pool: { min: 0, max: options.poolMax ?? 10 },
    migrations: { migrationSource, tableName: 'knex_migrations' },
    // Connection attempts fail within seconds so a wrong DATABASE_URL is reported instead of hanging.
    acquireConnectionTimeout: 10_000,
  });
}

/** Applies every pending migration; returns the names of those it ran. */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest()) as [number, string[]];
  return applied;
}
