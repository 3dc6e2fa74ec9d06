import test from 'ava';
import type { Knex } from '../../db/knex';
import { createTestDatabase } from '../helpers/database';

/**
 * The schema can be distributed by `enterprise_id` without change (issue 32, docs/scaling.md §4): Citus keeps each
 * enterprise's rows on one node, which it can only do if every tenant table carries the column, and if every
 * unique constraint and every foreign key between tenant tables includes it. Read from the migrated database's
 * catalog, so a table added by any migration is checked.
 */

/** Platform rows shared by every enterprise: Citus copies them to every node. Each is small and rarely written. */
const referenceTables: Record<string, string> = {
  enterprises: 'the tenants themselves: every tenant row refers to one',
  account_plans: 'the regulatory plans (PCEMF), shared by every enterprise',
  account_records: 'the accounts of those plans, shared like them',
  journals: 'the journal codes and the events each takes: one list for every enterprise',
  users: 'a person signs in once and may hold roles in several enterprises (role_grants)',
  token_families: 'sign-in sessions of a user, before any enterprise is chosen',
  refresh_tokens: 'sign-in tokens of those sessions',
  login_failures: 'sign-in throttling, keyed by user name and address, before any enterprise is known',
  knex_migrations: 'the migrations run, one list for the whole database',
  knex_migrations_lock: 'the migrations lock, one row for the whole database',
};

/**
 * Tables that still break a rule, each named with why (docs/scaling.md §4, "Left"); the test fails when one is
 * fixed and left here, so the list only shrinks. Their foreign keys to tenant tables do include their enterprise.
 */
const knownGaps: Record<string, string> = {
  audit_events:
    "the platform's own audit rows (sign-ins, users, enterprises) have no enterprise: enterprise_id may be null",
  ledger_chain_heads:
    "the audit chain's head per enterprise, or the nil UUID for the platform's rows: keyed by chain_key",
  ledger_chain_links: 'the links of those chains, keyed by chain_key like their heads',
  role_grants: 'a platform role (administrator) is granted in no enterprise: enterprise_id may be null',
  sequence_counters:
    "a platform counter (the enterprises' own numbers) belongs to no enterprise: enterprise_id may be null",
};

const column = 'enterprise_id';

interface Relation {
  name: string;
  hasColumn: boolean;
  notNull: boolean;
}
interface ForeignKey {
  name: string;
  table: string;
  target: string;
  columns: string[];
  targetColumns: string[];
}
interface UniqueKey {
  name: string;
  table: string;
  columns: string[];
}

const relations = async (knex: Knex): Promise<Relation[]> =>
  (
    await knex.raw<{ rows: Relation[] }>(
      `
  SELECT c.relname AS name, a.attname IS NOT NULL AS "hasColumn", coalesce(a.attnotnull, false) AS "notNull"
  FROM pg_class c
  LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = ? AND NOT a.attisdropped
  WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition`,
      [column],
    )
  ).rows;

const columnNames = (relation: string, numbers: string): string =>
  `ARRAY(SELECT a.attname::text FROM unnest(${numbers}) WITH ORDINALITY u(n, i)
         JOIN pg_attribute a ON a.attrelid = ${relation} AND a.attnum = u.n ORDER BY u.i)`;

const foreignKeys = async (knex: Knex): Promise<ForeignKey[]> =>
  (
    await knex.raw<{ rows: ForeignKey[] }>(`
  SELECT k.conname AS name, k.conrelid::regclass::text AS table, k.confrelid::regclass::text AS target,
         ${columnNames('k.conrelid', 'k.conkey')} AS columns,
         ${columnNames('k.confrelid', 'k.confkey')} AS "targetColumns"
  FROM pg_constraint k WHERE k.connamespace = current_schema()::regnamespace AND k.contype = 'f'`)
  ).rows;

/** Primary keys, unique constraints, unique indexes and exclusion constraints: every index that refuses a row. */
const uniqueKeys = async (knex: Knex): Promise<UniqueKey[]> =>
  (
    await knex.raw<{ rows: UniqueKey[] }>(`
  SELECT ic.relname AS name, i.indrelid::regclass::text AS table,
         ${columnNames('i.indrelid', 'i.indkey::int2[]')} AS columns
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
  LEFT JOIN pg_constraint x ON x.conindid = i.indexrelid AND x.contype = 'x'
  WHERE ic.relnamespace = current_schema()::regnamespace AND (i.indisunique OR x.oid IS NOT NULL)`)
  ).rows;

/** Every rule the catalog breaks, one line each, by the table that breaks it. */
async function violations(knex: Knex): Promise<{ table: string; line: string }[]> {
  const tenant = new Set<string>();
  const found: string[] = [];
  for (const relation of await relations(knex)) {
    if (referenceTables[relation.name] !== undefined) continue;
    tenant.add(relation.name);
    if (!relation.hasColumn) found.push(`${relation.name}: no ${column}`);
    else if (!relation.notNull) found.push(`${relation.name}: ${column} may be null`);
  }
  for (const key of await foreignKeys(knex)) {
    if (!tenant.has(key.table)) {
      if (tenant.has(key.target))
        found.push(`${key.table}.${key.name}: a reference table refers to tenant table ${key.target}`);
      continue;
    }
    if (!tenant.has(key.target)) continue;
    const at = key.columns.indexOf(column);
    if (at < 0 || key.targetColumns[at] !== column)
      found.push(`${key.table}.${key.name}: foreign key without ${column}`);
  }
  for (const key of await uniqueKeys(knex)) {
    if (tenant.has(key.table) && !key.columns.includes(column))
      found.push(`${key.table}.${key.name}: unique without ${column}`);
  }
  return found.sort().map((line) => ({ table: line.replace(/[.:].*$/, ''), line }));
}

test(
  'every tenant table carries enterprise_id, and every ' + 'key and foreign key between tenant tables includes it',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const tables = (await relations(knex)).map(({ name }) => name);
    for (const name of Object.keys(referenceTables)) t.true(tables.includes(name), `reference table ${name} exists`);
    t.true(tables.length > Object.keys(referenceTables).length + 50, `the catalog was read (${tables.length} tables)`);

    const found = await violations(knex);
    const broken = found.filter(({ table }) => knownGaps[table] === undefined).map(({ line }) => line);
    t.deepEqual(broken, [], 'rules broken (fix them, or name the table in knownGaps)');
    const fixed = Object.keys(knownGaps).filter((name) => !found.some(({ table }) => table === name));
    t.deepEqual(fixed, [], 'known gaps now fixed: remove them from knownGaps');
  },
);
