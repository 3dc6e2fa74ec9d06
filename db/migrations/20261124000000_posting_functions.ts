import type { Knex } from 'knex';

/**
 * The posting of a business event in one round trip: a ledger statement used to be nine (business date, event,
 * rule, accounts, year, entry, lines…), each a query built and a network exchange in the API or the worker. The
 * functions keep the refusals the activities made, with their codes (DETAIL) and kinds (SQLSTATE CB404 not found,
 * CB409 conflict, CB422 unprocessable: activities/events/ledger-refusal.ts), so callers see the same AppErrors.
 *
 * A posting outside an open accounting year is now refused by the database itself, whatever inserts the entry.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION coopbank_refuse(state text, refusal text, message text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION USING ERRCODE = state, MESSAGE = message, DETAIL = refusal;
    END $$`);

  // The year row is key-share locked: a closing (SELECT … FOR UPDATE, then the update) waits for this posting
  // to commit, or this posting waits for the closing and reads the year closed; postings do not wait for each other.
  await knex.raw(`
    CREATE FUNCTION coopbank_check_entry_in_open_exercice() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      exercice record;
    BEGIN
      SELECT y.code, y.status, y.start_date, y.end_date, y.enterprise_id INTO exercice FROM exercices_comptables y WHERE y.id = NEW.exercice_id FOR KEY SHARE;
      IF NOT FOUND OR exercice.enterprise_id <> NEW.enterprise_id OR NEW.entry_date NOT BETWEEN exercice.start_date AND exercice.end_date THEN
        PERFORM coopbank_refuse('CB409', 'no_exercice_for_date', format('No accounting year of the enterprise covers %s.', NEW.entry_date));
      END IF;
      IF exercice.status <> 'open' THEN
        PERFORM coopbank_refuse('CB409', 'exercice_closed', format('The accounting year %s is closed: nothing more can be posted to %s.', exercice.code, NEW.entry_date));
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER journal_entries_in_open_exercice BEFORE INSERT ON journal_entries
    FOR EACH ROW EXECUTE FUNCTION coopbank_check_entry_in_open_exercice()`);

  // The checks at commit look up one entry's lines. A session plans them once and keeps the plan: planned while
  // journal_lines was young (a new database, before its first ANALYZE), it was a sequential scan, read at every
  // commit for the life of the connection, ever longer as the ledger grows. By the index, always.
  for (const check of ['coopbank_check_entry_balanced', 'coopbank_check_entry_has_lines']) {
    await knex.raw(`ALTER FUNCTION ${check}() SET enable_seqscan = off`);
  }

  // One balanced entry: lines [{account, debit, credit}] by account code. Every account must be postable (in the
  // enterprise's chart, active, a leaf), the first problem in the order of the lines refused. The accounts are
  // key-share locked, the lightest lock that conflicts with FOR UPDATE: an account cannot get a sub-account or be
  // deactivated while we post to it. Balance is checked at commit by the deferred triggers of the ledger.
  await knex.raw(`
    CREATE FUNCTION coopbank_post_entry(
      enterprise uuid, branch uuid, entry_date date, lines jsonb, description text,
      event uuid, rule_config uuid, reverses_entry uuid, created_by uuid
    ) RETURNS uuid LANGUAGE plpgsql AS $$
    DECLARE
      codes text[] := ARRAY(SELECT line->>'account' FROM jsonb_array_elements(lines) AS line);
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
         WHERE c.enterprise_id = enterprise AND c.code = ANY (codes)
           FOR KEY SHARE OF c
      )
      SELECT jsonb_object_agg(locked.code, jsonb_build_object('id', locked.id, 'active', locked.is_active, 'leaf', locked.is_leaf)) INTO accounts FROM locked;
      SELECT l.code, accounts->l.code AS account INTO problem
        FROM unnest(codes) WITH ORDINALITY AS l(code, ord)
       WHERE accounts->l.code IS NULL OR NOT (accounts->l.code->>'active')::boolean OR NOT (accounts->l.code->>'leaf')::boolean
       ORDER BY l.ord LIMIT 1;
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
      INSERT INTO journal_entries AS e (enterprise_id, exercice_id, branch_id, entry_date, event_id, rule_config_id, reverses_entry_id, description, created_by)
      VALUES (enterprise, exercice, branch, entry_date, event, rule_config, reverses_entry, description, created_by)
      RETURNING e.id INTO entry;
      INSERT INTO journal_lines (entry_id, chart_entry_id, debit, credit)
      SELECT entry, (accounts->(l.line->>'account')->>'id')::uuid, (l.line->>'debit')::numeric, (l.line->>'credit')::numeric
        FROM jsonb_array_elements(lines) WITH ORDINALITY AS l(line, ord)
       ORDER BY l.ord;
      RETURN entry;
    END $$`);

  // The event and its entry. The business date is effectiveBusinessDate's rule (domain/calendar.ts), as
  // businessDateSql writes it. The idempotency key is enforced by the unique index: a concurrent twin waits for
  // our commit, then finds our row and answers it (the same request) or refuses (another request under the key).
  // Suspension is checked after the replay: a retry of what was recorded before the suspension still gets its answer.
  await knex.raw(`
    CREATE FUNCTION coopbank_record_event(
      enterprise uuid, branch uuid, kind text, amount numeric, payload jsonb, product_accounts jsonb, subject uuid,
      actor uuid, idempotency_key text, request_hash text, at_time timestamptz, moves_money boolean,
      default_accounts jsonb, description text,
      OUT event_id uuid, OUT entry_id uuid, OUT business_date date, OUT recorded_at timestamptz, OUT replayed boolean
    ) LANGUAGE plpgsql AS $$
    #variable_conflict use_variable
    DECLARE
      suspended boolean;
      earlier record;
      in_force record;
      lines jsonb;
    BEGIN
      SELECT coalesce(c.business_date, (at_time AT TIME ZONE c.time_zone)::date), e.status = 'suspended' INTO business_date, suspended
        FROM enterprise_configurations c JOIN enterprises e ON e.id = c.enterprise_id
       WHERE c.enterprise_id = enterprise;
      IF NOT FOUND THEN
        PERFORM coopbank_refuse('CB404', 'not_found', 'The enterprise was not found.');
      END IF;
      INSERT INTO business_event_logs AS ev (enterprise_id, branch_id, kind, amount, payload, product_accounts, subject_id, business_date, actor_id, idempotency_key, request_hash)
      VALUES (enterprise, branch, kind, amount, payload, product_accounts, subject, business_date, actor, idempotency_key, request_hash)
      ON CONFLICT ON CONSTRAINT business_event_logs_idempotency_unique DO NOTHING
      RETURNING ev.id, ev.created_at INTO event_id, recorded_at;
      IF NOT FOUND THEN
        SELECT ev.id, ev.request_hash, ev.business_date, ev.created_at INTO earlier
          FROM business_event_logs ev WHERE ev.enterprise_id = enterprise AND ev.idempotency_key = idempotency_key;
        IF earlier.request_hash <> request_hash THEN
          PERFORM coopbank_refuse('CB409', 'idempotency_key_reused', 'This idempotency key was already used for a different request.');
        END IF;
        SELECT je.id INTO entry_id FROM journal_entries je WHERE je.event_id = earlier.id AND je.reverses_entry_id IS NULL ORDER BY je.created_at LIMIT 1;
        SELECT earlier.id, earlier.business_date, earlier.created_at, true INTO event_id, business_date, recorded_at, replayed;
        RETURN;
      END IF;
      replayed := false;
      IF suspended AND moves_money THEN
        PERFORM coopbank_refuse('CB409', 'enterprise_suspended', 'The enterprise is suspended: it accepts no money movement.');
      END IF;

      SELECT r.id, r.legs, r.is_active INTO in_force FROM accounting_rule_configs r WHERE r.enterprise_id = enterprise AND r.kind = kind ORDER BY r.version DESC LIMIT 1;
      IF NOT FOUND OR NOT in_force.is_active THEN
        RETURN; -- logged, nothing posted
      END IF;
      -- linesForEvent (domain/events/journal.ts): each leg debits one account and credits another by the whole
      -- amount; a side names an account, or a role played by the product's account, else by the default one.
      SELECT jsonb_agg(jsonb_build_object(
               'account', coalesce(side.ref->>'account', product_accounts->>(side.ref->>'role'), default_accounts->>(side.ref->>'role')),
               'debit', CASE WHEN side.is_debit THEN amount ELSE 0 END,
               'credit', CASE WHEN side.is_debit THEN 0 ELSE amount END)
             ORDER BY leg.ord, side.is_debit DESC)
        INTO lines
        FROM jsonb_array_elements(in_force.legs) WITH ORDINALITY AS leg(value, ord)
       CROSS JOIN LATERAL (VALUES (leg.value->'debit', true), (leg.value->'credit', false)) AS side(ref, is_debit);
      entry_id := coopbank_post_entry(enterprise, branch, business_date, lines, description, event_id, in_force.id, NULL, actor);
    END $$`);

  // A cash operation's first statement: the member's account locked (concurrent movements of one account queue
  // up), its product, and the event already recorded under the operation's key, if any. The key is looked up
  // after the lock, by a statement of its own: a twin request that held the lock before us has committed by then,
  // and its event is seen (one statement would read with the snapshot it took before waiting for the lock).
  await knex.raw(`
    CREATE FUNCTION coopbank_lock_member_account(account uuid, operation_key text)
    RETURNS TABLE (
      id uuid, enterprise_id uuid, branch_id uuid, number text, status text, balance numeric,
      product_code text, withdrawals_allowed boolean, minimum_balance numeric, deposit_account_code text, earlier_event uuid
    ) LANGUAGE plpgsql AS $$
    DECLARE
      locked comptes_clients;
    BEGIN
      SELECT * INTO locked FROM comptes_clients a WHERE a.id = account FOR UPDATE;
      IF NOT FOUND THEN
        RETURN;
      END IF;
      RETURN QUERY
        SELECT locked.id, locked.enterprise_id, locked.branch_id, locked.number::text, locked.status::text, locked.balance,
               p.code::text, p.withdrawals_allowed, p.minimum_balance, p.deposit_account_code::text,
               (SELECT ev.id FROM business_event_logs ev WHERE ev.enterprise_id = locked.enterprise_id AND ev.idempotency_key = operation_key)
          FROM savings_products p WHERE p.id = locked.product_id;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION coopbank_lock_member_account(uuid, text)');
  await knex.raw('DROP FUNCTION coopbank_record_event(uuid, uuid, text, numeric, jsonb, jsonb, uuid, uuid, text, text, timestamptz, boolean, jsonb, text)');
  await knex.raw('DROP FUNCTION coopbank_post_entry(uuid, uuid, date, jsonb, text, uuid, uuid, uuid, uuid)');
  for (const check of ['coopbank_check_entry_balanced', 'coopbank_check_entry_has_lines']) {
    await knex.raw(`ALTER FUNCTION ${check}() RESET enable_seqscan`);
  }
  await knex.raw('DROP TRIGGER journal_entries_in_open_exercice ON journal_entries');
  await knex.raw('DROP FUNCTION coopbank_check_entry_in_open_exercice()');
  await knex.raw('DROP FUNCTION coopbank_refuse(text, text, text)');
}
