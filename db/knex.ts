import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// A DATE is a calendar day, not an instant: keep PostgreSQL's 'YYYY-MM-DD' rather than a Date shifted by
// the server's time zone. (NUMERIC already arrives as a string, which money code turns into a Decimal.)
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

export type { Knex };

const migrationsDirectory = path.join(__dirname, 'migrations');

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
    migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
    // Connection attempts fail within seconds so a wrong DATABASE_URL is reported instead of hanging.
    acquireConnectionTimeout: 10_000,
  });
}

/** Applies every pending migration; returns the names of those it ran. */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest()) as [number, string[]];
  return applied;
}
