import type { Knex } from 'knex';
import { applySqlSource } from '../migration-helpers';

/**
 * Issue 27: an audit trail to read, and proof that the books were not altered (docs/architecture.md §4 "Tamper
 * evidence", §7). The audit trail gains the caller's address and the values before and after, and becomes
 * append-only as the ledger is. Each journal entry and each audit row joins its enterprise's SHA-256 hash chain at
 * commit (ledger_chain_links; the head of both chains of an enterprise in one ledger_chain_heads row, the lock
 * that orders them). The auditor role reads and changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE role_grants DROP CONSTRAINT role_grants_role_known');
  await knex.raw(`ALTER TABLE role_grants ADD CONSTRAINT role_grants_role_known CHECK (role IN ('cashier', 'branch_head', 'credit_committee', 'direction', 'admin', 'auditor'))`);

  await knex.schema.alterTable('audit_events', (table) => {
    table.string('address', 64);
    table.jsonb('before');
    table.jsonb('after');
    table.index(['enterprise_id', 'actor_id', 'occurred_at'], 'audit_events_enterprise_actor_time');
    table.index(['entity_type', 'entity_id'], 'audit_events_entity');
  });
  await knex.raw('CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');

  // chain_key: the enterprise, or the nil UUID for the platform's own audit rows (no enterprise).
  await knex.schema.createTable('ledger_chain_heads', (table) => {
    table.uuid('chain_key').primary();
    table.bigInteger('entries_position').notNullable().defaultTo(0);
    table.binary('entries_hash');
    table.bigInteger('audit_position').notNullable().defaultTo(0);
    table.binary('audit_hash');
  });
  await knex.schema.createTable('ledger_chain_links', (table) => {
    table.string('chain', 20).notNullable();
    table.uuid('chain_key').notNullable();
    table.bigInteger('position').notNullable();
    table.uuid('entry_id').unique().references('journal_entries.id');
    table.bigInteger('audit_event_id').unique().references('audit_events.id');
    table.binary('previous_hash');
    table.binary('hash').notNullable();
    table.primary(['chain', 'chain_key', 'position']);
    table.check(`(chain = 'journal_entries' AND entry_id IS NOT NULL AND audit_event_id IS NULL) OR (chain = 'audit_events' AND audit_event_id IS NOT NULL AND entry_id IS NULL)`, [], 'ledger_chain_links_one_row');
  });
  await knex.raw('CREATE TRIGGER ledger_chain_links_append_only BEFORE UPDATE OR DELETE ON ledger_chain_links FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');

  for (const name of ['functions/coopbank_chain_row', 'functions/coopbank_chain_link', 'triggers/coopbank_chain_committed_row']) await applySqlSource(knex, name);
  // Rows written before: chained in the order they were written.
  await knex.raw(`
    DO $$
    DECLARE
      r record;
    BEGIN
      FOR r IN SELECT e.id, e.enterprise_id FROM journal_entries e JOIN journal_entry_numbers n ON n.entry_id = e.id ORDER BY e.created_at, n.number, e.id LOOP
        PERFORM coopbank_chain_link('journal_entries', r.enterprise_id, r.id::text);
      END LOOP;
      FOR r IN SELECT a.id, a.enterprise_id FROM audit_events a ORDER BY a.id LOOP
        PERFORM coopbank_chain_link('audit_events', r.enterprise_id, r.id::text);
      END LOOP;
    END $$`);
  // "chained" sorts before "numbered": the head is taken before a journal counter (coopbank_chain_link).
  for (const table of ['journal_entries', 'audit_events']) {
    await knex.raw('CREATE CONSTRAINT TRIGGER ?? AFTER INSERT ON ?? DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION coopbank_chain_committed_row()', [`${table}_chained`, table]);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER audit_events_chained ON audit_events');
  await knex.raw('DROP TRIGGER journal_entries_chained ON journal_entries');
  await knex.raw('DROP FUNCTION coopbank_chain_committed_row()');
  await knex.raw('DROP FUNCTION coopbank_chain_link(text, uuid, text)');
  await knex.raw('DROP FUNCTION coopbank_chain_row(text, text)');
  await knex.schema.dropTable('ledger_chain_links');
  await knex.schema.dropTable('ledger_chain_heads');
  await knex.raw('DROP TRIGGER audit_events_append_only ON audit_events');
  await knex.schema.alterTable('audit_events', (table) => {
    table.dropIndex([], 'audit_events_entity');
    table.dropIndex([], 'audit_events_enterprise_actor_time');
    table.dropColumns('address', 'before', 'after');
  });
  await knex.raw('ALTER TABLE role_grants DROP CONSTRAINT role_grants_role_known');
  await knex.raw(`ALTER TABLE role_grants ADD CONSTRAINT role_grants_role_known CHECK (role IN ('cashier', 'branch_head', 'credit_committee', 'direction', 'admin'))`);
}
