import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createKnex, type Knex } from '../../db/knex';
import type { Teardown } from './teardown';
import { templateDatabase, testEnvironment } from './environment';

export interface TestDatabase {
  knex: Knex;
  url: string;
}

/**
 * A fresh, migrated database of its own, cloned from the run's template in a few tens of milliseconds, and
 * dropped when the test file ends. `empty`: not migrated, for a test of what migrates it. `migratedBefore`: every
 * migration before the one named, for a test of an older migration that the later ones no longer let run again
 * (its `up` names a key that is now wider); the test migrates the rest itself.
 */
export async function createTestDatabase(
  scope: Teardown,
  options: { empty?: boolean; migratedBefore?: string } = {},
): Promise<TestDatabase> {
  const { postgresUrl } = testEnvironment();
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const fromTemplate = options.empty !== true && options.migratedBefore === undefined;
  await maintenance(postgresUrl, `CREATE DATABASE ${name}${fromTemplate ? ` TEMPLATE ${templateDatabase}` : ''}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const knex = createKnex(url.toString());
  scope.teardown(async () => {
    await knex.destroy();
    await maintenance(postgresUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  if (options.migratedBefore !== undefined) await migrateBefore(knex, options.migratedBefore);
  return { knex, url: url.toString() };
}

/** The migration that widened every key to include enterprise_id: older migrations' tests run before it, then it. */
export const keysIncludeEnterprise = '20261207400100_keys_include_enterprise';

async function migrateBefore(knex: Knex, before: string): Promise<void> {
  const source = (knex.client.config as Knex.Config).migrations!.migrationSource!;
  const earlier = async (extensions: readonly string[]) =>
    (await source.getMigrations(extensions)).filter((migration) => source.getMigrationName(migration) < before);
  await knex.migrate.latest({ migrationSource: { ...source, getMigrations: earlier } });
}

async function maintenance(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
