-- A deposit or a withdrawal at the counter in one statement (20261125000000_cash_movement_function;
-- holds added by 20261129950000_guarantee_holds): one statement needs no explicit transaction, it commits alone,
-- or, called inside a caller's transaction, with it. The account is locked first (coopbank_lock_member_account).
-- The event of the operation's key, when it is a cash operation, is answered as it was recorded, with nothing
-- written: the caller compares its request. Otherwise the account must be open, a withdrawal allowed by the
-- product and not below the minimum balance plus the held amounts (domain/members/overdraft.ts, assertAboveMinimum:
-- the same rule and message; test/db/sql-twins.test.ts runs both on the same cases), and the event is posted by
-- coopbank_record_event with the account's new balance.
CREATE OR REPLACE FUNCTION public.coopbank_move_cash(wanted_account uuid, direction text, amount numeric, channel text, reference text, operation_key text, replayable boolean, actor uuid, at_time timestamp with time zone, moves_money boolean, default_accounts jsonb)
 RETURNS TABLE(account uuid, id uuid, kind text, subject_id uuid, amount_moved numeric, payload jsonb, business_date date, created_at timestamp with time zone, journal_entry uuid, replayed boolean)
 LANGUAGE plpgsql
AS $function$
    #variable_conflict use_variable
    DECLARE
      locked record;
      balance_after numeric;
      held numeric := 0;
      request jsonb;
      event_payload jsonb;
      product_accounts jsonb;
      recorded record;
    BEGIN
      SELECT * INTO locked FROM coopbank_lock_member_account(wanted_account, CASE WHEN replayable THEN operation_key END) a;
      IF NOT FOUND THEN
        RETURN;
      END IF;
      IF locked.earlier_event IS NOT NULL THEN
        RETURN QUERY
          SELECT locked.id, ev.id, ev.kind::text, ev.subject_id, ev.amount, ev.payload, ev.business_date, ev.created_at, je.id, true
            FROM business_event_logs ev
            LEFT JOIN journal_entries je ON je.event_id = ev.id AND je.reverses_entry_id IS NULL
           WHERE ev.id = locked.earlier_event AND ev.kind IN ('deposit', 'withdrawal');
        IF FOUND THEN
          RETURN;
        END IF;
      END IF;
      IF locked.status <> 'open' THEN
        PERFORM coopbank_refuse('CB409', 'account_' || locked.status, format('The account is %s: no %s is possible.', locked.status, direction));
      END IF;
      balance_after := CASE WHEN direction = 'deposit' THEN locked.balance + amount ELSE locked.balance - amount END;
      IF direction = 'withdrawal' AND NOT locked.withdrawals_allowed THEN
        PERFORM coopbank_refuse('CB409', 'withdrawals_not_allowed', format('Product %s does not allow withdrawals.', locked.product_code));
      END IF;
      IF direction = 'withdrawal' THEN
        -- Read under the account's lock: a hold added concurrently locks the account too (loan-guarantees.activity.ts).
        held := coopbank_held_amount(locked.id);
      END IF;
      IF direction = 'withdrawal' AND balance_after < locked.minimum_balance + held THEN
        PERFORM coopbank_refuse('CB409', 'insufficient_funds', format('The available balance is %s XAF.', greatest(locked.balance - locked.minimum_balance - held, 0))
                                                               || CASE WHEN held > 0 THEN format(' %s XAF are held as pledged deposits.', held) ELSE '' END);
      END IF;

      request := jsonb_build_object('direction', direction, 'account', locked.id, 'amount', amount::text, 'channel', channel, 'reference', reference);
      event_payload := jsonb_build_object('request', request, 'balance_after', balance_after::text, 'account_number', locked.number);
      product_accounts := jsonb_build_object('member_deposits', locked.deposit_account_code);
      SELECT * INTO recorded FROM coopbank_record_event(
        locked.enterprise_id, locked.branch_id, direction, amount, event_payload, product_accounts, locked.id, actor, operation_key,
        encode(sha256(convert_to(jsonb_build_object('enterprise', locked.enterprise_id, 'branch', locked.branch_id, 'kind', direction, 'amount', amount::text, 'payload', event_payload,
                                                    'product_accounts', product_accounts)::text, 'UTF8')), 'hex'),
        at_time, moves_money, default_accounts,
        direction || ' ' || locked.number || CASE WHEN reference = '' THEN '' ELSE ' (' || reference || ')' END) r;
      IF NOT recorded.replayed THEN
        UPDATE comptes_clients a SET balance = balance_after WHERE a.id = locked.id;
      END IF;
      RETURN QUERY SELECT locked.id, recorded.event_id, direction, locked.id, amount, event_payload, recorded.business_date, recorded.recorded_at,
                          recorded.entry_id, recorded.replayed;
    END $function$
