import type { Knex } from 'knex';
import { up as postWithoutJournal } from './20261128200000_posting_generic_plan';

/**
 * Journals and entry numbers (docs/architecture.md §9, docs/domain.md §2): every journal entry belongs to a journal
 * (caisse, banque, opérations diverses, à-nouveaux, one per kind of automatic posting) and carries a number,
 * sequential per journal and accounting year with no gap, given as its posting commits (a refused or rolled-back
 * posting never takes one). The entry's UUID stays its identity.
 *
 * The journal of an entry, in coopbank_post_entry: the one its caller names (a closing, an allocation, an accrual's
 * reversal); else the journal of the entry it reverses; else the journal of its kind (the rule's, else the event's)
 * when that kind is an automatic posting's; else by its lines: cash (57) makes it a caisse entry, a correspondent's
 * demand account (56) a banque entry, anything else an opération diverse.
 */
const journals = [
  { code: 'CAI', name: 'Caisse', event_kinds: [] },
  { code: 'BQ', name: 'Banque et correspondants', event_kinds: [] },
  { code: 'OD', name: 'Opérations diverses', event_kinds: [] },
  { code: 'AN', name: 'À-nouveaux', event_kinds: [] },
  { code: 'CLO', name: 'Clôture de l’exercice', event_kinds: [] },
  { code: 'AFF', name: 'Affectation du résultat', event_kinds: [] },
  { code: 'INT', name: 'Intérêts servis et courus', event_kinds: ['savings_interest', 'withholding_tax', 'interest_accrual', 'savings_interest_accrual', 'savings_interest_recovery', 'withholding_tax_refund'] },
  { code: 'PRV', name: 'Déclassements et provisions', event_kinds: ['reclassification_overdue', 'reclassification_doubtful', 'reclassification_performing', 'provision_charge', 'provision_reversal', 'write_off'] },
  { code: 'DAT', name: 'Échéances des dépôts à terme', event_kinds: ['term_deposit_maturity', 'term_deposit_payout', 'term_deposit_early_closure'] },
];

/** The journal of an entry from what it is, as coopbank_post_entry decides it for a new one (see above). */
const journalOfEntry = `
  coalesce(
    (SELECT j.code FROM journals j WHERE coalesce(
       (SELECT r.kind FROM accounting_rule_configs r WHERE r.id = e.rule_config_id),
       (SELECT ev.kind FROM business_event_logs ev WHERE ev.id = e.event_id)) = ANY (j.event_kinds)),
    CASE WHEN EXISTS (SELECT 1 FROM journal_lines l JOIN company_chart_entries c ON c.id = l.chart_entry_id WHERE l.entry_id = e.id AND c.code LIKE '57%') THEN 'CAI'
         WHEN EXISTS (SELECT 1 FROM journal_lines l JOIN company_chart_entries c ON c.id = l.chart_entry_id WHERE l.entry_id = e.id AND c.code LIKE '56%') THEN 'BQ'
         ELSE 'OD' END)`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('journals', (table) => {
    table.string('code', 6).primary();
    table.string('name', 80).notNullable();
    // The kinds of automatic posting whose entries go to this journal.
    table.specificType('event_kinds', 'text[]').notNullable().defaultTo('{}');
  });
  await knex('journals').insert(journals.map((journal) => ({ ...journal, event_kinds: knex.raw('?::text[]', [journal.event_kinds]) })));

  await knex.schema.alterTable('journal_entries', (table) => {
    table.string('journal_code', 6).references('journals.code');
  });
  await knex.schema.createTable('journal_entry_numbers', (table) => {
    table.uuid('entry_id').primary().references('journal_entries.id');
    table.uuid('enterprise_id').notNullable();
    table.uuid('exercice_id').notNullable();
    table.string('journal_code', 6).notNullable();
    table.integer('number').notNullable();
    table.unique(['enterprise_id', 'exercice_id', 'journal_code', 'number'], { indexName: 'journal_entry_numbers_gap_free' });
  });
  await knex.schema.createTable('journal_sequences', (table) => {
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('exercice_id').notNullable().references('exercices_comptables.id');
    table.string('journal_code', 6).notNullable().references('journals.code');
    table.integer('last_number').notNullable();
    table.primary(['enterprise_id', 'exercice_id', 'journal_code']);
  });

  // Entries posted before: their journal from what they are, a reversal in its reversed entry's journal (reversals
  // come after what they reverse), numbered in posting order within each journal and year.
  await knex.raw('ALTER TABLE journal_entries DISABLE TRIGGER journal_entries_append_only');
  await knex.raw(`UPDATE journal_entries e SET journal_code = ${journalOfEntry} WHERE e.reverses_entry_id IS NULL`);
  await knex.raw(`
    WITH RECURSIVE chain AS (
      SELECT e.id, e.journal_code FROM journal_entries e WHERE e.reverses_entry_id IS NULL
      UNION ALL
      SELECT r.id, chain.journal_code FROM journal_entries r JOIN chain ON r.reverses_entry_id = chain.id)
    UPDATE journal_entries e SET journal_code = chain.journal_code FROM chain WHERE e.id = chain.id AND e.journal_code IS NULL`);
  await knex.raw('ALTER TABLE journal_entries ENABLE TRIGGER journal_entries_append_only');
  await knex.raw('ALTER TABLE journal_entries ALTER COLUMN journal_code SET NOT NULL');
  await knex.raw(`
    INSERT INTO journal_entry_numbers (entry_id, enterprise_id, exercice_id, journal_code, number)
    SELECT id, enterprise_id, exercice_id, journal_code, row_number() OVER (PARTITION BY enterprise_id, exercice_id, journal_code ORDER BY created_at, entry_date, id)
      FROM journal_entries`);
  await knex.raw(`
    INSERT INTO journal_sequences (enterprise_id, exercice_id, journal_code, last_number)
    SELECT enterprise_id, exercice_id, journal_code, max(number) FROM journal_entry_numbers GROUP BY enterprise_id, exercice_id, journal_code`);
  await knex.raw(`CREATE TRIGGER journal_entry_numbers_append_only BEFORE UPDATE OR DELETE ON journal_entry_numbers FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()`);

  // The number is given at commit, by a deferred trigger, not when the entry is written: the counter row of a
  // journal and year is then held only while the posting commits, and the postings of one journal (every cash
  // movement of the enterprise) do not wait for each other's work, only for each other's commit. Deferred
  // triggers fire in the order their rows were written: entries of one transaction are numbered in posting order.
  await knex.raw(`
    CREATE FUNCTION coopbank_number_entry() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      next_number integer;
    BEGIN
      INSERT INTO journal_sequences AS s (enterprise_id, exercice_id, journal_code, last_number) VALUES (NEW.enterprise_id, NEW.exercice_id, NEW.journal_code, 1)
      ON CONFLICT (enterprise_id, exercice_id, journal_code) DO UPDATE SET last_number = s.last_number + 1
      RETURNING s.last_number INTO next_number;
      INSERT INTO journal_entry_numbers (entry_id, enterprise_id, exercice_id, journal_code, number) VALUES (NEW.id, NEW.enterprise_id, NEW.exercice_id, NEW.journal_code, next_number);
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER journal_entries_numbered AFTER INSERT ON journal_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION coopbank_number_entry()`);

  // coopbank_post_entry with the journal: the same refusals, locks and plans (20261128200000), then the journal.
  await knex.raw('DROP FUNCTION coopbank_post_entry(uuid, uuid, date, jsonb, text, uuid, uuid, uuid, uuid)');
  await knex.raw(`
    CREATE FUNCTION coopbank_post_entry(
      enterprise uuid, branch uuid, entry_date date, lines jsonb, description text,
      event uuid, rule_config uuid, reverses_entry uuid, created_by uuid, journal text DEFAULT NULL
    ) RETURNS uuid LANGUAGE plpgsql AS $$
    DECLARE
      accounts jsonb;
      problem record;
      exercice uuid;
      entry uuid;
    BEGIN
      WITH locked AS (
        SELECT c.id, c.code, c.is_active,
               -- company_chart_leaves is the one definition of a leaf (see the chart migration).
               EXISTS (SELECT 1 FROM company_chart_leaves leaf WHERE leaf.id = c.id) AS is_leaf
          FROM company_chart_entries c
         WHERE c.enterprise_id = enterprise AND c.code = ANY (ARRAY(SELECT line->>'account' FROM jsonb_array_elements(lines) AS line))
           FOR KEY SHARE OF c
      )
      SELECT jsonb_object_agg(locked.code, jsonb_build_object('id', locked.id, 'active', locked.is_active, 'leaf', locked.is_leaf)) INTO accounts FROM locked;
      SELECT l.code, accounts->l.code AS account INTO problem
        FROM jsonb_array_elements(lines) WITH ORDINALITY AS line(value, ord)
       CROSS JOIN LATERAL (SELECT line.value->>'account') AS l(code)
       WHERE accounts->l.code IS NULL OR NOT (accounts->l.code->>'active')::boolean OR NOT (accounts->l.code->>'leaf')::boolean
       ORDER BY line.ord LIMIT 1;
      IF FOUND AND problem.account IS NULL THEN
        PERFORM coopbank_refuse('CB422', 'account_unknown', format('Account %s is not in the enterprise''s chart.', problem.code));
      ELSIF FOUND AND NOT (problem.account->>'active')::boolean THEN
        PERFORM coopbank_refuse('CB422', 'account_inactive', format('Account %s is deactivated.', problem.code));
      ELSIF FOUND THEN
        PERFORM coopbank_refuse('CB422', 'account_not_leaf', format('Account %s has sub-accounts: post to one of them.', problem.code));
      END IF;

      SELECT y.id INTO exercice FROM exercices_comptables y WHERE y.enterprise_id = enterprise AND entry_date BETWEEN y.start_date AND y.end_date;
      IF NOT FOUND THEN
        PERFORM coopbank_refuse('CB409', 'no_exercice_for_date', format('No accounting year of the enterprise covers %s.', entry_date));
      END IF;

      IF journal IS NULL AND reverses_entry IS NOT NULL THEN
        SELECT r.journal_code INTO journal FROM journal_entries r WHERE r.id = reverses_entry;
      END IF;
      IF journal IS NULL AND (rule_config IS NOT NULL OR event IS NOT NULL) THEN
        SELECT j.code INTO journal FROM journals j
         WHERE coalesce((SELECT r.kind FROM accounting_rule_configs r WHERE r.id = rule_config),
                        (SELECT ev.kind FROM business_event_logs ev WHERE ev.id = event)) = ANY (j.event_kinds);
      END IF;
      IF journal IS NULL THEN
        SELECT CASE WHEN bool_or(line->>'account' LIKE '57%') THEN 'CAI' WHEN bool_or(line->>'account' LIKE '56%') THEN 'BQ' ELSE 'OD' END
          INTO journal FROM jsonb_array_elements(lines) AS line;
      END IF;
      INSERT INTO journal_entries AS e (enterprise_id, exercice_id, branch_id, entry_date, event_id, rule_config_id, reverses_entry_id, description, created_by, journal_code)
      VALUES (enterprise, exercice, branch, entry_date, event, rule_config, reverses_entry, description, created_by, journal)
      RETURNING e.id INTO entry;
      INSERT INTO journal_lines (entry_id, chart_entry_id, debit, credit)
      SELECT entry, (accounts->(l.line->>'account')->>'id')::uuid, (l.line->>'debit')::numeric, (l.line->>'credit')::numeric
        FROM jsonb_array_elements(lines) WITH ORDINALITY AS l(line, ord)
       ORDER BY l.ord;
      RETURN entry;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION coopbank_post_entry(uuid, uuid, date, jsonb, text, uuid, uuid, uuid, uuid, text)');
  await knex.raw('DROP TRIGGER journal_entries_numbered ON journal_entries');
  await knex.raw('DROP FUNCTION coopbank_number_entry()');
  await knex.schema.dropTable('journal_sequences');
  await knex.schema.dropTable('journal_entry_numbers');
  await knex.schema.alterTable('journal_entries', (table) => {
    table.dropColumn('journal_code');
  });
  await knex.schema.dropTable('journals');
  // The nine-argument coopbank_post_entry, as 20261128200000_posting_generic_plan made it.
  await postWithoutJournal(knex);
}
