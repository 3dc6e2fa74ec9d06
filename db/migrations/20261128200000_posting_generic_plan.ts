import type { Knex } from 'knex';

/**
 * coopbank_post_entry, the same refusals, locks and rows, with statements PostgreSQL plans once per session
 * instead of at every posting (issue 14: about 12 % of PostgreSQL's CPU per deposit went into planning it).
 *
 * PL/pgSQL keeps a statement's plan when the plan made for any parameter values (generic) is estimated no dearer
 * than the plans made for the values at hand (custom). The accounts were found by `code = ANY (codes)`, `codes` a
 * variable: with the array known, PostgreSQL counts its two codes; unknown, it assumes ten, so the generic plan
 * always looked five times dearer and the statement (a CTE, a sub-select over the leaves view, the lock) was
 * planned again at every posting. The codes are now read from `lines` inside each statement, where PostgreSQL
 * cannot count them whether or not it knows `lines`: both estimates are equal and the generic plan is kept. The
 * plan itself is the same (the (enterprise_id, code) index, the leaf check, FOR KEY SHARE of the chart rows).
 *
 * coopbank_lock_member_account, likewise: a movement without a client key passes no key, and a custom plan with the
 * key null drops the look-up of its event, so it always looked cheaper and the statement was planned at every
 * deposit. The look-up is now a statement of its own, run only when there is a key; it still runs after the lock,
 * with a snapshot of its own, so a twin request that held the lock before us is seen as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION coopbank_post_entry(
      enterprise uuid, branch uuid, entry_date date, lines jsonb, description text,
      event uuid, rule_config uuid, reverses_entry uuid, created_by uuid
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
      INSERT INTO journal_entries AS e (enterprise_id, exercice_id, branch_id, entry_date, event_id, rule_config_id, reverses_entry_id, description, created_by)
      VALUES (enterprise, exercice, branch, entry_date, event, rule_config, reverses_entry, description, created_by)
      RETURNING e.id INTO entry;
      INSERT INTO journal_lines (entry_id, chart_entry_id, debit, credit)
      SELECT entry, (accounts->(l.line->>'account')->>'id')::uuid, (l.line->>'debit')::numeric, (l.line->>'credit')::numeric
        FROM jsonb_array_elements(lines) WITH ORDINALITY AS l(line, ord)
       ORDER BY l.ord;
      RETURN entry;
    END $$`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION coopbank_lock_member_account(account uuid, operation_key text)
    RETURNS TABLE (
      id uuid, enterprise_id uuid, branch_id uuid, number text, status text, balance numeric,
      product_code text, withdrawals_allowed boolean, minimum_balance numeric, deposit_account_code text, earlier_event uuid
    ) LANGUAGE plpgsql AS $$
    DECLARE
      locked comptes_clients;
      earlier uuid;
    BEGIN
      SELECT * INTO locked FROM comptes_clients a WHERE a.id = account FOR UPDATE;
      IF NOT FOUND THEN
        RETURN;
      END IF;
      IF operation_key IS NOT NULL THEN
        SELECT ev.id INTO earlier FROM business_event_logs ev WHERE ev.enterprise_id = locked.enterprise_id AND ev.idempotency_key = operation_key;
      END IF;
      RETURN QUERY
        SELECT locked.id, locked.enterprise_id, locked.branch_id, locked.number::text, locked.status::text, locked.balance,
               p.code::text, p.withdrawals_allowed, p.minimum_balance, p.deposit_account_code::text, earlier
          FROM savings_products p WHERE p.id = locked.product_id;
    END $$`);
}

// Nothing to undo: the functions behave as 20261124000000_posting_functions made them, whose down drops them.
export async function down(): Promise<void> {}
