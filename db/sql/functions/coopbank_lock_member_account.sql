-- A member account locked FOR UPDATE, with what a movement needs of its product, and the event of the
-- operation's key (20261128200000_posting_generic_plan). The look-up of the key is a statement of its own, run only
-- when there is a key, so the generic plan is kept; it runs after the lock, with a snapshot of its own, so a twin
-- request that held the lock before us is seen.
CREATE OR REPLACE FUNCTION public.coopbank_lock_member_account(account uuid, operation_key text)
 RETURNS TABLE(id uuid, enterprise_id uuid, branch_id uuid, number text, status text, balance numeric, product_code text, withdrawals_allowed boolean, minimum_balance numeric, deposit_account_code text, earlier_event uuid)
 LANGUAGE plpgsql
AS $function$
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
    END $function$
