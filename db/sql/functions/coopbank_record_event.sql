-- The posting of a business event in one round trip (20261124000000_posting_functions; it used to be nine
-- statements). The event and its entry. The business date is effectiveBusinessDate's rule (domain/calendar.ts),
-- as businessDateSql writes it. The idempotency key is enforced by the unique index: a concurrent twin waits for
-- our commit, then finds our row and answers it (the same request) or refuses (another request under the key).
-- Suspension is checked after the replay: a retry of what was recorded before the suspension still gets its answer.
-- The lines are linesForEvent's (domain/events/journal.ts); test/db/sql-twins.test.ts runs both on the same cases.
-- The `cash` role, when it would be the default 5710, is the operator's till in a branch under till control
-- (coopbank_cash_account, issue 29): every module's cash posts through here, so the control is in one place.
CREATE OR REPLACE FUNCTION public.coopbank_record_event(enterprise uuid, branch uuid, kind text, amount numeric, payload jsonb, product_accounts jsonb, subject uuid, actor uuid, idempotency_key text, request_hash text, at_time timestamp with time zone, moves_money boolean, default_accounts jsonb, description text, OUT event_id uuid, OUT entry_id uuid, OUT business_date date, OUT recorded_at timestamp with time zone, OUT replayed boolean)
 RETURNS record
 LANGUAGE plpgsql
AS $function$
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
      IF coalesce(product_accounts->>'cash', default_accounts->>'cash') = default_accounts->>'cash' AND jsonb_path_exists(in_force.legs, '$[*].* ? (@.role == "cash")') THEN
        product_accounts := coalesce(product_accounts, '{}'::jsonb) || jsonb_build_object('cash', coopbank_cash_account(branch, actor, default_accounts->>'cash'));
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
    END $function$
