import type { Knex } from 'knex';

/**
 * Issue 32, the distributable schema (docs/scaling.md §4, test/db/distributable-schema.test.ts): every primary key,
 * unique constraint, unique index and foreign key between tenant tables includes `enterprise_id`, as Citus needs to
 * keep each enterprise's rows on one node. Read from the catalog and rewritten by one rule, listed here:
 *
 * - a primary key or unique constraint (and a unique index) gets `enterprise_id` appended, its name kept: a key
 *   `(id)` becomes `(id, enterprise_id)`, so a lookup by `id` alone still uses it, and no index is added;
 * - a foreign key from a tenant table to a tenant table becomes `(enterprise_id, x_id) REFERENCES t (enterprise_id,
 *   id)`, its name and ON DELETE rule kept (a row can no longer point into another enterprise);
 * - a foreign key from a reference table to a tenant table is dropped (`users.import_id`: the import that created a
 *   user stays named, unchecked; a copy on every node cannot point into one node's rows).
 *
 * Tenant tables are the tables with a NOT NULL `enterprise_id`. The migration fails if a table whose keys it would
 * rewrite is not in `rewritten`, or a table is neither tenant, reference nor a named gap: check the new table,
 * then list it.
 */
const column = 'enterprise_id';

const referenceTables = ['enterprises', 'account_plans', 'account_records', 'journals', 'users', 'token_families', 'refresh_tokens',
  'login_failures', 'knex_migrations', 'knex_migrations_lock'];

/**
 * Rows of the platform's own have no enterprise yet (docs/scaling.md §4, "Left"): these tables' keys are left, but
 * their foreign keys to tenant tables are rewritten like the others, by the column that names their enterprise
 * (a NULL one is not checked, as before: the platform's rows point at no tenant row).
 */
const gapTables: Record<string, string> = {
  audit_events: column, ledger_chain_heads: 'chain_key', ledger_chain_links: 'chain_key', role_grants: column, sequence_counters: column,
};

/** The tables whose keys or foreign keys this rewrites (role_grants and ledger_chain_links: their foreign keys only). */
const rewritten = [
  'accounting_rule_configs', 'approval_requests', 'bank_accounts', 'bank_statement_lines', 'bank_statements',
  'branch_days', 'branches', 'business_event_logs', 'cash_settlements', 'client_profiles', 'company_chart_entries',
  'company_charts', 'comptes_clients', 'cooperative_profiles', 'end_of_day_runs', 'end_of_day_steps',
  'enterprise_configurations', 'event_replay_requests', 'event_replay_results', 'exercice_closing_entries',
  'exercice_closings', 'exercices_comptables', 'fixed_asset_categories', 'fixed_asset_depreciations', 'fixed_assets',
  'governance_members', 'governance_organs', 'guarantee_revaluations', 'import_batches', 'import_files',
  'import_problems', 'import_rows', 'import_tie_outs', 'imports', 'inter_branch_operations', 'journal_entries',
  'journal_entry_numbers', 'journal_lines', 'journal_sequences', 'ledger_chain_links', 'liaison_movements',
  'loan_application_decisions', 'loan_applications', 'loan_guarantee_confirmations', 'loan_guarantees',
  'loan_installments', 'loan_interest_accruals', 'loan_officer_assignments', 'loan_prepayments', 'loan_products',
  'loan_provisions', 'loan_recoveries', 'loan_repayments', 'loan_restructurings', 'loan_schedule_versions', 'loans',
  'manual_entries', 'manual_entry_lines', 'member_transfers', 'month_end_entries', 'month_end_runs',
  'month_end_steps', 'off_balance_movements', 'provisioning_runs', 'prudential_settings', 'recurring_entries',
  'recurring_entry_lines', 'recurring_entry_proposals', 'reporting_pack_files', 'reporting_packs',
  'result_allocation_entries', 'result_allocation_policies', 'result_allocations', 'role_grants',
  'savings_interest_accruals', 'savings_interest_postings', 'savings_product_rates', 'savings_products',
  'share_payments', 'share_subscriptions', 'share_types', 'share_withdrawals', 'standing_order_runs',
  'standing_orders', 'supplier_invoice_lines', 'supplier_invoice_reversals', 'supplier_invoices',
  'supplier_payment_allocations', 'supplier_payment_reversals', 'supplier_payments', 'suppliers',
  'term_deposit_early_closures', 'term_deposit_maturities', 'till_sessions', 'till_transfers', 'tills',
  'treasury_transfers', 'usury_rates', 'vault_counts',
];

interface Key { table: string; name: string; definition: string }
interface ForeignKey { table: string; name: string; target: string; columns: string; targetColumns: string; onDelete: string; onUpdate: string }

export async function up(knex: Knex): Promise<void> {
  const tenant = await tenantTables(knex);
  const foreignKeys = await tenantForeignKeys(knex, tenant);
  const keys = await keysWithout(knex, tenant);
  const indexes = await uniqueIndexesWithout(knex, tenant);
  checkExpected(new Set([...foreignKeys, ...keys, ...indexes].map(({ table }) => table)));

  for (const key of await referenceToTenant(knex, tenant)) await knex.raw('ALTER TABLE ?? DROP CONSTRAINT ??', [key.table, key.name]);
  for (const key of foreignKeys) await knex.raw('ALTER TABLE ?? DROP CONSTRAINT ??', [key.table, key.name]);
  for (const key of keys) {
    const widened = key.definition.replace(/\)$/, `, ${column})`);
    await knex.raw(`ALTER TABLE ?? DROP CONSTRAINT ??, ADD CONSTRAINT ?? ${widened}`, [key.table, key.name, key.name]);
  }
  for (const index of indexes) {
    await knex.raw('DROP INDEX ??', [index.name]);
    await knex.raw(index.definition.replace(/( USING btree \([^()]*)\)/, `$1, ${column})`));
  }
  for (const key of foreignKeys) {
    await knex.raw(
      `ALTER TABLE ?? ADD CONSTRAINT ?? FOREIGN KEY (${gapTables[key.table] ?? column}, ${key.columns})
       REFERENCES ?? (${column}, ${key.targetColumns}) ${onDelete(key)}`,
      [key.table, key.name, key.target],
    );
  }
}

export function down(): Promise<void> {
  throw new Error('The keys that included enterprise_id before cannot be told from those this migration widened: restore a backup.');
}

async function tenantTables(knex: Knex): Promise<Set<string>> {
  const { rows } = await knex.raw<{ rows: { name: string; tenant: boolean }[] }>(`
    SELECT c.relname AS name, coalesce(a.attnotnull, false) AS tenant FROM pg_class c
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = ? AND NOT a.attisdropped
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')`, [column]);
  const unknown = rows.filter(({ name, tenant }) => !tenant && !referenceTables.includes(name) && gapTables[name] === undefined);
  if (unknown.length > 0) throw new Error(`Neither tenant, reference nor a named gap: ${unknown.map(({ name }) => name).join(', ')}`);
  return new Set(rows.filter(({ name, tenant }) => tenant && gapTables[name] === undefined).map(({ name }) => name));
}

/** The columns of a constraint's side, quoted, in the constraint's order. */
const columnList = (relation: string, numbers: string): string => `(SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY u.i)
  FROM unnest(${numbers}) WITH ORDINALITY u(n, i) JOIN pg_attribute a ON a.attrelid = ${relation} AND a.attnum = u.n)`;

const withoutColumn = (relation: string, numbers: string): string =>
  `NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = ${relation} AND a.attnum = ANY(${numbers}) AND a.attname = '${column}')`;

async function tenantForeignKeys(knex: Knex, tenant: Set<string>): Promise<ForeignKey[]> {
  const { rows } = await knex.raw<{ rows: ForeignKey[] }>(`
    SELECT k.conrelid::regclass::text AS table, k.conname AS name, k.confrelid::regclass::text AS target,
           ${columnList('k.conrelid', 'k.conkey')} AS columns, ${columnList('k.confrelid', 'k.confkey')} AS "targetColumns",
           k.confdeltype AS "onDelete", k.confupdtype AS "onUpdate"
    FROM pg_constraint k
    WHERE k.connamespace = current_schema()::regnamespace AND k.contype = 'f' AND ${withoutColumn('k.conrelid', 'k.conkey')}
    ORDER BY 1, 2`);
  return rows.filter((key) => (tenant.has(key.table) || gapTables[key.table] !== undefined) && tenant.has(key.target));
}

async function referenceToTenant(knex: Knex, tenant: Set<string>): Promise<Key[]> {
  const { rows } = await knex.raw<{ rows: (Key & { target: string })[] }>(`
    SELECT k.conrelid::regclass::text AS table, k.conname AS name, k.confrelid::regclass::text AS target, '' AS definition
    FROM pg_constraint k WHERE k.connamespace = current_schema()::regnamespace AND k.contype = 'f'`);
  return rows.filter((key) => referenceTables.includes(key.table) && tenant.has(key.target));
}

/** Primary keys and unique constraints without the column; each definition is `… (a, b)`, nothing after. */
async function keysWithout(knex: Knex, tenant: Set<string>): Promise<Key[]> {
  const { rows } = await knex.raw<{ rows: Key[] }>(`
    SELECT k.conrelid::regclass::text AS table, k.conname AS name, pg_get_constraintdef(k.oid) AS definition
    FROM pg_constraint k
    WHERE k.connamespace = current_schema()::regnamespace AND k.contype IN ('p', 'u') AND ${withoutColumn('k.conrelid', 'k.conkey')}
    ORDER BY 1, 2`);
  const keys = rows.filter((key) => tenant.has(key.table));
  const odd = keys.find((key) => !/^(PRIMARY KEY|UNIQUE( NULLS NOT DISTINCT)?) \([^()]+\)$/.test(key.definition));
  if (odd !== undefined) throw new Error(`Unexpected key ${odd.table}.${odd.name}: ${odd.definition}`);
  return keys;
}

/** Unique indexes that are no constraint (partial ones), on plain columns. */
async function uniqueIndexesWithout(knex: Knex, tenant: Set<string>): Promise<Key[]> {
  const { rows } = await knex.raw<{ rows: Key[] }>(`
    SELECT i.indrelid::regclass::text AS table, c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND i.indisunique
      AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
      AND ${withoutColumn('i.indrelid', 'i.indkey::int2[]')}
    ORDER BY 1, 2`);
  const indexes = rows.filter((index) => tenant.has(index.table));
  const odd = indexes.find((index) => !/ USING btree \([^()]+\)/.test(index.definition));
  if (odd !== undefined) throw new Error(`Unexpected unique index ${odd.name}: ${odd.definition}`);
  return indexes;
}

function checkExpected(found: Set<string>): void {
  const expected = new Set(rewritten);
  const unlisted = [...found].filter((table) => !expected.has(table));
  if (unlisted.length > 0) throw new Error(`Keys to rewrite on tables not listed in this migration: ${unlisted.sort().join(', ')}`);
}

/** The same rule as before; SET NULL clears the referring column only, never the row's enterprise. */
function onDelete(key: ForeignKey): string {
  if (key.onUpdate !== 'a') throw new Error(`${key.table}.${key.name}: an ON UPDATE rule this migration does not re-create`);
  const rules: Record<string, string> = { a: '', r: 'ON DELETE RESTRICT', c: 'ON DELETE CASCADE', n: `ON DELETE SET NULL (${key.columns})` };
  const rule = rules[key.onDelete];
  if (rule === undefined) throw new Error(`${key.table}.${key.name}: ON DELETE '${key.onDelete}' is not re-created here`);
  return rule;
}
