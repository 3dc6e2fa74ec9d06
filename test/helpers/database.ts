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
 * dropped when the test file ends. `empty`: not migrated, for a test of what migrates it.
 */
export async function createTestDatabase(scope: Teardown, options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const { postgresUrl } = testEnvironment();
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await maintenance(postgresUrl, `CREATE DATABASE ${name}${options.empty === true ? '' : ` TEMPLATE ${templateDatabase}`}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const knex = createKnex(url.toString());
  scope.teardown(async () => {
    await knex.destroy();
    await maintenance(postgresUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  return { knex, url: url.toString() };
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
