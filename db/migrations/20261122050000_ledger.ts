import type { Knex } from 'knex';
import { addStandardColumns } from '../migration-helpers';

/**
 * The ledger: accounting rules (versioned), the business event log, journal entries and their lines.
 * Everything here is append-only; the database itself refuses an update or delete of a posted row and
 * refuses to commit an entry whose debits and credits differ.
 */
export async function up(knex: Knex): Promise<void> {
  // A new version per change: entries keep the version that produced them.
  await knex.schema.createTable('accounting_rule_configs', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('kind', 40).notNullable();
    table.integer('version').notNullable();
    table.jsonb('legs').notNullable();
    table.boolean('is_active').notNullable();
    table.uuid('created_by').references('users.id');
    table.string('reason', 500).notNullable().defaultTo('');
    table.unique(['enterprise_id', 'kind', 'version'], { indexName: 'accounting_rule_configs_version_unique' });
  });

  await knex.schema.createTable('business_event_logs', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').references('branches.id');
    table.string('kind', 40).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.jsonb('payload').notNullable().defaultTo('{}');
    // The product's accounts for roles at the time of the event: a replay must resolve roles as it was.
    table.jsonb('product_accounts').notNullable().defaultTo('{}');
    table.date('business_date').notNullable();
    table.uuid('actor_id').references('users.id');
    table.string('idempotency_key', 200).notNullable();
    table.string('request_hash', 64).notNullable();
    table.unique(['enterprise_id', 'idempotency_key'], { indexName: 'business_event_logs_idempotency_unique' });
    table.check('amount > 0', [], 'business_event_logs_amount_positive');
  });
  await knex.raw('CREATE INDEX business_event_logs_enterprise_date ON business_event_logs (enterprise_id, business_date, kind)');

  await knex.schema.createTable('journal_entries', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('exercice_id').notNullable().references('exercices_comptables.id');
    table.uuid('branch_id').references('branches.id');
    table.date('entry_date').notNullable();
    table.uuid('event_id').references('business_event_logs.id');
    table.uuid('rule_config_id').references('accounting_rule_configs.id');
    table.uuid('reverses_entry_id').references('journal_entries.id');
    table.string('description', 500).notNullable().defaultTo('');
    table.uuid('created_by').references('users.id');
  });
  await knex.raw('CREATE INDEX journal_entries_enterprise_date ON journal_entries (enterprise_id, entry_date)');
  await knex.raw('CREATE INDEX journal_entries_event ON journal_entries (event_id)');
  // A given entry is reversed at most once.
  await knex.raw('CREATE UNIQUE INDEX journal_entries_reversed_once ON journal_entries (reverses_entry_id) WHERE reverses_entry_id IS NOT NULL');

  await knex.schema.createTable('journal_lines', (table) => {
    table.bigIncrements('id');
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.uuid('chart_entry_id').notNullable().references('company_chart_entries.id');
    table.decimal('debit', 20, 0).notNullable().defaultTo(0);
    table.decimal('credit', 20, 0).notNullable().defaultTo(0);
    table.check('debit >= 0 AND credit >= 0 AND (debit = 0) <> (credit = 0)', [], 'journal_lines_one_positive_side');
  });
  await knex.raw('CREATE INDEX journal_lines_entry ON journal_lines (entry_id)');
  await knex.raw('CREATE INDEX journal_lines_account ON journal_lines (chart_entry_id, entry_id)');

  // Checked at COMMIT (deferred), once all lines of the entry are in: debits = credits, at least two lines,
  // every account in the entry's enterprise.
  await knex.raw(`
    CREATE FUNCTION coopbank_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      unbalanced record;
    BEGIN
      SELECT e.id, coalesce(sum(l.debit), 0) AS debit, coalesce(sum(l.credit), 0) AS credit, count(l.id) AS lines,
             count(*) FILTER (WHERE c.enterprise_id <> e.enterprise_id) AS foreign_accounts
        INTO unbalanced
        FROM journal_entries e
        LEFT JOIN journal_lines l ON l.entry_id = e.id
        LEFT JOIN company_chart_entries c ON c.id = l.chart_entry_id
       WHERE e.id = NEW.entry_id
       GROUP BY e.id;
      IF unbalanced.debit <> unbalanced.credit OR unbalanced.lines < 2 OR unbalanced.foreign_accounts > 0 THEN
        RAISE EXCEPTION 'journal entry % is not balanced (debit %, credit %, % lines, % foreign accounts)',
          unbalanced.id, unbalanced.debit, unbalanced.credit, unbalanced.lines, unbalanced.foreign_accounts
          USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_entries_balanced';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER journal_lines_balanced AFTER INSERT ON journal_lines
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION coopbank_check_entry_balanced()`);
  // An entry without lines is caught too: the same check fires for the entry row itself.
  await knex.raw(`
    CREATE FUNCTION coopbank_check_entry_has_lines() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM journal_lines WHERE entry_id = NEW.id) THEN
        RAISE EXCEPTION 'journal entry % has no lines', NEW.id
          USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_entries_balanced';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER journal_entries_have_lines AFTER INSERT ON journal_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION coopbank_check_entry_has_lines()`);

  await knex.raw(`
    CREATE FUNCTION coopbank_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% is append-only: post a reversing entry instead', TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
    END $$`);
  for (const table of ['journal_entries', 'journal_lines', 'business_event_logs', 'accounting_rule_configs']) {
    await knex.raw(`CREATE TRIGGER ?? BEFORE UPDATE OR DELETE ON ?? FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()`, [`${table}_append_only`, table]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['journal_lines', 'journal_entries', 'business_event_logs', 'accounting_rule_configs']) {
    await knex.schema.dropTable(table);
  }
  for (const fn of ['coopbank_check_entry_balanced', 'coopbank_check_entry_has_lines', 'coopbank_refuse_change']) {
    await knex.raw(`DROP FUNCTION ${fn}()`);
  }
}
