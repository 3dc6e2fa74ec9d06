import type { Knex } from 'knex';

export interface DatabaseDescription {
  serverVersion: string;
  database: string;
  migrationsApplied: number;
  latestMigration: string | null;
}

/** What the worker sees of its database: proves the worker's own connection and schema, not the API's. */
export async function describeDatabase(knex: Knex): Promise<DatabaseDescription> {
  const server = await knex.raw<{ rows: { version: string; database: string }[] }>(
    `SELECT current_setting('server_version') AS version, current_database() AS database`,
  );
  const migrations = await knex('knex_migrations').select('name').orderBy('id', 'desc');
  return {
    serverVersion: server.rows[0]!.version,
    database: server.rows[0]!.database,
    migrationsApplied: migrations.length,
    latestMigration: (migrations[0]?.name as string | undefined) ?? null,
  };
}
